/**
 * The composition root: the one place that knows every resource and wires it into the platform.
 */
import { Redis } from 'ioredis';
import type { FastifyServerOptions } from 'fastify';
import type { Registry } from 'prom-client';
import { permissionCatalogOf } from './auth/permissions.js';
import type { Config } from './config/index.js';
import type { JobDefinition } from './core/job-definition.js';
import { retentionJob } from './jobs/retention/job.js';
import { migrateToLatest, openDatabase, type Database } from './db/engine.js';
import { buildApp, type AppOptions } from './http/app.js';
import type { Metrics } from './http/metrics.js';
import type { PatronApp, ResourceModule } from './core/types.js';
import { FallbackRateLimiter } from './ratelimit/fallback.js';
import { MemoryRateLimiter, RedisRateLimiter } from './ratelimit/index.js';
import type { RateLimiter } from './ratelimit/types.js';
import { organizationResource } from './resources/organization/index.js';
import { dashboardResource } from './resources/dashboard/index.js';
import { productsResource } from './resources/products/index.js';
import { tagsResource } from './resources/tags/index.js';
import { sitesResource } from './resources/sites/index.js';
import { customersResource } from './resources/customers/index.js';
import { ordersResource } from './resources/orders/index.js';
import { webhooksResource } from './resources/webhooks/index.js';
import { webhookDeliveriesResource } from './resources/webhook-deliveries/index.js';
import { eventsResource } from './resources/events/index.js';
import { loyaltyResources } from './resources/loyalty/index.js';
import { reviewsResource } from './resources/reviews/index.js';
import { quickFiltersResource } from './resources/quick-filters/index.js';
import { emailTemplatesResource } from './resources/email-templates/index.js';
import { wishlistsResource } from './resources/wishlists/index.js';
import { productQuestionsResource } from './resources/product-questions/index.js';
import { exportJobsResource } from './resources/export-jobs/index.js';
import { importJobsResource } from './resources/import-jobs/index.js';
import { reviewSummariesResource } from './resources/review-summaries/index.js';
import { analyticsResource } from './resources/analytics/index.js';
import { mailResource } from './resources/mail/index.js';
import { surveysResource } from './resources/surveys/index.js';
import { auditLogResource } from './resources/audit-log/index.js';
import { testDataResource } from './resources/test-data/index.js';
import type { ResourceModuleWithLists } from './resource-kit/module.js';
import { QUICK_FILTER_RESOURCES } from './records/quick-filter.js';
import { IMPORT_RESOURCES } from './records/import-job.js';
import { DOCUMENTED_EXAMPLES } from './demo/index.js';
import { eventCatalogOf, unsentSpecNames } from './events/catalog.js';
import type { DocumentedExamples, EventCatalog, OperationExample } from './core/types.js';

/** Every resource module but those built from the others' declarations (below). */
const modules: readonly ResourceModuleWithLists[] = [
  organizationResource,
  dashboardResource,
  productsResource,
  tagsResource,
  sitesResource,
  customersResource,
  ordersResource,
  webhooksResource,
  webhookDeliveriesResource,
  eventsResource,
  ...loyaltyResources,
  reviewsResource,
  reviewSummariesResource,
  wishlistsResource,
  productQuestionsResource,
  analyticsResource,
  emailTemplatesResource,
  mailResource,
  surveysResource,
  auditLogResource,
  testDataResource,
];

/**
 * One of the modules' declarations by name, checked against the names the records publish: a name declared twice,
 * or published and declared by no module, stops the start.
 */
function declared<T>(
  what: string,
  names: readonly string[],
  of: (module: ResourceModuleWithLists) => Readonly<Partial<Record<string, T>>> | undefined,
): Record<string, T> {
  const all: Record<string, T> = {};
  for (const module of modules) {
    for (const [name, value] of Object.entries(of(module) ?? {})) {
      if (name in all) throw new Error(`Two modules declare the ${what} "${name}".`);
      all[name] = value as T;
    }
  }
  const missing = names.filter((name) => !(name in all));
  const unpublished = Object.keys(all).filter((name) => !names.includes(name));
  if (missing.length || unpublished.length) {
    throw new Error(
      `The ${what}s declared (${Object.keys(all).join(', ')}) are not those published (${names.join(', ')}).`,
    );
  }
  return all;
}

/** The lists quick filters belong to and export jobs read, each with its record and CSV lines. */
const lists = declared('list', QUICK_FILTER_RESOURCES, (module) => module.lists);
/** The synchronous imports import jobs run. */
const imports = declared('import', IMPORT_RESOURCES, (module) => module.imports);

export const resources: readonly ResourceModule[] = [
  ...modules,
  // The lists quick filters belong to (docs/api.md#quick-filters).
  quickFiltersResource(Object.fromEntries(Object.entries(lists).map(([name, source]) => [name, source.list]))),
  // The lists an export job can read, each with its record and CSV lines (docs/api.md#export-jobs).
  exportJobsResource(lists),
  // The resources an import job can write, each through its synchronous import (docs/api.md#import-jobs).
  importJobsResource(imports),
];

/**
 * Every event an endpoint can subscribe to, from what each module declares it sends and when
 * (docs/api.md#event-catalog): service.md's names in its order, then the others. A name of service.md that no module
 * sends (and the catalog does not mark as not firing yet) stops the start.
 */
export const eventCatalog: EventCatalog = eventCatalogOf(resources.flatMap((resource) => resource.events ?? []));
const unsent = unsentSpecNames(eventCatalog);
if (unsent.length > 0) throw new Error(`No module sends ${unsent.join(', ')} (src/events/catalog.ts).`);

/** The documented examples: the demo's and each module's, by operationId (docs/api.md#documented-examples-and-the-demo-world). */
export const operationExamples: Readonly<Record<string, OperationExample>> = resources.reduce<
  Record<string, OperationExample>
>(
  (all, resource) => {
    for (const [operationId, example] of Object.entries(resource.examples ?? {})) {
      if (operationId in all) throw new Error(`Two examples are declared for ${operationId}.`);
      all[operationId] = example;
    }
    return all;
  },
  { ...DOCUMENTED_EXAMPLES.requests },
);
const documentedExamples: DocumentedExamples = {
  requests: operationExamples,
  responses: DOCUMENTED_EXAMPLES.responses,
};

/** Every permission a key can be granted: service.md's eleven plus those the resources add. */
export const permissionCatalog: readonly string[] = permissionCatalogOf(resources);

/**
 * Every background job: the platform's retention (docs/api.md#retention) and those the resources declare. What
 * `serve` runs and `patron jobs run` can run by hand.
 */
export function scheduledJobs(config: Config, registry?: Registry): JobDefinition[] {
  return [
    retentionJob(config.retention),
    ...resources.flatMap((resource) => resource.jobs?.({ config, registry }) ?? []),
  ];
}

/** The mail sender `serve` runs beside the API (docs/api.md#mail); the CLI reaches it only through this root. */
export { startMailSender, type MailSender } from './resources/mail/index.js';

/** What the operator's CLI does to organizations; the CLI reaches resources only through this root. */
export {
  allOrganizations,
  createOrganization,
  findTestOrganizationId,
  isTimeZone,
  updateOrganizationPlan,
} from './resources/organization/service.js';
export type { Organization } from './records/organization.js';

export interface Runtime {
  app: PatronApp;
  metrics: Metrics;
  database: Database;
  limiter: RateLimiter;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** An already open database (tests); otherwise opened from the config and migrated. */
  database?: Database;
  limiter?: RateLimiter;
  logger?: FastifyServerOptions['logger'];
  /** The version layer's options; `false` leaves it out (only bench/api-versions.ts does, for its floor). */
  versions?: AppOptions['versions'];
}

export async function openMigratedDatabase(config: Config): Promise<Database> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await migrateToLatest(database.db);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

export async function createRuntime(config: Config, options: RuntimeOptions = {}): Promise<Runtime> {
  const database = options.database ?? (await openMigratedDatabase(config));
  let redis: Redis | undefined;
  let limiter = options.limiter;
  if (!limiter) {
    if (config.redisUrl) {
      // Fail fast instead of queueing while Redis is away, so requests fall back to memory at once.
      redis = new Redis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
      redis.on('error', () => {});
      // Connect before serving: with the offline queue off, early requests would otherwise fall back to
      // per-process buckets. Unreachable Redis is not fatal; the fallback limiter covers it.
      await redis.connect().catch(() => {});
    }
    limiter = redis
      ? new FallbackRateLimiter(new RedisRateLimiter(redis), new MemoryRateLimiter(), {
          warn: (object, message) => built.app.log.warn(object, message),
          info: (message) => built.app.log.info(message),
        })
      : new MemoryRateLimiter();
  }
  const built = await buildApp({
    config,
    database,
    limiter,
    resources,
    examples: documentedExamples,
    eventCatalog,
    logger: options.logger,
    ...(options.versions !== undefined ? { versions: options.versions } : {}),
  });
  return {
    ...built,
    database,
    limiter,
    close: async () => {
      await built.app.close();
      await limiter.close();
      redis?.disconnect();
      if (!options.database) await database.close();
    },
  };
}

/** What `patron export --resource` names: every list an export job takes (docs/api.md#export-jobs). */
export { EXPORT_RESOURCES } from './records/export-job.js';
/** What `patron import --resource` names: every resource an import job writes (docs/api.md#import-jobs). */
export { IMPORT_RESOURCES } from './records/import-job.js';
