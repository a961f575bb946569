/**
 * Bad input (issue 8, item 1): a property-based fuzzer driven by the served /openapi.json.
 *
 * Every operation of the document gets generated requests: valid ones (realistic references to seeded rows of
 * the caller's organization, values at their documented bounds) and ones with exactly one thing wrong (auth,
 * permission, media type, size, JSON encoding, a body field against its schema, raw numbers beyond 2^53, deep
 * nesting, path ids of another organization or none, query parameters, filter documents, cursors, includes,
 * Idempotency-Key). Each answer must be a documented status of the operation (and the status the request must get,
 * when one follows from the order of checks), a 2xx must match the documented response schema, an error must be
 * the D3 envelope, and nothing may be a 5xx.
 *
 * Phase 1 sends only requests that must be refused and proves they changed nothing (every table's row count and
 * content hash before and after each operation's share). Phase 2 mixes valid, boundary and invalid requests.
 *
 *   npm run test:hardening                       # 10,000 requests, fixed seed
 *   FUZZ_RUNS=2000 FUZZ_SEED=7 npm run test:hardening
 *   FUZZ_SEED=random npm run test:hardening      # explore; the seed is printed
 *   FUZZ_ONLY=listOrders,importOrders npm run test:hardening
 *
 * A failure prints the operation, the request (method, URL, headers, payload), the seed and the run index.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, createUser, findSession, findUserByEmail } from '../../src/auth/accounts.js';
import { createKey, revokeKey } from '../../src/auth/keys.js';
import { MemoryRateLimiter } from '../../src/ratelimit/index.js';
import type { BucketSpec, ChargeDecision, RateLimiter } from '../../src/ratelimit/types.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { filterFieldsOf } from './fuzz/filters.js';
import { judge } from './fuzz/oracle.js';
import { readOperations, resolver, type Operation } from './fuzz/openapi.js';
import { readPool, type OrganizationPool } from './fuzz/pools.js';
import {
  describeRequest,
  includesOf,
  LIVE_CSRF_TOKEN,
  LIVE_SESSION_COOKIE,
  requestArbitrary,
  type FuzzContext,
  type HarvestedCursor,
  type Keys,
  type Mode,
  type PlannedRequest,
} from './fuzz/requests.js';
import { seedOrganization } from './fuzz/seed.js';
import { changedTables, snapshotTables } from './fuzz/snapshot.js';
import { RequestValidators } from './fuzz/validators.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
/** Fixed by default so CI replays the same requests; FUZZ_SEED=random explores (the seed is printed either way). */
const SEED = process.env.FUZZ_SEED === 'random' ? Date.now() % 2 ** 31 : Number(process.env.FUZZ_SEED ?? 20_260_801);
const ONLY = process.env.FUZZ_ONLY?.split(',').filter(Boolean);
/** Share of the runs spent in phase 1 (invalid requests only, with the table comparison). */
const INVALID_SHARE = 0.3;

/**
 * Operations whose failures are reported but not asserted, because another change is rebuilding them right now.
 * Each entry is an operationId; empty it as those land.
 */
const OPERATIONS_UNDER_CONSTRUCTION: readonly string[] = [];

/** The rate limit is not under test here: every bucket is made 1,000 times larger so requests reach validation. */
class RoomyLimiter implements RateLimiter {
  constructor(private readonly inner: RateLimiter) {}
  charge(buckets: readonly BucketSpec[], cost: number): Promise<ChargeDecision> {
    return this.inner.charge(
      buckets.map((bucket) => ({
        ...bucket,
        capacity: bucket.capacity * 1000,
        refillPerSecond: bucket.refillPerSecond * 1000,
      })),
      cost,
    );
  }
  close() {
    return this.inner.close();
  }
}

interface Failure {
  operation: string;
  problem: string;
  request: string;
  seed: number;
  run: number;
}

let t: TestApp;
let operations: Operation[];
let resolve: ReturnType<typeof resolver>;
let keys: Keys;
let own: { organizationId: string };
let foreign: { organizationId: string };
let webhookEvents: string[];
let document: any;
let validators: RequestValidators;
const statuses = new Map<string, Map<number, number>>();
const labels = new Map<string, number>();
let sent = 0;

beforeAll(async () => {
  t = await startTestApp({
    limiter: new RoomyLimiter(new MemoryRateLimiter()),
    // Webhook URLs stay on loopback (a refused port): no request of the fuzzer leaves the machine.
    config: { webhookAllowPrivateHosts: true, allowHttpWebhooks: true, webhookTimeoutMs: 300 },
  });
  const db = t.testDatabase.database.db;
  const a = await t.tenant({ name: 'Fuzzed' });
  const b = await t.tenant({ name: 'Other' });
  own = { organizationId: a.organization.id };
  foreign = { organizationId: b.organization.id };
  await seedOrganization(t, a.key, a.organization.id, 'A');
  await seedOrganization(t, b.key, b.organization.id, 'B');
  // The dashboard's records (docs/api.md#dashboard-sessions): users and keys to change in each organization (never the
  // fuzzer's own), and the owner whose session calls the session-only operations.
  for (const [organization, tag] of [
    [a.organization, 'a'],
    [b.organization, 'b'],
  ] as const) {
    for (const n of [1, 2, 3]) {
      await createUser(db, { organizationId: organization.id, email: `spare-${tag}${n}@example.com`, role: 'viewer' });
      await createKey(db, { organizationId: organization.id, permissions: ['products:read'], name: `spare-${n}` });
    }
  }
  await createUser(db, { organizationId: a.organization.id, email: FUZZ_OWNER, role: 'owner' });
  await liveSession();
  const revoked = await createKey(db, { organizationId: a.organization.id, permissions: ['all'] });
  await revokeKey(db, revoked.record.id);
  keys = {
    all: a.key,
    test: await t.key(a.testOrganizationId),
    revoked: revoked.key,
    limited: await Promise.all(
      [['products:read'], ['orders:read', 'orders:write'], ['loyalty:read', 'webhooks:read'], ['webhooks:write']].map(
        async (permissions) => ({
          key: await t.key(a.organization.id, permissions),
          permissions,
        }),
      ),
    ),
  };
  document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  operations = readOperations(document).filter((operation) => !ONLY || ONLY.includes(operation.id));
  resolve = resolver(document);
  validators = new RequestValidators(document);
  webhookEvents = (await t.request({ url: '/v1/webhook-events', key: a.key }))
    .json()
    .data.map((event: { name: string }) => event.name);
}, 120_000);

afterAll(async () => {
  report();
  await t?.close();
});

describe('bad input: the OpenAPI-driven fuzzer', () => {
  it('refuses every invalid request with a documented error, and the refusals change nothing', async () => {
    // Every table is compared before and after each operation's share of this phase (see fuzz()).
    expectNoFailures(await fuzz('invalid', Math.round(RUNS * INVALID_SHARE), operations));
  });

  it('answers valid, boundary and invalid requests within the documented statuses and schemas, never 5xx', async () => {
    // Reads first and deletes last, so the writes in between still find seeded rows.
    const order = { GET: 0, POST: 1, PUT: 1, PATCH: 1, DELETE: 2 };
    const ordered = [...operations].sort((x, y) => order[x.method] - order[y.method]);
    const failures = await fuzz('mixed', RUNS - Math.round(RUNS * INVALID_SHARE), ordered);
    expectNoFailures(failures);
  });
});

async function fuzz(mode: Mode, runs: number, list: Operation[]): Promise<Failure[]> {
  const failures: Failure[] = [];
  const seen = new Set<string>();
  const perOperation = Math.max(1, Math.ceil(runs / list.length));
  for (const [index, operation] of list.entries()) {
    if (process.env.FUZZ_VERBOSE) console.log(`${mode} ${operation.id} (${sent} sent)`);
    const ctx = await contextFor(operation);
    const seed = (SEED + index * 7919 + (mode === 'invalid' ? 0 : 104_729)) | 0;
    let run = 0;
    const property = fc.asyncProperty(requestArbitrary(operation, ctx, mode), async (request) => {
      run++;
      const problem = await send(operation, request, mode);
      if (!problem) return;
      const signature = `${operation.id} ${request.label} ${problem.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>').slice(0, 80)}`;
      if (seen.has(signature)) return;
      seen.add(signature);
      failures.push({ operation: operation.id, problem, request: describeRequest(request), seed, run });
    });
    // Only refusals are sent in the invalid phase: every table (row count and content hash) must be as it was,
    // compared per operation so a write names its culprit.
    const before = mode === 'invalid' ? await snapshotTables(t.testDatabase.database.db) : undefined;
    const details = await fc.check(property, { numRuns: perOperation, seed, endOnFailure: true });
    if (details.failed) {
      failures.push({
        operation: operation.id,
        problem: `the generator itself failed: ${String(details.errorInstance)}`,
        request: '',
        seed,
        run,
      });
    }
    const changed = before ? changedTables(before, await snapshotTables(t.testDatabase.database.db)) : [];
    if (changed.length)
      failures.push({
        operation: operation.id,
        problem: `refused requests changed tables: ${changed.join('; ')}`,
        request: '',
        seed,
        run,
      });
  }
  return failures;
}

/** Statuses a request gets before its Idempotency-Key is claimed (D16): a repeat runs again rather than replaying. */
const UNCLAIMED = [400, 401, 403, 413, 415, 429];

const FUZZ_OWNER = 'fuzz-owner@example.com';
let live: { token: string; csrfToken: string } | undefined;

/**
 * The fuzzer owner's session, made again when an earlier request ended it (DELETE /session): only then does this
 * write, which no refusal can cause, so the invalid phase's table comparison holds.
 */
async function liveSession(): Promise<{ token: string; csrfToken: string }> {
  const db = t.testDatabase.database.db;
  if (live && (await findSession(db, live.token))) return live;
  const owner =
    (await findUserByEmail(db, FUZZ_OWNER)) ??
    (await createUser(db, { organizationId: own.organizationId, email: FUZZ_OWNER, role: 'owner' }));
  const { token, session } = await createSession(db, owner);
  return (live = { token, csrfToken: session.csrf_token });
}

/** The request's headers with the live session in place of its stand-ins. */
async function withLiveSession(headers: Record<string, string>): Promise<Record<string, string>> {
  if (headers.cookie !== LIVE_SESSION_COOKIE && headers['x-csrf-token'] !== LIVE_CSRF_TOKEN) return headers;
  const session = await liveSession();
  return {
    ...headers,
    ...(headers.cookie === LIVE_SESSION_COOKIE ? { cookie: `patron_session=${session.token}` } : {}),
    ...(headers['x-csrf-token'] === LIVE_CSRF_TOKEN ? { 'x-csrf-token': session.csrfToken } : {}),
  };
}

async function send(operation: Operation, request: PlannedRequest, mode: Mode): Promise<string | null> {
  const headers = await withLiveSession(request.headers);
  const inject = () =>
    t.app.inject({
      method: request.method,
      url: request.url,
      headers,
      ...(request.payload !== undefined ? { payload: request.payload } : {}),
    });
  const response = await inject();
  sent++;
  if (request.repeat) {
    const again = await inject();
    sent++;
    const replayed = again.headers['idempotent-replayed'] === 'true';
    if (replayed && (again.statusCode !== response.statusCode || again.body !== response.body)) {
      return `the repeat with the same Idempotency-Key was not the same answer: ${response.statusCode} then ${again.statusCode} ${again.body.slice(0, 200)}`;
    }
    if (!replayed && !(UNCLAIMED.includes(response.statusCode) && again.statusCode === response.statusCode)) {
      return `the repeat with the same Idempotency-Key was not replayed: ${response.statusCode} then ${again.statusCode} ${again.body.slice(0, 200)}`;
    }
  }
  if (process.env.FUZZ_VERBOSE === '2')
    console.log(`${describeRequest(request)}\n  → ${response.statusCode} ${response.body.slice(0, 300)}`);
  const byStatus = statuses.get(operation.id) ?? new Map<number, number>();
  byStatus.set(response.statusCode, (byStatus.get(response.statusCode) ?? 0) + 1);
  statuses.set(operation.id, byStatus);
  const labelKey = request.label.replace(/[:=].*$/, '');
  labels.set(labelKey, (labels.get(labelKey) ?? 0) + 1);
  return judge(operation, request, response, mode);
}

/** The values the operation's requests draw on, read fresh: earlier operations may have created or deleted rows. */
async function contextFor(operation: Operation): Promise<FuzzContext> {
  const db = t.testDatabase.database.db;
  const [ownPool, foreignPool] = await Promise.all([
    readPool(db, own.organizationId),
    readPool(db, foreign.organizationId),
  ]);
  const itemSchema = resolve(operation.queryParams.some((p) => p.name === 'cursor') ? listItemSchema(operation) : {});
  const ctx: FuzzContext = {
    resolve,
    own: ownPool,
    foreign: foreignPool,
    webhookEvents,
    keys,
    validators,
    cursors: [],
    filterFields: filterFieldsOf(itemSchema, resolve),
  };
  ctx.cursors = await harvestCursors(operation, ownPool);
  return ctx;
}

function listItemSchema(operation: Operation): Record<string, any> {
  const path = document.paths[operation.path][operation.method.toLowerCase()];
  return path.responses['200'].content['application/json'].schema.properties.data.items;
}

/** Real nextCursors of the list (pages of one row), under its default sort and under each other sort. */
async function harvestCursors(operation: Operation, pool: OrganizationPool): Promise<HarvestedCursor[]> {
  if (operation.method !== 'GET' || !operation.queryParams.some((p) => p.name === 'cursor')) return [];
  const path = operation.path.replace(
    /\{(\w+)\}/g,
    () => pool.ids.webhooks[0] ?? '00000000-0000-4000-8000-000000000000',
  );
  const sortParameter = operation.queryParams.find((p) => p.name === 'sort');
  const sorts: (string | undefined)[] = [
    undefined,
    ...((sortParameter?.schema.anyOf ?? []).flatMap((branch: any) => branch.enum ?? []) as string[]).slice(0, 4),
  ];
  const include = includesOf(operation.queryParams.find((p) => p.name === 'include'))[0];
  const cursors: HarvestedCursor[] = [];
  for (const sort of sorts) {
    const query = new URLSearchParams({ limit: '1', ...(sort ? { sort } : {}), ...(include ? { include } : {}) });
    const response = await t.request({ url: `/v1${path}?${query}`, key: keys.all });
    const next = response.statusCode === 200 ? response.json().nextCursor : null;
    if (typeof next === 'string') cursors.push({ cursor: next, sort });
  }
  return cursors;
}

function expectNoFailures(failures: Failure[]): void {
  const asserted = failures.filter((failure) => !OPERATIONS_UNDER_CONSTRUCTION.includes(failure.operation));
  const reported = failures.filter((failure) => OPERATIONS_UNDER_CONSTRUCTION.includes(failure.operation));
  for (const failure of reported)
    console.warn(`[under construction, not asserted] ${failure.operation}: ${failure.problem}\n  ${failure.request}`);
  const message = asserted
    .map(
      (failure) =>
        `${failure.operation}: ${failure.problem}\n  request: ${failure.request}\n  seed: ${failure.seed}, run: ${failure.run} (FUZZ_SEED=${SEED} FUZZ_ONLY=${failure.operation})`,
    )
    .join('\n\n');
  expect(asserted.length, `${asserted.length} failure(s), FUZZ_SEED=${SEED}:\n\n${message}`).toBe(0);
}

function report(): void {
  const lines = [`fuzzed ${sent} requests over ${statuses.size} operations (FUZZ_SEED=${SEED}, FUZZ_RUNS=${RUNS})`];
  for (const [operation, counts] of [...statuses].sort()) {
    lines.push(
      `  ${operation.padEnd(34)} ${[...counts]
        .sort(([a], [b]) => a - b)
        .map(([status, n]) => `${status}×${n}`)
        .join(' ')}`,
    );
  }
  lines.push(
    `  by kind: ${[...labels]
      .sort(([, a], [, b]) => b - a)
      .map(([label, n]) => `${label} ${n}`)
      .join(', ')}`,
  );
  console.log(lines.join('\n'));
}
