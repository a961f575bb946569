import { Registry, type Counter, type Histogram } from 'prom-client';
import { registeredCounter, registeredHistogram } from '../../jobs/registered-metric.js';

export interface ReviewSummaryMetrics {
  /** Generations by generator (builtin, openai) and outcome (succeeded, failed, skipped). */
  generations: Counter<'generator' | 'outcome'>;
  /** Failed generations by generator and reason (http_error, timeout, network_error, invalid_output, no_text, error). */
  failures: Counter<'generator' | 'reason'>;
  duration: Histogram<'generator'>;
}

/** On the app's registry inside `serve` (so /metrics shows them), else a private one. */
export function createReviewSummaryMetrics(registry: Registry = new Registry()): ReviewSummaryMetrics {
  return {
    generations: registeredCounter(registry, {
      name: 'patron_review_summary_generations_total',
      help: 'Review summary generations finished by this process, by generator and outcome (succeeded, failed, skipped).',
      labelNames: ['generator', 'outcome'] as const,
    }),
    failures: registeredCounter(registry, {
      name: 'patron_review_summary_generation_failures_total',
      help: 'Review summary generations that failed (the current summary was left as it was), by generator and reason.',
      labelNames: ['generator', 'reason'] as const,
    }),
    duration: registeredHistogram(registry, {
      name: 'patron_review_summary_generation_seconds',
      help: 'Time the generator took for one product, by generator.',
      labelNames: ['generator'] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    }),
  };
}
