import { Counter, Histogram, type CounterConfiguration, type HistogramConfiguration, type Registry } from 'prom-client';

/*
 * Background workers are built more than once on the app's registry (tests, a restarted dispatcher): the second
 * build takes the series the first registered instead of failing on a duplicate registration.
 */

/** The counter `config.name` of the registry, registered there by the first caller. */
export function registeredCounter<L extends string>(
  registry: Registry,
  config: Omit<CounterConfiguration<L>, 'registers'>,
): Counter<L> {
  return (
    (registry.getSingleMetric(config.name) as Counter<L> | undefined) ??
    new Counter({ ...config, registers: [registry] })
  );
}

/** The histogram `config.name` of the registry, registered there by the first caller. */
export function registeredHistogram<L extends string>(
  registry: Registry,
  config: Omit<HistogramConfiguration<L>, 'registers'>,
): Histogram<L> {
  return (
    (registry.getSingleMetric(config.name) as Histogram<L> | undefined) ??
    new Histogram({ ...config, registers: [registry] })
  );
}
