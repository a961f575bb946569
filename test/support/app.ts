import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.js';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { createKey } from '../../src/auth/keys.js';
import { createRuntime, resources as allResources, type Runtime } from '../../src/compose.js';
import { loadConfig, type Config } from '../../src/config/index.js';
import { buildApp } from '../../src/http/app.js';
import type { PatronApp, ResourceModule } from '../../src/core/types.js';
import { MemoryRateLimiter, RedisRateLimiter } from '../../src/ratelimit/index.js';
import type { RateLimiter } from '../../src/ratelimit/types.js';
import {
  createOrganization,
  findTestOrganizationId,
  type NewOrganization,
} from '../../src/resources/organization/service.js';
import type { Organization } from '../../src/records/organization.js';
import { createTestDatabase, redisUrl, type TestDatabase } from './database.js';
import { createWebhookDeliveriesResource } from '../../src/resources/webhook-deliveries/index.js';
import type { WebhookReceiver } from './webhooks.js';

export interface TestApp {
  app: PatronApp;
  runtime: Runtime;
  testDatabase: TestDatabase;
  limiter: RateLimiter;
  config: Config;
  /** Creates an organization and a key for it (every permission unless given). */
  tenant(options?: Partial<NewOrganization> & { permissions?: string[] }): Promise<Tenant>;
  key(organizationId: string, permissions?: string[]): Promise<string>;
  request(options: RequestOptions): Promise<LightMyRequestResponse & { json<T = any>(): T }>;
  close(): Promise<void>;
}

export interface Tenant {
  organization: Organization;
  key: string;
  /** The organization's test twin (docs/api.md#test-mode): `t.key(testOrganizationId)` makes a test key. */
  testOrganizationId: string;
}

export interface RequestOptions {
  method?: InjectOptions['method'];
  url: string;
  key?: string | undefined;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface TestAppOptions {
  /** Defaults to every resource of the composition root. */
  resources?: readonly ResourceModule[];
  /** Defaults to Redis when REDIS_URL is set (a private key prefix), else memory. */
  limiter?: RateLimiter;
  /** Overrides of the test configuration, e.g. the webhook URL policy flags. */
  config?: Partial<Config>;
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const testDatabase = await createTestDatabase();
  const config: Config = {
    ...loadConfig({}),
    logLevel: 'silent',
    secretKey: randomBytes(32).toString('base64'),
    // The server's own address, as the process would have it (an export's COPY opens a connection of its own).
    databaseUrl: testDatabase.url,
    ...options.config,
  };
  let redis: Redis | undefined;
  let limiter = options.limiter;
  if (!limiter) {
    if (redisUrl) {
      redis = new Redis(redisUrl);
      limiter = new RedisRateLimiter(redis, { keyPrefix: `patron:test:${randomBytes(4).toString('hex')}:` });
    } else {
      limiter = new MemoryRateLimiter();
    }
  }
  const runtime = options.resources
    ? await customRuntime(config, testDatabase, limiter, options.resources)
    : await createRuntime(config, { database: testDatabase.database, limiter, logger: false });
  const db = testDatabase.database.db;

  const key = async (organizationId: string, permissions: string[] = ['all']) =>
    (await createKey(db, { organizationId, permissions })).key;

  return {
    app: runtime.app,
    runtime,
    testDatabase,
    limiter,
    config,
    key,
    tenant: (options) => createTenant(db, options),
    request: async ({ method = 'GET', url, key: apiKey, body, headers = {} }) => {
      const response = await runtime.app.inject({
        method,
        url,
        headers: {
          ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
          ...(body !== undefined && typeof body !== 'string' && !Buffer.isBuffer(body)
            ? { 'content-type': 'application/json' }
            : {}),
          ...headers,
        },
        ...(body !== undefined
          ? { payload: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body) }
          : {}),
      });
      return response as LightMyRequestResponse & { json<T = any>(): T };
    },
    close: async () => {
      await runtime.close();
      await limiter.close();
      redis?.disconnect();
      await testDatabase.drop();
    },
  };
}

/** An app with a chosen set of resource modules (tests that plug in their own routes). */
async function customRuntime(
  config: Config,
  testDatabase: TestDatabase,
  limiter: RateLimiter,
  resources: readonly ResourceModule[],
): Promise<Runtime> {
  const built = await buildApp({
    config,
    database: testDatabase.database,
    limiter,
    resources,
    logger: false,
    // A version transform whose output does not fit the route's schema fails the test that meets it.
    versions: { checkResponses: true },
  });
  return { ...built, database: testDatabase.database, limiter, close: () => built.app.close() };
}

export { allResources };

export interface NewTenant extends Partial<NewOrganization> {
  /** The key's permissions; every permission when omitted. */
  permissions?: string[];
}

/**
 * Creates an organization and a key for it on any database: what TestApp.tenant does, for the suites that run the
 * server as a process or build their own app. The key's record id is there for tests that revoke it or find it in
 * logs.
 */
export async function createTenant(
  db: Kysely<DB>,
  { permissions = ['all'], ...organization }: NewTenant = {},
): Promise<Tenant & { keyId: string }> {
  const created = await createOrganization(db, {
    name: organization.name ?? `Org ${randomBytes(3).toString('hex')}`,
    ...organization,
  });
  const { key, record } = await createKey(db, { organizationId: created.id, permissions });
  const testOrganizationId = await findTestOrganizationId(db, created.id);
  if (!testOrganizationId) throw new Error(`The organization ${created.id} was made without its test twin`);
  return { organization: created, key, keyId: record.id, testOrganizationId };
}

/**
 * Options for startTestApp under which the app reaches a test's webhook receiver: loopback hosts allowed, and the
 * webhook-deliveries resource (test sends, recovery) trusting the receiver's certificate. It lives here, beside the
 * resource list, so that webhooks.ts (which the browser suites load for the certificate alone) does not load every
 * resource.
 */
export function webhookAppOptions(receiver: Pick<WebhookReceiver, 'ca'>, config: Partial<Config> = {}): TestAppOptions {
  return {
    config: { webhookAllowPrivateHosts: true, ...config },
    resources: allResources.map((resource) =>
      resource.name === 'webhook-deliveries' ? createWebhookDeliveriesResource({ ca: receiver.ca }) : resource,
    ),
  };
}
