/**
 * Issue 8, item 4: scale-out. Two API processes (`serve --no-dispatch`, both running the job runner) and two
 * dispatchers (`dispatch`) on one PostgreSQL database and one Redis, under load from this test process: the
 * organization's rate limit holds across both API processes within one request's cost, no webhook delivery is
 * received twice, and the nightly job runs once per organization.
 *
 * The processes keep the real clock (they take no fake one), so "the clock at the hour" is arranged the other way
 * round: the night organizations get time zones where it is already past 03:00 today, and both runners find their
 * runs due on their first tick.
 *
 * Both API processes also send mail to an SMTP server on 127.0.0.1: orders imported through both at once, with an
 * active survey flow, schedule one survey per order and send its request once (docs/api.md#when-a-survey-is-scheduled).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OVERNIGHT_LOCAL_TIME } from '../../src/resources/loyalty/engine/overnight/overnight.js';
import { createOrganization } from '../../src/resources/organization/service.js';
import { createTenant } from '../support/app.js';
import { createTestDatabase, postgresUrl, redisUrl, type TestDatabase } from '../support/database.js';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.js';
import { startWebhookReceiver, type WebhookReceiver, until, writeReceiverCa } from '../support/webhooks.js';
import { call, killAll, spawnPatron, startServe, type PatronProcess, type ServeProcess } from './processes.js';
import { orderRows, seedStore, type Store } from './store.js';

const CAPACITY = 600;
const REFILL_PER_SECOND = CAPACITY / 60;
const REQUESTS = 1_200;
const IN_FLIGHT = 40;
const ENDPOINT_PATHS = Array.from({ length: 8 }, (_, i) => `/scale-${i}`);
/** More endpoints than one dispatcher works on at once (64): a wave to all of them needs both dispatchers. */
const REWARD_ENDPOINT_PATHS = Array.from({ length: 70 }, (_, i) => `/reward-${i}`);
const REWARD_WAVE = 10;
const CANDIDATE_ZONES = [
  'Pacific/Kiritimati',
  'Pacific/Auckland',
  'Australia/Sydney',
  'Asia/Tokyo',
  'Asia/Shanghai',
  'Asia/Kolkata',
  'Asia/Dubai',
  'Europe/Moscow',
  'Europe/Berlin',
  'Europe/London',
  'UTC',
  'Atlantic/Azores',
  'America/Sao_Paulo',
  'America/New_York',
  'America/Chicago',
  'America/Denver',
  'America/Los_Angeles',
  'America/Anchorage',
  'Pacific/Honolulu',
  'Pacific/Pago_Pago',
];

let testDatabase: TestDatabase;
let receiver: WebhookReceiver;
let smtp: SmtpReceiver;
let redis: Redis;
let tempDir: string;
const bucketKeys: string[] = [];
const db = () => testDatabase.database.db;

/** HH:MM now in the zone. */
const localTime = (zone: string) =>
  new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(
    new Date(),
  );
const localDate = (zone: string) => new Intl.DateTimeFormat('en-CA', { timeZone: zone }).format(new Date());

describe.skipIf(!postgresUrl || !redisUrl)('two API processes and two dispatchers on one PostgreSQL and Redis', () => {
  let api: ServeProcess[] = [];
  let dispatchers: PatronProcess[] = [];
  let organizationId: string;
  let key: string;
  let store: Store;
  const nights: { organizationId: string; zone: string; runKey: string }[] = [];

  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    receiver = await startWebhookReceiver();
    smtp = await startSmtpReceiver();
    redis = new Redis(redisUrl!);
    tempDir = await mkdtemp(join(tmpdir(), 'patron-scale-'));
    const caFile = await writeReceiverCa(receiver, tempDir);
    const env = {
      DATABASE_URL: testDatabase.url,
      REDIS_URL: redisUrl,
      PATRON_DATA_DIR: tempDir,
      PATRON_SECRET_KEY: randomBytes(32).toString('base64'),
      WEBHOOK_ALLOW_PRIVATE_HOSTS: '1',
      WEBHOOK_TIMEOUT_MS: '2000',
      NODE_EXTRA_CA_CERTS: caFile,
      LOG_LEVEL: 'warn',
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Scale <mail@scale.example>',
    };

    // Organizations whose local time is past the overnight hour (and not about to roll over to tomorrow), made
    // before any process starts: both job runners find them due at once.
    const zones = CANDIDATE_ZONES.filter((zone) => localTime(zone) >= '03:05' && localTime(zone) <= '23:30');
    expect(zones.length).toBeGreaterThanOrEqual(8);
    for (const zone of zones) {
      const organization = await createOrganization(db(), { name: `Night ${zone}`, timezone: zone });
      nights.push({ organizationId: organization.id, zone, runKey: localDate(zone) });
    }

    // Seeded at a high ceiling, then set to the default plan with a fresh bucket for the measurement.
    const scale = await createTenant(db(), { name: 'Scale', apiRequestsPerMinute: 100_000 });
    organizationId = scale.organization.id;
    key = scale.key;
    bucketKeys.push(`patron:rl:org:${organizationId}`);

    await recordLeaseClaims();
    [api, dispatchers] = await Promise.all([
      Promise.all([startServe(env, ['--no-dispatch']), startServe(env, ['--no-dispatch'])]),
      Promise.resolve([spawnPatron(['dispatch'], env), spawnPatron(['dispatch'], env)]),
    ]);
    for (const path of ENDPOINT_PATHS) {
      const created = await call(api[0]!.baseUrl, key, 'POST', '/v1/webhooks', {
        url: `${receiver.origin}${path}`,
        events: ['order.updated'],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    for (const path of REWARD_ENDPOINT_PATHS) {
      const created = await call(api[1]!.baseUrl, key, 'POST', '/v1/webhooks', {
        url: `${receiver.origin}${path}`,
        events: ['loyaltyReward.issued'],
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    store = await seedStore(api[1]!.baseUrl, key, { name: 'scale', customers: 50, products: 20 });
    const seeded = await call(api[0]!.baseUrl, key, 'POST', '/v1/orders/import', {
      data: orderRows(store, 'scale', 200),
    });
    expect(seeded.status).toBe(200);
    await db()
      .updateTable('organizations')
      .set({ api_requests_per_minute: CAPACITY })
      .where('id', '=', organizationId)
      .execute();
    await redis.del(bucketKeys[0]!);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([...api, ...dispatchers].map((process) => process.stop('SIGTERM')));
    await killAll();
    if (bucketKeys.length) await redis?.del(...bucketKeys);
    redis?.disconnect();
    await receiver?.close();
    await smtp?.close();
    await testDatabase?.drop();
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
  });

  it('the organization rate limit holds across both API processes within one request', async () => {
    const orders = await db()
      .selectFrom('orders')
      .select(['id', 'number', 'remote_id'])
      .where('organization_id', '=', organizationId)
      .orderBy('remote_id')
      .execute();
    const byRemoteId = new Map(orders.map((order) => [order.remote_id, order]));
    const order = (n: number) => byRemoteId.get(`scale-${n}`)!;
    /**
     * The mix: mostly reads, some PATCHes, a bulk update (5 tokens) and an import (10 tokens) every 20 requests. The
     * imports (orders 0..59), bulk updates (60..119) and PATCHes (120..199) write disjoint orders, three at a time,
     * so that what is measured is the rate limit, not lock waits between writers of the same rows.
     */
    const request = (i: number): { cost: number; method: string; path: string; body?: unknown } => {
      const wave = Math.floor(i / 20) % 20;
      const three = (from: number) => [0, 1, 2].map((k) => order(from + wave * 3 + k));
      switch (i % 20) {
        case 0:
          return {
            cost: 10,
            method: 'POST',
            path: '/v1/orders/import',
            body: { data: orderRows(store, 'scale', 60).slice(wave * 3, wave * 3 + 3) },
          };
        case 1: {
          const filter = JSON.stringify({ number: { $in: three(60).map((o) => o.number) } });
          return {
            cost: 5,
            method: 'PATCH',
            path: `/v1/orders/bulk-update?filter=${encodeURIComponent(filter)}`,
            body: { addMetadata: { wave: String(i) } },
          };
        }
        case 2:
        case 3:
          return {
            cost: 1,
            method: 'PATCH',
            path: `/v1/orders/${order(120 + (i % 80)).id}`,
            body: { notes: `scale ${i}` },
          };
        case 4:
        case 5:
        case 6:
        case 7:
          return { cost: 1, method: 'GET', path: '/v1/orders?limit=10&include=customer' };
        default:
          return { cost: 1, method: 'GET', path: `/v1/orders/${orders[i % orders.length]!.id}` };
      }
    };

    const answers: { server: number; cost: number; status: number; retryAfter: string | null; code?: string }[] = [];
    let next = 0;
    const started = performance.now();
    let lastAnswer = started;
    const worker = async () => {
      while (next < REQUESTS) {
        const i = next++;
        const server = i % 2;
        const { cost, method, path, body } = request(i);
        const answer = await call(api[server]!.baseUrl, key, method, path, body);
        lastAnswer = performance.now();
        answers.push({
          server,
          cost,
          status: answer.status,
          retryAfter: answer.headers.get('retry-after'),
          code: answer.body?.error?.code,
        });
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const elapsedSeconds = (lastAnswer - started) / 1000;

    const allowed = answers.filter((answer) => answer.status >= 200 && answer.status < 300);
    const limited = answers.filter((answer) => answer.status === 429);
    const spent = allowed.reduce((sum, answer) => sum + answer.cost, 0);
    const ceiling = CAPACITY + REFILL_PER_SECOND * elapsedSeconds;
    const per = (server: number, ok: boolean) =>
      answers.filter((answer) => answer.server === server && (answer.status === 429) !== ok).length;
    console.log(
      `scale-out: ${answers.length} requests (costs 1/5/10) over 2 API processes in ${elapsedSeconds.toFixed(2)} s: ${allowed.length} allowed ` +
        `spending ${spent} tokens of at most ${ceiling.toFixed(1)} (${CAPACITY} + ${REFILL_PER_SECOND}/s × elapsed): overshoot ${Math.max(0, spent - ceiling).toFixed(1)} tokens ` +
        `(slack ${(ceiling - spent).toFixed(1)}); ${limited.length} × 429; process A ${per(0, true)} allowed / ${per(0, false)} limited, ` +
        `process B ${per(1, true)} / ${per(1, false)}`,
    );

    const failures = api.flatMap((process) =>
      process
        .output()
        .split('\n')
        .filter((line) => line.includes('request failed')),
    );
    expect(
      allowed.length + limited.length,
      `${JSON.stringify(answers.find((answer) => answer.status >= 300 && answer.status !== 429))}\n${failures.slice(0, 3).join('\n')}`,
    ).toBe(REQUESTS);
    expect(spent).toBeLessThanOrEqual(ceiling);
    // Nothing refused while tokens were there: at most one costliest request's worth is left unspent.
    expect(spent).toBeGreaterThanOrEqual(CAPACITY - 10);
    for (const answer of limited) {
      expect(answer.code).toBe('TOO_MANY_REQUESTS');
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    for (const server of [0, 1]) {
      expect(per(server, true)).toBeGreaterThan(0);
      expect(per(server, false)).toBeGreaterThan(0);
    }
    for (const process of api) expect(process.output()).not.toMatch(/falling back to per-process buckets/);
  });

  it('no webhook delivery is received twice, with two dispatchers sharing the queue', async () => {
    // The order.updated deliveries of the load above, then a wave of rewards to 70 endpoints at once (the bucket is
    // empty after the load, so the plan is raised again).
    await db()
      .updateTable('organizations')
      .set({ api_requests_per_minute: 100_000 })
      .where('id', '=', organizationId)
      .execute();
    const issued = await Promise.all(
      store.membershipIds.slice(0, REWARD_WAVE).map((membershipId, i) =>
        call(api[i % 2]!.baseUrl, key, 'POST', '/v1/loyalty-rewards', {
          loyaltyMembershipId: membershipId,
          reward: { type: 'freeShipping', maximumValueCents: null },
        }),
      ),
    );
    expect(issued.map((answer) => answer.status)).toEqual(Array(REWARD_WAVE).fill(201));
    await until(async () => (await unsettledDeliveries()) === 0, 60_000);

    const { rows: claims } = await sql<{ owner: string; claims: number }>`
      select owner, count(*)::int as claims from hardening_lease_claims group by owner`.execute(db());
    const claimsByPid = new Map(claims.map((row) => [Number(row.owner.split(':')[1]), row.claims]));
    const deliveries = await db()
      .selectFrom('webhook_deliveries')
      .select(['idempotency_key', 'status', 'url'])
      .where('organization_id', '=', organizationId)
      .execute();
    expect(deliveries.filter((delivery) => delivery.status !== 'succeeded')).toEqual([]);
    let duplicates = 0;
    let expected = 0;
    for (const [paths, eventName] of [
      [ENDPOINT_PATHS, 'order.updated'],
      [REWARD_ENDPOINT_PATHS, 'loyaltyReward.issued'],
    ] as const) {
      const events = await db()
        .selectFrom('events')
        .select('id')
        .where('organization_id', '=', organizationId)
        .where('name', '=', eventName)
        .execute();
      expected += events.length * paths.length;
      for (const path of paths) {
        const received = receiver.received
          .filter((request) => request.path === path)
          .map((request) => request.headers['webhook-id']!);
        duplicates += received.length - new Set(received).size;
        expect(new Set(received)).toEqual(new Set(events.map((event) => event.id)));
      }
    }
    expect(deliveries).toHaveLength(expected);
    console.log(
      `scale-out: ${deliveries.length} deliveries (order.updated of the load to ${ENDPOINT_PATHS.length} endpoints, ${REWARD_WAVE} rewards to ` +
        `${REWARD_ENDPOINT_PATHS.length}) by 2 dispatchers (endpoint claims by process: ${[...claimsByPid].map(([pid, n]) => `${pid}: ${n}`).join(', ')}), ` +
        `${duplicates} received twice`,
    );
    expect(duplicates).toBe(0);
    // Both dispatchers took part, so the single delivery of each is not the work of one process alone.
    expect([...claimsByPid.keys()].sort()).toEqual(dispatchers.map((dispatcher) => dispatcher.pid).sort());
  });

  it('the nightly job runs once per organization although both API processes run the job runner', async () => {
    const ids = nights.map((night) => night.organizationId);
    const runs = await until(async () => {
      const rows = await db()
        .selectFrom('jobs')
        .selectAll()
        .where('organization_id', 'in', ids)
        .where('name', '=', 'loyalty.overnight')
        .execute();
      return rows.length >= ids.length && rows.every((row) => row.status === 'succeeded') && rows;
    }, 60_000);
    // A second run would be a second row for the night, which the unique (organization_id, name, run_key) refuses, or
    // a second claim of a run: a run recorded succeeded is never claimed again, and every claim counts an attempt
    // (checked below). So what is recorded now is final.
    const again = await db()
      .selectFrom('jobs')
      .select('id')
      .where('organization_id', 'in', ids)
      .where('name', '=', 'loyalty.overnight')
      .execute();
    expect(again).toHaveLength(ids.length);
    const owners = new Map<string, number>();
    for (const night of nights) {
      const mine = runs.filter((run) => run.organization_id === night.organizationId);
      expect(mine, night.zone).toHaveLength(1);
      expect(mine[0]).toMatchObject({ run_key: night.runKey, status: 'succeeded', attempts: 1 });
      const pid = mine[0]!.claimed_by!.split(':')[1]!;
      owners.set(pid, (owners.get(pid) ?? 0) + 1);
    }
    const apiPids = new Set(api.map((process) => String(process.pid)));
    for (const pid of owners.keys()) expect(apiPids.has(pid)).toBe(true);
    console.log(
      `scale-out: ${nights.length} organizations past ${OVERNIGHT_LOCAL_TIME} local time, 2 job runners: ${runs.length} runs, one each ` +
        `(by process: ${[...owners.entries()].map(([pid, n]) => `${pid}: ${n}`).join(', ')})`,
    );
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from jobs where name = 'loyalty.overnight' and attempts > 1`.execute(db());
    expect(rows[0]!.n).toBe(0);
  });

  it('one survey per order and flow, and one request each, when both processes ship the same orders at once', async () => {
    const { organization: surveyOrg, key: surveyKey } = await createTenant(db(), {
      name: 'Surveys',
      apiRequestsPerMinute: 100_000,
    });
    const shop = await seedStore(api[0]!.baseUrl, surveyKey, { name: 'surveys', customers: 20, products: 5 });
    const template = await call(api[0]!.baseUrl, surveyKey, 'POST', '/v1/email-templates', {
      kind: 'surveyRequest',
      name: 'How was it?',
      subject: 'How was {{ order.number }}?',
      html: '<p><a href="{{ survey.url }}">Answer</a></p>',
    });
    expect(template.status, JSON.stringify(template.body)).toBe(201);
    const flow = await call(api[1]!.baseUrl, surveyKey, 'POST', '/v1/survey-flows', {
      name: 'Right away',
      trigger: 'orderShipped',
      delayDays: 0,
      emailTemplateId: template.body.id,
      questions: [{ id: 'overall', text: 'How was it?', kind: 'rating' }],
    });
    expect(flow.status, JSON.stringify(flow.body)).toBe(201);
    const ORDERS = 120;
    const shippedAt = new Date(Date.now() - 60_000).toISOString();
    const rows = orderRows(shop, 'ship', ORDERS).map((row) => ({ ...row, shippedAt }));
    // The orders exist unshipped; then each process imports every one of them with its shipped date, in batches of
    // 20 in opposite orders, four times over, all at once.
    const created = await call(api[0]!.baseUrl, surveyKey, 'POST', '/v1/orders/import', {
      data: orderRows(shop, 'ship', ORDERS),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const batches = Array.from({ length: ORDERS / 20 }, (_, i) => rows.slice(i * 20, i * 20 + 20));
    const answers = await Promise.all(
      [0, 1, 2, 3].flatMap((round) =>
        api.map((process, p) =>
          Promise.all(
            (p === round % 2 ? batches : [...batches].reverse()).map((data) =>
              call(process.baseUrl, surveyKey, 'POST', '/v1/orders/import', { data }),
            ),
          ),
        ),
      ),
    );
    for (const answer of answers.flat()) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const settled = await until(async () => {
      const { rows: counts } = await sql<{ status: string; n: number }>`select status, count(*)::int as n
        from surveys where organization_id = ${surveyOrg.id}::uuid group by status`.execute(db());
      const total = counts.reduce((sum, row) => sum + row.n, 0);
      return total === ORDERS && counts.every((row) => row.status === 'sent') && counts;
    }, 60_000);
    expect(settled).toEqual([{ status: 'sent', n: ORDERS }]);
    const mails = await db()
      .selectFrom('mail')
      .select(['id', 'status', 'claimed_by', 'attempts'])
      .where('organization_id', '=', surveyOrg.id)
      .execute();
    expect(mails).toHaveLength(ORDERS);
    expect(mails.every((mail) => mail.status === 'sent')).toBe(true);
    // Each was claimed once (a claim counts an attempt) and its send has its outcome: no send of any is still to come.
    expect(mails.every((mail) => mail.attempts === 1)).toBe(true);
    for (const mail of mails) expect(smtp.withMessageId(`<${mail.id}@scale.example>`), mail.id).toHaveLength(1);
    const senders = new Set(mails.map((mail) => mail.claimed_by!.split(':')[1]));
    console.log(
      `scale-out: ${ORDERS} shipped orders imported 4 times through each of 2 processes at once: ${ORDERS} surveys, ${mails.length} requests, each received once (sent by ${senders.size} process${senders.size === 1 ? '' : 'es'})`,
    );
  }, 120_000);

  /**
   * Test instrumentation in this test's own database: every time an endpoint's lease changes hands, the new owner
   * (host:pid:uuid) is logged, so the test can tell which dispatcher processes took part.
   */
  async function recordLeaseClaims(): Promise<void> {
    await sql`create table hardening_lease_claims (owner text not null, claimed_at timestamptz not null default clock_timestamp())`.execute(
      db(),
    );
    await sql`create function hardening_log_lease_claim() returns trigger language plpgsql as $$
      begin
        if new.lease_owner is not null and new.lease_owner is distinct from old.lease_owner then
          insert into hardening_lease_claims (owner) values (new.lease_owner);
        end if;
        return new;
      end $$`.execute(db());
    await sql`create trigger hardening_lease_claim after update on webhook_endpoints
      for each row execute function hardening_log_lease_claim()`.execute(db());
  }

  async function unsettledDeliveries(): Promise<number> {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from webhook_deliveries
      where organization_id = ${organizationId}::uuid and status in ('pending', 'sending')`.execute(db());
    return rows[0]!.n;
  }
});
