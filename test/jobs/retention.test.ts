/**
 * Retention (src/jobs/retention, docs/api.md#retention): the job prunes what is past its window and nothing else,
 * one organization at a time, in batches. Rows are made through the API, then made older with SQL: a row's
 * created_at and, for tables whose ids are UUID v7, its id (which carries its creation time) move back together, as
 * if the row had been written that many days ago.
 */
import { sql, type RawBuilder } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduledJobs } from '../../src/compose.js';
import { ConfigError, loadConfig, type RetentionConfig } from '../../src/config/index.js';
import { RETENTION_JOB, retentionJob } from '../../src/jobs/retention/job.js';
import { enqueue } from '../../src/jobs/runner/queue.js';
import { createJobRunner, type JobRunner } from '../../src/jobs/runner/runner.js';
import type { JobDefinition } from '../../src/core/job-definition.js';
import {
  createSession,
  createSignInLink,
  createUser,
  hashToken,
  SESSION_IDLE_HOURS,
  useSignInLink,
} from '../../src/auth/accounts.js';
import { queueMail } from '../../src/resources/mail/index.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { createEndpoint } from '../support/webhooks.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;
const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const DEFAULTS: RetentionConfig = {
  deliveriesDays: 30,
  eventsDays: 7,
  jobsDays: 30,
  mailDays: 30,
  auditDays: 365,
  batchRows: 2,
};

const noop: JobDefinition = { name: 'test.noop', run: async () => ({}) };
const fails: JobDefinition = {
  name: 'test.fails',
  run: async () => {
    throw new Error('meant to fail');
  },
};
const runner = (config: RetentionConfig = DEFAULTS): JobRunner =>
  createJobRunner({ db: db(), jobs: [retentionJob(config), noop, fails], logger: quiet, maxAttempts: 1 });

let runs = 0;
async function prune(tenant: Tenant, config: RetentionConfig = DEFAULTS) {
  const job = await runner(config).runNow(tenant.organization.id, RETENTION_JOB, `test-${++runs}`);
  expect(job.status, String(job.last_error)).toBe('succeeded');
  // The audit log's months are kept for every organization at once (test/resources/audit-log.test.ts): apart here.
  const { auditPartitionsMade, auditPartitionsDropped, ...rows } = job.result as Record<string, number>;
  lastAuditPartitions = { made: auditPartitionsMade!, dropped: auditPartitionsDropped! };
  return rows;
}
let lastAuditPartitions: { made: number; dropped: number } | undefined;

/** A UUID v7 for the time `at` (an SQL expression), random in its other bits, as the application makes them. */
const v7 = (at: RawBuilder<unknown>) =>
  sql`encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing
    substring(int8send(floor(extract(epoch from ${at}) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1), 'hex')::uuid`;

/** Moves events `days` back; the deliveries of each keep referring to it. Returns the new ids, in the given order. */
async function ageEvents(ids: string[], days: number): Promise<string[]> {
  const { rows } = await sql<{ old: string; new: string }>`
    with renamed as materialized (
      select organization_id, id as old, created_at - make_interval(days => ${days}) as at,
        ${v7(sql.raw(`created_at - make_interval(days => ${days})`))} as new
      from events where id = any(${ids}::uuid[])
    ),
    refs as (
      update webhook_deliveries d set event_id = r.new, idempotency_key = r.new::text from renamed r
      where d.organization_id = r.organization_id and d.event_id = r.old
    )
    update events e set id = r.new, created_at = r.at from renamed r
    where e.organization_id = r.organization_id and e.id = r.old
    returning r.old::text as old, r.new::text as new`.execute(db());
  const renamed = new Map(rows.map((row) => [row.old, row.new]));
  return ids.map((id) => renamed.get(id)!);
}

async function ageDeliveries(ids: string[], days: number): Promise<string[]> {
  const { rows } = await sql<{ old: string; new: string }>`
    with renamed as materialized (
      select organization_id, id as old, ${v7(sql.raw(`created_at - make_interval(days => ${days})`))} as new
      from webhook_deliveries where id = any(${ids}::uuid[])
    )
    update webhook_deliveries d set id = r.new, created_at = d.created_at - make_interval(days => ${days}),
      updated_at = d.updated_at - make_interval(days => ${days})
    from renamed r where d.organization_id = r.organization_id and d.id = r.old
    returning r.old::text as old, r.new::text as new`.execute(db());
  const renamed = new Map(rows.map((row) => [row.old, row.new]));
  return ids.map((id) => renamed.get(id)!);
}

async function ageJobs(ids: string[], days: number): Promise<string[]> {
  const { rows } = await sql<{ old: string; new: string }>`
    with renamed as materialized (
      select organization_id, id as old, ${v7(sql.raw(`created_at - make_interval(days => ${days})`))} as new
      from jobs where id = any(${ids}::uuid[])
    )
    update jobs j set id = r.new,
      created_at = j.created_at - make_interval(days => ${days}), run_after = j.run_after - make_interval(days => ${days}),
      started_at = j.started_at - make_interval(days => ${days}), finished_at = j.finished_at - make_interval(days => ${days})
    from renamed r where j.organization_id = r.organization_id and j.id = r.old
    returning r.old::text as old, r.new::text as new`.execute(db());
  const renamed = new Map(rows.map((row) => [row.old, row.new]));
  return ids.map((id) => renamed.get(id)!);
}

const settle = (ids: string[], status: 'succeeded' | 'failed' | 'sending') =>
  sql`update webhook_deliveries set status = ${status}, attempted_at = now(),
    error = ${status === 'failed' ? 'receiver answered HTTP 500' : null}
    where id = any(${ids}::uuid[])`.execute(db());

const TABLES = ['webhook_deliveries', 'events', 'jobs', 'import_job_records', 'idempotency_keys'] as const;
async function counts(tenant: Tenant): Promise<Record<string, number>> {
  const entries = await Promise.all(
    TABLES.map(async (table) => {
      const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.id(table)}
        where organization_id = ${tenant.organization.id}::uuid`.execute(db());
      return [table, Number(rows[0]!.n)] as const;
    }),
  );
  return Object.fromEntries(entries);
}

async function ok(
  tenant: Tenant,
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
  headers?: Record<string, string>,
) {
  const response = await t.request({ method, url, key: tenant.key, body, headers });
  expect(response.statusCode, response.body).toBeLessThan(300);
  return response.json();
}

interface Store {
  endpointId: string;
  /** The site.created deliveries d0..d5 and their events s0..s5, aged as the test below describes. */
  deliveries: string[];
  siteEvents: string[];
  /** product.updated events without deliveries: the first import's (8 days old), the second's (6 days old). */
  oldProductEvents: string[];
  newerProductEvents: string[];
  jobs: { noopOld: string; failedOld: string; noopRecent: string; queuedOld: string };
  productImportJobs: () => Promise<unknown>;
}

/**
 * One organization's bounded tables, aged: delivery records past the window (succeeded, failed) and within it,
 * pending and sending ones past it; events with and without deliveries on both sides of their window; finished,
 * failed and queued jobs; import provenance replaced by a later import or not; an expired idempotency key.
 */
async function store(tenant: Tenant): Promise<Store> {
  const endpoint = await createEndpoint(t, tenant, { url: 'https://93.184.215.14/in', events: ['site.created'] });
  for (let index = 0; index < 6; index++) {
    await ok(tenant, 'POST', '/v1/sites', { name: `S${index}`, domain: `s${index}-${tenant.organization.id}.example` });
  }
  const made = await db()
    .selectFrom('webhook_deliveries')
    .select(['id', 'event_id'])
    .where('organization_id', '=', tenant.organization.id)
    .orderBy('sequence')
    .execute();
  expect(made).toHaveLength(6);
  await settle([made[0]!.id, made[4]!.id, made[5]!.id], 'succeeded');
  await settle([made[1]!.id], 'failed');
  await settle([made[3]!.id], 'sending');
  // d0 succeeded, d1 failed, d2 pending, d3 sending: 31 days old, with their events. d4 succeeded and its event: 29
  // days. d5 succeeded and its event: now.
  const deliveries = [
    ...(await ageDeliveries(
      made.slice(0, 4).map((row) => row.id),
      31,
    )),
    ...(await ageDeliveries([made[4]!.id], 29)),
    made[5]!.id,
  ];
  const siteEvents = [
    ...(await ageEvents(
      made.slice(0, 4).map((row) => row.event_id!),
      31,
    )),
    ...(await ageEvents([made[4]!.event_id!], 29)),
    made[5]!.event_id!,
  ];

  const productEvents = async () =>
    (
      await db()
        .selectFrom('events')
        .select('id')
        .where('organization_id', '=', tenant.organization.id)
        .where('name', '=', 'product.updated')
        .execute()
    ).map((row) => row.id);
  const productRows = (slugs: string[], edition = '') => ({
    data: slugs.map((slug) => ({ slug, title: `${slug.toUpperCase()}${edition}` })),
  });
  await ok(tenant, 'POST', '/v1/products/import', productRows(['p1', 'p2', 'p3']));
  const firstImportEvents = await productEvents();
  await sql`update import_job_records set created_at = created_at - interval '31 days'
    where organization_id = ${tenant.organization.id}::uuid`.execute(db());
  // Rows that change something: a row that changes nothing leaves no provenance (docs/api.md#writes-that-change-nothing).
  await ok(tenant, 'POST', '/v1/products/import', productRows(['p1', 'p2'], ' (2nd edition)'));
  const secondImportEvents = (await productEvents()).filter((id) => !firstImportEvents.includes(id));
  const oldProductEvents = await ageEvents(firstImportEvents, 8);
  const newerProductEvents = await ageEvents(secondImportEvents, 6);

  const jobs = runner();
  const organizationId = tenant.organization.id;
  const succeeded = await jobs.runNow(organizationId, 'test.noop', 'old');
  const failed = await jobs.runNow(organizationId, 'test.fails', 'old');
  const recent = await jobs.runNow(organizationId, 'test.noop', 'recent');
  expect([succeeded.status, failed.status, recent.status]).toEqual(['succeeded', 'failed', 'succeeded']);
  const queued = await enqueue(db(), {
    organizationId,
    name: 'test.noop',
    runKey: 'queued',
    now: new Date(Date.now() + 3_600_000),
  });
  const [noopOld, failedOld, queuedOld] = await ageJobs([succeeded.id, failed.id, queued.id], 31);
  const [noopRecent] = await ageJobs([recent.id], 29);

  await ok(
    tenant,
    'POST',
    '/v1/webhooks',
    { data: { url: 'https://93.184.215.14/a', events: ['review.created'] } },
    {
      'idempotency-key': 'expired',
    },
  );
  await ok(
    tenant,
    'POST',
    '/v1/webhooks',
    { data: { url: 'https://93.184.215.14/b', events: ['review.created'] } },
    {
      'idempotency-key': 'current',
    },
  );
  await sql`update idempotency_keys set expires_at = now() - interval '1 minute'
    where organization_id = ${organizationId}::uuid and key = 'expired'`.execute(db());

  return {
    endpointId: endpoint.id,
    deliveries,
    siteEvents,
    oldProductEvents,
    newerProductEvents,
    jobs: { noopOld: noopOld!, failedOld: failedOld!, noopRecent: noopRecent!, queuedOld: queuedOld! },
    productImportJobs: async () =>
      (await ok(tenant, 'GET', '/v1/products?sort=title&include=importJob')).data.map((product: any) => ({
        slug: product.slug,
        importJob: product.importJob,
      })),
  };
}

const ids = async (table: 'events' | 'webhook_deliveries' | 'jobs', tenant: Tenant) =>
  (await db().selectFrom(table).select('id').where('organization_id', '=', tenant.organization.id).execute()).map(
    (row) => row.id,
  );

describe('the retention job', () => {
  let tenant: Tenant;
  let other: Tenant;
  let mine: Store;
  let theirs: Store;
  let importJobsBefore: unknown;
  let otherBefore: Record<string, number>;
  let result: Record<string, number>;

  beforeAll(async () => {
    tenant = await t.tenant();
    other = await t.tenant();
    mine = await store(tenant);
    theirs = await store(other);
    importJobsBefore = await mine.productImportJobs();
    otherBefore = await counts(other);
    result = await prune(tenant);
  });

  it('deletes exactly the rows past their windows, and reports how many per table', () => {
    expect(result).toEqual({
      deliveries: 2,
      events: 5,
      jobs: 2,
      importJobRecords: 2,
      idempotencyKeys: 1,
      exportJobs: 0,
      mail: 0,
      sessions: 0,
      signInLinks: 0,
    });
  });

  it('prunes delivery records past RETENTION_DELIVERIES_DAYS once their outcome is known; pending and sending ones stay', async () => {
    const [d0, d1, d2, d3, d4, d5] = mine.deliveries;
    expect(new Set(await ids('webhook_deliveries', tenant))).toEqual(new Set([d2, d3, d4, d5]));
    const log = await ok(tenant, 'GET', `/v1/webhooks/${mine.endpointId}/events?limit=10`);
    expect(log.data.map((delivery: any) => delivery.id).sort()).toEqual([d2, d3, d4, d5].sort());
    expect(log.data.map((delivery: any) => delivery.id)).not.toContain(d0);
    expect(log.data.map((delivery: any) => delivery.id)).not.toContain(d1);
    // A kept record's payload is still composed from its event.
    const kept = log.data.find((delivery: any) => delivery.id === d4);
    expect(kept.payload).toMatchObject({ event: 'site.created', data: { name: 'S4' } });
  });

  it('prunes events past RETENTION_EVENTS_DAYS that no delivery record refers to, and keeps those one does', async () => {
    const [s0, s1, s2, s3, s4, s5] = mine.siteEvents;
    const left = new Set(await ids('events', tenant));
    // s0, s1: their records were pruned in the same run. s2 (pending), s3 (sending), s4 (a record within its
    // window) and s5 stay.
    for (const id of [s0, s1, ...mine.oldProductEvents]) expect(left.has(id!), id).toBe(false);
    for (const id of [s2, s3, s4, s5, ...mine.newerProductEvents]) expect(left.has(id!), id).toBe(true);
  });

  it('prunes finished jobs past RETENTION_JOBS_DAYS; queued ones and recent ones stay', async () => {
    const left = new Set(await ids('jobs', tenant));
    expect(left.has(mine.jobs.noopOld)).toBe(false);
    expect(left.has(mine.jobs.failedOld)).toBe(false);
    expect(left.has(mine.jobs.noopRecent)).toBe(true);
    expect(left.has(mine.jobs.queuedOld)).toBe(true);
  });

  it("prunes import provenance that a later import replaced; each record's latest import stays, so include=importJob answers the same", async () => {
    expect(await mine.productImportJobs()).toEqual(importJobsBefore);
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from import_job_records
      where organization_id = ${tenant.organization.id}::uuid`.execute(db());
    expect(Number(rows[0]!.n)).toBe(3);
  });

  it('prunes expired idempotency keys; a current one still replays', async () => {
    const keys = await db()
      .selectFrom('idempotency_keys')
      .select('key')
      .where('organization_id', '=', tenant.organization.id)
      .execute();
    expect(keys.map((row) => row.key)).toEqual(['current']);
    const replay = await t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key: tenant.key,
      body: { data: { url: 'https://93.184.215.14/b', events: ['review.created'] } },
      headers: { 'idempotency-key': 'current' },
    });
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it("leaves another organization's rows alone", async () => {
    expect(await counts(other)).toEqual(otherBefore);
  });

  it("makes the audit log's months ahead and reports the months made and dropped", async () => {
    expect(lastAuditPartitions).toEqual({ made: expect.any(Number), dropped: expect.any(Number) });
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_inherits where inhparent = 'audit_log'::regclass`.execute(db());
    expect(rows[0]!.n).toBeGreaterThanOrEqual(4);
  });

  it('finds nothing more to prune when run again', async () => {
    expect(await prune(tenant)).toEqual({
      deliveries: 0,
      events: 0,
      jobs: 0,
      importJobRecords: 0,
      idempotencyKeys: 0,
      exportJobs: 0,
      mail: 0,
      sessions: 0,
      signInLinks: 0,
    });
  });

  it('honours the configured windows', async () => {
    // Windows longer than every aged row: nothing of the other organization goes.
    const long = loadConfig({
      RETENTION_DELIVERIES_DAYS: '40',
      RETENTION_EVENTS_DAYS: '40',
      RETENTION_JOBS_DAYS: '40',
    }).retention;
    expect(await prune(other, long)).toEqual({
      deliveries: 0,
      events: 0,
      jobs: 0,
      importJobRecords: 0,
      idempotencyKeys: 1,
      exportJobs: 0,
      mail: 0,
      sessions: 0,
      signInLinks: 0,
    });
    // Shorter ones: the 29-day-old record and job go too, and then every event without a record past 5 days.
    const short = loadConfig({
      RETENTION_DELIVERIES_DAYS: '20',
      RETENTION_EVENTS_DAYS: '5',
      RETENTION_JOBS_DAYS: '20',
      RETENTION_BATCH_ROWS: '100',
    }).retention;
    expect(await prune(other, short)).toEqual({
      deliveries: 3,
      events: 3 + 3 + 2,
      jobs: 3,
      importJobRecords: 2,
      idempotencyKeys: 0,
      exportJobs: 0,
      mail: 0,
      sessions: 0,
      signInLinks: 0,
    });
    const [, , d2, d3, , d5] = theirs.deliveries;
    expect(new Set(await ids('webhook_deliveries', other))).toEqual(new Set([d2, d3, d5]));
    const jobsLeft = new Set(await ids('jobs', other));
    expect(jobsLeft.has(theirs.jobs.queuedOld)).toBe(true);
    for (const id of [theirs.jobs.noopOld, theirs.jobs.failedOld, theirs.jobs.noopRecent]) {
      expect(jobsLeft.has(id)).toBe(false);
    }
  });

  it('deletes every prunable row once when two runs go at once', async () => {
    const third = await t.tenant();
    const webhook = await createEndpoint(t, third, { url: 'https://93.184.215.14/c', events: ['site.created'] });
    await sql`insert into webhook_deliveries
        (organization_id, id, webhook_id, sequence, event_id, event_name, idempotency_key, url, payload, status, created_at)
      select ${third.organization.id}::uuid, ${v7(sql.raw(`now() - interval '40 days' + i * interval '1 ms'`))},
        ${webhook.id}::uuid, i, null, 'webhook.test', 'k' || i, 'https://93.184.215.14/c', '{}', 'succeeded',
        now() - interval '40 days' + i * interval '1 ms'
      from generate_series(1, 200) i`.execute(db());
    const config = { ...DEFAULTS, batchRows: 7 };
    const [first, second] = await Promise.all([prune(third, config), prune(third, config)]);
    expect(first.deliveries! + second.deliveries!).toBe(200);
    expect(await ids('webhook_deliveries', third)).toEqual([]);
  });
});

describe('retention of mail, dashboard sessions and sign-in links', () => {
  const statusOf = async (tenant: Tenant, url: string) => (await t.request({ url, key: tenant.key })).statusCode;

  it('prunes settled mail, body and all, past RETENTION_MAIL_DAYS; queued mail and recent mail stay', async () => {
    const tenant = await t.tenant();
    const queue = (n: number) =>
      db()
        .transaction()
        .execute((trx) =>
          queueMail(trx, {
            organizationId: tenant.organization.id,
            kind: 'rewardIssued',
            recipient: `member${n}@example.com`,
            subject: `Reward ${n}`,
            html: `<p>${n}</p>`,
            text: `${n}`,
          }),
        );
    const [sentOld, loggedOld, failedOld, queuedOld, sentRecent] = await Promise.all([1, 2, 3, 4, 5].map(queue));
    const settle = (id: string, status: string) =>
      sql`update mail set status = ${status}, sent_at = case when ${status} = 'sent' then now() end
        where organization_id = ${tenant.organization.id}::uuid and id = ${id}::uuid`.execute(db());
    await settle(sentOld!, 'sent');
    await settle(loggedOld!, 'logged');
    await settle(failedOld!, 'failed');
    await settle(sentRecent!, 'sent');
    const [sent, logged, failed, queued] = await ageMail(tenant, [sentOld!, loggedOld!, failedOld!, queuedOld!], 31);
    const [recent] = await ageMail(tenant, [sentRecent!], 29);

    expect(await prune(tenant)).toMatchObject({ mail: 3 });
    const left = await db()
      .selectFrom('mail')
      .select('id')
      .where('organization_id', '=', tenant.organization.id)
      .execute();
    expect(new Set(left.map((row) => row.id))).toEqual(new Set([queued, recent]));
    for (const id of [sent, logged, failed]) expect(await statusOf(tenant, `/v1/mail-log/${id}`)).toBe(404);
    expect(await statusOf(tenant, `/v1/mail-log/${recent}`)).toBe(200);
    expect(await prune(tenant)).toMatchObject({ mail: 0 });
  });

  it('prunes dashboard sessions past their 7-day limit or idle 12 hours; a live session still signs in', async () => {
    const tenant = await t.tenant();
    const user = await createUser(db(), {
      organizationId: tenant.organization.id,
      email: `owner-${tenant.organization.id}@example.com`,
      role: 'owner',
    });
    const [expired, idle, live] = [
      await createSession(db(), user),
      await createSession(db(), user),
      await createSession(db(), user),
    ];
    await sql`update sessions set expires_at = now() - interval '1 minute' where id = ${expired.session.id}::uuid`.execute(
      db(),
    );
    await sql`update sessions set last_used_at = now() - make_interval(hours => ${SESSION_IDLE_HOURS}) - interval '1 minute'
      where id = ${idle.session.id}::uuid`.execute(db());

    expect(await prune(tenant)).toMatchObject({ sessions: 2 });
    const left = await db()
      .selectFrom('sessions')
      .select('id')
      .where('organization_id', '=', tenant.organization.id)
      .execute();
    expect(left.map((row) => row.id)).toEqual([live.session.id]);
    const me = await t.request({ url: '/v1/session', headers: { cookie: `patron_session=${live.token}` } });
    expect(me.statusCode, me.body).toBe(200);
    expect(await prune(tenant)).toMatchObject({ sessions: 0 });
  });

  it('prunes used and expired sign-in links; a live one still signs in', async () => {
    const tenant = await t.tenant();
    const user = await createUser(db(), {
      organizationId: tenant.organization.id,
      email: `linked-${tenant.organization.id}@example.com`,
      role: 'admin',
    });
    // All three made first: making a link removes the user's spent ones on the way.
    const used = await createSignInLink(db(), user);
    const expired = await createSignInLink(db(), user);
    const live = await createSignInLink(db(), user);
    expect(await useSignInLink(db(), used.token)).toBeDefined();
    await sql`update sign_in_links set expires_at = now() - interval '1 minute'
      where organization_id = ${tenant.organization.id}::uuid and token_hash = ${hashToken(expired.token)}`.execute(
      db(),
    );

    expect(await prune(tenant)).toMatchObject({ signInLinks: 2 });
    const left = await db()
      .selectFrom('sign_in_links')
      .select('token_hash')
      .where('organization_id', '=', tenant.organization.id)
      .execute();
    expect(left.map((row) => row.token_hash)).toEqual([hashToken(live.token)]);
    const signedIn = await t.request({ method: 'POST', url: '/v1/session', body: { signInToken: live.token } });
    expect(signedIn.statusCode, signedIn.body).toBe(201);
    expect(await prune(tenant)).toMatchObject({ signInLinks: 1 });
  });
});

/** Moves mail `days` back: its created_at and its UUID v7 id together. Returns the new ids, in the given order. */
async function ageMail(tenant: Tenant, ids: string[], days: number): Promise<string[]> {
  const { rows } = await sql<{ old: string; new: string }>`
    with renamed as materialized (
      select organization_id, id as old, ${v7(sql.raw(`created_at - make_interval(days => ${days})`))} as new
      from mail where organization_id = ${tenant.organization.id}::uuid and id = any(${ids}::uuid[])
    )
    update mail m set id = r.new, created_at = m.created_at - make_interval(days => ${days})
    from renamed r where m.organization_id = r.organization_id and m.id = r.old
    returning r.old::text as old, r.new::text as new`.execute(db());
  const renamed = new Map(rows.map((row) => [row.old, row.new]));
  return ids.map((id) => renamed.get(id)!);
}

describe('the retention schedule', () => {
  it('is one of the scheduled jobs, daily at 04:00 on each organization’s clock', () => {
    const job = scheduledJobs(loadConfig({})).find((candidate) => candidate.name === RETENTION_JOB);
    expect(job?.dailyAt).toBe('04:00');
  });

  it('runs for an organization once its local time reaches 04:00', async () => {
    const tenant = await t.tenant({ timezone: 'Asia/Tokyo' });
    const at = (iso: string) =>
      createJobRunner({ db: db(), jobs: [retentionJob(DEFAULTS)], logger: quiet, now: () => new Date(iso) });
    await at('2031-03-01T18:59:00Z').tick(); // 03:59 in Tokyo
    const before = await db()
      .selectFrom('jobs')
      .select('status')
      .where('organization_id', '=', tenant.organization.id)
      .execute();
    expect(before).toEqual([]);
    await at('2031-03-01T19:00:00Z').tick(); // 04:00 in Tokyo
    const after = await db()
      .selectFrom('jobs')
      .select(['name', 'run_key', 'status'])
      .where('organization_id', '=', tenant.organization.id)
      .execute();
    expect(after).toEqual([{ name: RETENTION_JOB, run_key: '2031-03-02', status: 'succeeded' }]);
  });
});

describe('retention configuration', () => {
  it('defaults to 30 days of delivery records, of events, of finished jobs and of mail, 2,000 rows per statement', () => {
    expect(loadConfig({}).retention).toEqual({
      deliveriesDays: 30,
      eventsDays: 30,
      jobsDays: 30,
      mailDays: 30,
      auditDays: 365,
      batchRows: 2000,
    });
  });

  it('refuses a value that is not a whole number in range, naming the variable without repeating the value', () => {
    const bad: [string, string][] = [
      ['RETENTION_DELIVERIES_DAYS', '0'],
      ['RETENTION_DELIVERIES_DAYS', 'thirty'],
      ['RETENTION_EVENTS_DAYS', '-7'],
      ['RETENTION_EVENTS_DAYS', '7.5'],
      ['RETENTION_JOBS_DAYS', '3651'],
      ['RETENTION_JOBS_DAYS', '1e3'],
      ['RETENTION_MAIL_DAYS', '0'],
      ['RETENTION_MAIL_DAYS', '30 days'],
      ['RETENTION_BATCH_ROWS', '99'],
      ['RETENTION_BATCH_ROWS', '10001'],
    ];
    for (const [name, value] of bad) {
      let error: unknown;
      try {
        loadConfig({ [name]: value });
      } catch (caught) {
        error = caught;
      }
      expect(error, `${name}=${value}`).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      // The whole message: the variable and what it takes, never what was given.
      expect(message).toMatch(
        new RegExp(`^Invalid ${name}: expected a whole number of (days|rows) from \\d+ to \\d+ \\(default \\d+\\)\\.$`),
      );
    }
  });
});
