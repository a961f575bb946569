import type { Metric, Registry } from 'prom-client';

/**
 * The metric `name` from the registry, created by `create` (which registers it) the first time: background workers
 * built more than once on the app's registry (tests, a restarted dispatcher) share one series instead of failing
 * on a duplicate registration.
 */
export function registeredMetric<T extends Metric>(registry: Registry, name: string, create: (name: string) => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? create(name);
}
