import { Counter, Histogram, Registry } from 'prom-client';
import { registeredMetric } from '../registered-metric.js';

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
    outcomes: registeredMetric(registry, 'patron_webhook_deliveries_total', (name) =>
      new Counter({
        name,
        help: 'Webhook deliveries finished by the dispatcher, by outcome (succeeded, failed, inactive).',
        labelNames: ['outcome'] as const,
        registers: [registry],
      }),
    ),
    duration: registeredMetric(registry, 'patron_webhook_delivery_duration_seconds', (name) =>
      new Histogram({
        name,
        help: 'Time from the start of a webhook POST to its outcome, by outcome.',
        labelNames: ['outcome'] as const,
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [registry],
      }),
    ),
  };
}
