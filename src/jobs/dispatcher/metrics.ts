import { Registry, type Counter, type Histogram } from 'prom-client';
import { registeredCounter, registeredHistogram } from '../registered-metric.js';

export interface DispatcherMetrics {
  outcomes: Counter<'outcome'>;
  duration: Histogram<'outcome'>;
}

/**
 * Delivery counters and POST durations. Registered on the app's registry when the dispatcher runs inside
 * `patron serve` (so /metrics shows them), on a private one otherwise.
 */
export function createDispatcherMetrics(registry: Registry = new Registry()): DispatcherMetrics {
  return {
    outcomes: registeredCounter(registry, {
      name: 'patron_webhook_deliveries_total',
      help: 'Webhook deliveries finished by the dispatcher, by outcome (succeeded, failed, inactive).',
      labelNames: ['outcome'] as const,
    }),
    duration: registeredHistogram(registry, {
      name: 'patron_webhook_delivery_duration_seconds',
      help: 'Time from the start of a webhook POST to its outcome, by outcome.',
      labelNames: ['outcome'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    }),
  };
}
