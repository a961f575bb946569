import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/engine.js';
import { createJobRunner, type JobRunner } from '../../src/jobs/runner/runner.js';
import { overnightJob } from '../../src/resources/loyalty/engine/overnight/overnight.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { postgresUrl } from '../support/database.js';
import { eventsOf } from '../support/events.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const DAY = 86_400_000;
const quiet = { info() {}, warn() {}, error() {} };
const db = () => t.testDatabase.database.db;
const req = (tenant: Tenant, method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) =>
  t.request({ method, url: `/v1${url}`, key: tenant.key, ...(body !== undefined ? { body } : {}) });
async function ok<T = any>(promise: ReturnType<typeof req>, status = 200): Promise<T> {
  const response = await promise;
  expect(response.statusCode, response.body).toBe(status);
  return response.json<T>();
}
const jobsOf = (organizationId: string) =>
  db().selectFrom('jobs').selectAll().where('organization_id', '=', organizationId).orderBy('run_key').execute();

async function member(tenant: Tenant, email: string) {
  const { data } = await ok(req(tenant, 'POST', '/customers/import', { data: [{ email }] }));
  return ok(req(tenant, 'POST', '/loyalty-memberships', { customerId: data[0].id }), 201);
}
const runner = (clock: { now: Date }, database = db()): JobRunner =>
  createJobRunner({ db: database, jobs: [overnightJob], logger: quiet, now: () => clock.now });
/** 04:00 UTC on the day `days` from today: after the 03:00 run time of a UTC organization. */
const morning = (days: number) => new Date(Math.floor(Date.now() / DAY) * DAY + days * DAY + 4 * 3_600_000);

describe('job runner', () => {
  it('queues the overnight run per organization at 03:00 on its own clock, once per local day', async () => {
    const tenant = await t.tenant({ timezone: 'America/New_York' });
    const clock = { now: new Date('2030-01-10T07:59:00Z') }; // 02:59 in New York
    const jobs = runner(clock);
    await jobs.tick();
    expect(await jobsOf(tenant.organization.id)).toEqual([]);
    clock.now = new Date('2030-01-10T08:00:00Z'); // 03:00 there
    await jobs.tick();
    await jobs.tick();
    clock.now = new Date('2030-01-11T04:59:00Z'); // still the 10th, 23:59 local
    await jobs.tick();
    const runs = await jobsOf(tenant.organization.id);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      name: 'loyalty.overnight',
      run_key: '2030-01-10',
      status: 'succeeded',
      attempts: 1,
      last_error: null,
    });
    expect(runs[0]!.result).toMatchObject({ rewardsExpired: 0, pointsExpired: 0, tiersReviewed: 0 });
    clock.now = new Date('2030-01-11T08:00:00Z');
    await jobs.tick();
    expect((await jobsOf(tenant.organization.id)).map((job) => job.run_key)).toEqual(['2030-01-10', '2030-01-11']);
  });

  it('retries a failed run and takes over one whose runner died (lease expired)', async () => {
    const tenant = await t.tenant();
    const clock = { now: new Date('2031-05-01T04:00:00Z') };
    let calls = 0;
    const flaky = createJobRunner({
      db: db(),
      logger: quiet,
      now: () => clock.now,
      retryDelayMs: 60_000,
      jobs: [
        {
          name: 'test.flaky',
          dailyAt: '03:00',
          run: async ({ organizationId }): Promise<Record<string, number>> => {
            if (organizationId !== tenant.organization.id) return {};
            calls += 1;
            if (calls === 1) throw new Error('boom');
            return { calls };
          },
        },
      ],
    });
    await flaky.tick();
    const [failed] = await db()
      .selectFrom('jobs')
      .selectAll()
      .where('organization_id', '=', tenant.organization.id)
      .where('name', '=', 'test.flaky')
      .execute();
    expect(failed).toMatchObject({ status: 'queued', last_error: 'boom', attempts: 1 });
    clock.now = new Date(clock.now.getTime() + 61_000);
    await flaky.tick();
    const [done] = await db()
      .selectFrom('jobs')
      .selectAll()
      .where('organization_id', '=', tenant.organization.id)
      .where('name', '=', 'test.flaky')
      .execute();
    expect(done).toMatchObject({ status: 'succeeded', attempts: 2, result: { calls: 2 } });

    // A run left "running" by a dead process is claimed again once its lease has lapsed.
    await db()
      .updateTable('jobs')
      .set({ status: 'running', claimed_by: 'dead', lease_expires_at: new Date(clock.now.getTime() - 1) })
      .where('organization_id', '=', tenant.organization.id)
      .where('name', '=', 'test.flaky')
      .execute();
    await flaky.tick();
    const [taken] = await db()
      .selectFrom('jobs')
      .selectAll()
      .where('organization_id', '=', tenant.organization.id)
      .where('name', '=', 'test.flaky')
      .execute();
    expect(taken).toMatchObject({ status: 'succeeded', attempts: 3, claimed_by: flaky.owner });
  });
});

describe('overnight loyalty job', () => {
  it('expires due rewards and points, announces what expires soon once, through the runner', async () => {
    const tenant = await t.tenant();
    const [program] = (await ok(req(tenant, 'GET', '/loyalty-programs'))).data;
    await ok(
      req(tenant, 'PATCH', `/loyalty-programs/${program.id}`, { pointsExpiry: { type: 'daysAfterEarning', days: 10 } }),
    );
    const ann = await member(tenant, 'ann@example.com');
    const bob = await member(tenant, 'bob@example.com');
    await ok(
      req(tenant, 'POST', `/loyalty-memberships/${ann.id}/points-adjustments`, { points: 100, reason: 'welcome' }),
    );
    await ok(
      req(tenant, 'POST', `/loyalty-memberships/${ann.id}/points-adjustments`, { points: -30, reason: 'spent some' }),
    );
    const coupon = { type: 'freeShipping', maximumValueCents: null };
    const soon = await ok(
      req(tenant, 'POST', '/loyalty-rewards', {
        loyaltyMembershipId: bob.id,
        reward: coupon,
        expiresAt: new Date(Date.now() + 2 * DAY).toISOString(),
      }),
      201,
    );
    const later = await ok(
      req(tenant, 'POST', '/loyalty-rewards', {
        loyaltyMembershipId: bob.id,
        reward: coupon,
        expiresAt: new Date(Date.now() + 9 * DAY).toISOString(),
      }),
      201,
    );
    const never = await ok(
      req(tenant, 'POST', '/loyalty-rewards', { loyaltyMembershipId: bob.id, reward: coupon }),
      201,
    );

    // Night 1 (tomorrow): nothing due; the reward in 2 days and the points in 10 days are within 7 days? only the reward.
    const clock = { now: morning(1) };
    const jobs = runner(clock);
    await jobs.tick();
    expect(
      (await eventsOf(t, tenant.organization.id, 'loyaltyReward.expiringSoon')).map(
        (e) => (e.payload as { id: string }).id,
      ),
    ).toEqual([soon.id]);
    expect(await eventsOf(t, tenant.organization.id, 'loyaltyPoints.expiringSoon')).toEqual([]);

    // Night 4: the first reward lapsed; the points (day 10) and the second reward (day 9) are now within 7 days.
    clock.now = morning(4);
    await jobs.tick();
    const rewards = await ok(req(tenant, 'GET', '/loyalty-rewards?sort=createdAt'));
    expect(rewards.data.map((r: any) => [r.id, r.status])).toEqual([
      [soon.id, 'expired'],
      [later.id, 'pending'],
      [never.id, 'pending'],
    ]);
    expect(
      (await eventsOf(t, tenant.organization.id, 'loyaltyReward.expired')).map((e) => (e.payload as { id: string }).id),
    ).toEqual([soon.id]);
    expect(
      (await eventsOf(t, tenant.organization.id, 'loyaltyReward.expiringSoon')).map(
        (e) => (e.payload as { id: string }).id,
      ),
    ).toEqual([soon.id, later.id]);
    const pointsSoon = await eventsOf(t, tenant.organization.id, 'loyaltyPoints.expiringSoon');
    expect(pointsSoon.map((e) => e.payload)).toEqual([
      expect.objectContaining({ loyaltyMembershipId: ann.id, points: 70, pointsBalance: 70 }),
    ]);

    // Night 5: announced items are not announced again.
    clock.now = morning(5);
    await jobs.tick();
    expect(await eventsOf(t, tenant.organization.id, 'loyaltyReward.expiringSoon')).toHaveLength(2);
    expect(await eventsOf(t, tenant.organization.id, 'loyaltyPoints.expiringSoon')).toHaveLength(1);

    // Night 11: the credit's 70 remaining points lapse into one expired entry.
    clock.now = morning(11);
    await jobs.tick();
    const expired = await ok(
      req(tenant, 'GET', `/loyalty-activity?filter=${encodeURIComponent(JSON.stringify({ kind: 'expired' }))}`),
    );
    expect(expired.data).toEqual([
      expect.objectContaining({ loyaltyMembershipId: ann.id, points: -70, balanceAfter: 0, reason: 'Points expired' }),
    ]);
    expect((await ok(req(tenant, 'GET', `/loyalty-memberships/${ann.id}`))).pointsBalance).toBe(0);
    const runs = await jobsOf(tenant.organization.id);
    expect(runs.map((run) => run.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    expect(runs[3]!.result).toMatchObject({ pointsExpired: 70, membersWithPointsExpired: 1, rewardsExpired: 1 });
  });

  it('reviews rolling tiers that are due', async () => {
    const tenant = await t.tenant();
    const [program] = (await ok(req(tenant, 'GET', '/loyalty-programs'))).data;
    await ok(req(tenant, 'PATCH', `/loyalty-programs/${program.id}`, { tierWindow: { type: 'rolling', months: 1 } }));
    const gold = await ok(req(tenant, 'POST', '/loyalty-tiers', { name: 'Gold', thresholdPoints: 100 }), 201);
    const cy = await member(tenant, 'cy@example.com');
    await ok(req(tenant, 'POST', `/loyalty-memberships/${cy.id}/points-adjustments`, { points: 150, reason: 'x' }));
    expect((await ok(req(tenant, 'GET', `/loyalty-memberships/${cy.id}`))).loyaltyTierId).toBe(gold.id);
    // Points older than the window no longer count: age the credit, make the review due.
    await sql`update loyalty_transactions set created_at = now() - interval '60 days' where loyalty_membership_id = ${cy.id}::uuid`.execute(
      db(),
    );
    await db()
      .updateTable('loyalty_memberships')
      .set({ tier_review_at: new Date(Date.now() - DAY) })
      .where('id', '=', cy.id)
      .execute();
    await runner({ now: morning(1) }).tick();
    const reviewed = await ok(req(tenant, 'GET', `/loyalty-memberships/${cy.id}`));
    expect(reviewed).toMatchObject({ loyaltyTierId: null, tierReviewAt: null });
    expect(
      (await eventsOf(t, tenant.organization.id, 'loyaltyMembership.tierChanged')).map(
        (e) => (e.payload as { loyaltyTierId: string | null }).loyaltyTierId,
      ),
    ).toEqual([gold.id, null]);
  });
});

describe.skipIf(!postgresUrl)('two runners on PostgreSQL', () => {
  it('run each organization night once', async () => {
    const tenant = await t.tenant();
    const bob = await member(tenant, 'bob@example.com');
    const coupon = { type: 'freeShipping', maximumValueCents: null };
    for (let i = 0; i < 5; i += 1) {
      await ok(
        req(tenant, 'POST', '/loyalty-rewards', {
          loyaltyMembershipId: bob.id,
          reward: coupon,
          expiresAt: new Date(Date.now() + DAY).toISOString(),
        }),
        201,
      );
    }
    const second = await openDatabase({ databaseUrl: t.testDatabase.url!, dataDir: 'memory://' });
    try {
      const clock = { now: morning(3) };
      const a = runner(clock);
      const b = runner(clock, second.db);
      const ran = await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
      const runs = await jobsOf(tenant.organization.id);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({
        status: 'succeeded',
        attempts: 1,
        result: expect.objectContaining({ rewardsExpired: 5 }),
      });
      // Every organization's night ran exactly once across both runners.
      const nights = await db()
        .selectFrom('jobs')
        .select('id')
        .where('run_key', '=', runs[0]!.run_key)
        .where('name', '=', 'loyalty.overnight')
        .execute();
      expect(ran.reduce((sum, n) => sum + n, 0)).toBe(nights.length);
      expect(await eventsOf(t, tenant.organization.id, 'loyaltyReward.expired')).toHaveLength(5);
    } finally {
      await second.close();
    }
  });
});
