import { Registry, type Counter, type Histogram } from 'prom-client';
import { registeredCounter, registeredHistogram } from '../registered-metric.js';

export interface JobMetrics {
  runs: Counter<'job' | 'outcome'>;
  duration: Histogram<'job'>;
}

/** Job run counters and durations; on the app's registry inside `serve` (so /metrics shows them), else a private one. */
export function createJobMetrics(registry: Registry = new Registry()): JobMetrics {
  return {
    runs: registeredCounter(registry, {
      name: 'patron_jobs_total',
      help: 'Job runs finished by this process, by job name and outcome (succeeded, failed, retried, continued).',
      labelNames: ['job', 'outcome'] as const,
    }),
    duration: registeredHistogram(registry, {
      name: 'patron_job_duration_seconds',
      help: 'Duration of job runs, by job name.',
      labelNames: ['job'] as const,
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900],
    }),
  };
}
