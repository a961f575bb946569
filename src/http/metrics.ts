import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { PoolStats } from '../db/engine.js';
import type { PatronApp } from '../core/types.js';

export interface Metrics {
  registry: Registry;
  duration: Histogram<'method' | 'route' | 'status'>;
  rateLimitRejections: Counter<'bucket'>;
}

/** One registry per app, so several apps in one process (tests) never clash over metric names. */
export function createMetrics(poolStats: () => PoolStats): Metrics {
  const registry = new Registry();
  // The event-loop lag timer every 100 ms, not every 10: at 10 it woke an idle server 100 times a second
  // (docs/api.md#base-path).
  collectDefaultMetrics({ register: registry, prefix: 'patron_', eventLoopMonitoringPrecision: 100 });
  // Its _count series is the request count: a separate counter would double the cost on every request.
  const duration = new Histogram({
    name: 'patron_http_request_duration_seconds',
    help: 'Time from request received to response sent, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const rateLimitRejections = new Counter({
    name: 'patron_rate_limit_rejections_total',
    help: 'Requests refused with 429, by the bucket that could not afford them (org or an endpoint bucket).',
    labelNames: ['bucket'] as const,
    registers: [registry],
  });
  for (const field of ['total', 'idle', 'waiting'] as const) {
    new Gauge({
      name: `patron_db_pool_${field}`,
      help: `Database pool connections: ${field}.`,
      registers: [registry],
      collect() {
        this.set(poolStats()[field]);
      },
    });
  }
  return { registry, duration, rateLimitRejections };
}

export function registerMetrics(app: PatronApp, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    // Unmatched URLs share one label so a scan of random paths cannot blow up the series count.
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { method: request.method, route, status: String(reply.statusCode) };
    metrics.duration.observe(labels, reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
