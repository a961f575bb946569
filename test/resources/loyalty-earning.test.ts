import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { eventsOf } from '../support/events.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;
const req = (tenant: Tenant, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) =>
  t.request({ method, url: `/v1${url}`, key: tenant.key, ...(body !== undefined ? { body } : {}) });
async function ok<T = any>(promise: ReturnType<typeof req>, status = 200): Promise<T> {
  const response = await promise;
  expect(response.statusCode, response.body).toBe(status);
  return response.json<T>();
}
const GHOST = '0190a000-0000-7000-8000-000000000000';

async function member(tenant: Tenant, email: string) {
  const { data } = await ok(req(tenant, 'POST', '/customers/import', { data: [{ email }] }));
  return ok(req(tenant, 'POST', '/loyalty-memberships', { customerId: data[0].id }), 201);
}
const rule = (tenant: Tenant, section: string, name: string, config: unknown) =>
  ok(req(tenant, 'POST', '/loyalty-rules', { section, name, config }), 201);
const event = (tenant: Tenant, body: Record<string, unknown>) => req(tenant, 'POST', '/loyalty-events', body);
const stamp = (tenant: Tenant, body: Record<string, unknown>) => req(tenant, 'POST', '/loyalty-stamps', body);
const balance = async (tenant: Tenant, id: string) =>
  (await ok(req(tenant, 'GET', `/loyalty-memberships/${id}`))).pointsBalance;

describe('POST /loyalty-events', () => {
  it('earns the event rules once by default, by customer email or membership, and sends loyaltyTransaction.created', async () => {
    const tenant = await t.tenant();
    const ann = await member(tenant, 'ann@example.com');
    const signup = await rule(tenant, 'rules', 'Signup bonus', { type: 'event', eventName: 'signup', points: 50 });
    await rule(tenant, 'rules', 'Birthday', {
      type: 'event',
      eventName: 'birthday',
      points: 20,
      frequency: 'oncePerYear',
    });

    const first = await ok(event(tenant, { data: { customer: 'ANN@example.com', event: 'signup' } }));
    expect(first).toMatchObject({
      event: 'signup',
      loyaltyMembershipId: ann.id,
      pointsEarned: 50,
      rules: [
        { loyaltyRuleId: signup.id, outcome: 'earned', points: 50, loyaltyTransactionId: first.transactions[0].id },
      ],
      membership: { id: ann.id, pointsBalance: 50, lifetimePoints: 50 },
      referral: null,
    });
    expect(first.transactions[0]).toMatchObject({
      kind: 'earned',
      points: 50,
      balanceAfter: 50,
      eventName: 'signup',
      loyaltyRuleId: signup.id,
      reason: 'Event "signup"',
    });

    const again = await ok(event(tenant, { loyaltyMembershipId: ann.id, event: 'signup', key: 'other' }));
    expect(again).toMatchObject({
      pointsEarned: 0,
      transactions: [],
      rules: [{ outcome: 'alreadyEarned', points: 0, loyaltyTransactionId: first.transactions[0].id }],
    });
    expect(await balance(tenant, ann.id)).toBe(50);

    // oncePerYear: twice in 2025 earns once, 2024 again.
    await ok(event(tenant, { loyaltyMembershipId: ann.id, event: 'birthday', occurredAt: '2025-03-01T10:00:00Z' }));
    expect(
      (await ok(event(tenant, { loyaltyMembershipId: ann.id, event: 'birthday', occurredAt: '2025-12-31T10:00:00Z' })))
        .pointsEarned,
    ).toBe(0);
    expect(
      (
        await ok(
          event(tenant, { loyaltyMembershipId: ann.id, event: 'birthday', occurredAt: '2024-06-01T10:00:00+02:00' }),
        )
      ).pointsEarned,
    ).toBe(20);
    expect(await balance(tenant, ann.id)).toBe(90);

    // No rule for the name: nothing earned, not an error.
    expect(await ok(event(tenant, { loyaltyMembershipId: ann.id, event: 'review' }))).toMatchObject({
      pointsEarned: 0,
      rules: [],
      transactions: [],
    });
    const created = await eventsOf(t, tenant.organization.id, 'loyaltyTransaction.created');
    expect(created.map((row) => (row.payload as { points: number }).points)).toEqual([50, 20, 20]);
  });

  it('applies the best running multiplier offer at occurredAt, and unlimited rules are idempotent only by key', async () => {
    const tenant = await t.tenant();
    const bob = await member(tenant, 'bob@example.com');
    await rule(tenant, 'rules', 'Review', { type: 'event', eventName: 'review', points: 15, frequency: 'unlimited' });
    await rule(tenant, 'offers', 'Double', {
      type: 'pointsMultiplier',
      multiplier: 2,
      startsAt: '2025-01-01T00:00:00Z',
      endsAt: '2025-02-01T00:00:00Z',
    });
    await rule(tenant, 'offers', 'x1.5', {
      type: 'pointsMultiplier',
      multiplier: 1.5,
      startsAt: '2025-01-15T00:00:00Z',
      endsAt: '2025-03-01T00:00:00Z',
    });
    const at = (occurredAt: string, key?: string) =>
      ok(event(tenant, { loyaltyMembershipId: bob.id, event: 'review', occurredAt, ...(key ? { key } : {}) }));
    expect((await at('2025-01-20T00:00:00Z')).pointsEarned).toBe(30);
    expect((await at('2025-02-10T00:00:00Z')).pointsEarned).toBe(22); // floor(15 × 1.5)
    expect((await at('2025-02-01T00:00:00Z')).pointsEarned).toBe(22); // endsAt is exclusive
    expect((await at('2024-12-31T23:59:59Z')).pointsEarned).toBe(15);
    expect((await at('2024-12-31T23:59:59Z')).pointsEarned).toBe(15); // no key: each report earns
    const keyed = await at('2024-12-31T23:59:59Z', 'review-42');
    expect(keyed.pointsEarned).toBe(15);
    const repeat = await at('2024-12-31T23:59:59Z', 'review-42');
    expect(repeat).toMatchObject({
      pointsEarned: 0,
      rules: [{ outcome: 'alreadyEarned', loyaltyTransactionId: keyed.transactions[0].id }],
    });
    expect(await balance(tenant, bob.id)).toBe(30 + 22 + 22 + 15 + 15 + 15);
  });

  it('refuses bad input (400), unknown members (422), members who left (409), and other organizations alike', async () => {
    const tenant = await t.tenant();
    const cara = await member(tenant, 'cara@example.com');
    expect((await event(tenant, { loyaltyMembershipId: cara.id })).statusCode).toBe(400);
    expect((await event(tenant, { event: 'signup' })).statusCode).toBe(400);
    expect(
      (await event(tenant, { event: 'signup', loyaltyMembershipId: cara.id, customer: 'cara@example.com' })).statusCode,
    ).toBe(400);
    expect((await event(tenant, { event: 'sign up', loyaltyMembershipId: cara.id })).statusCode).toBe(400);
    expect(
      (await event(tenant, { event: 'signup', loyaltyMembershipId: cara.id, occurredAt: '2999-01-01T00:00:00Z' }))
        .statusCode,
    ).toBe(400);
    expect(
      (await event(tenant, { event: 'signup', loyaltyMembershipId: cara.id, occurredAt: '2025-01-01T00:00:00' }))
        .statusCode,
    ).toBe(400);
    expect((await event(tenant, { event: 'signup', loyaltyMembershipId: GHOST })).statusCode).toBe(422);
    expect((await event(tenant, { event: 'signup', customer: 'nobody@example.com' })).statusCode).toBe(422);
    const { data } = await ok(req(tenant, 'POST', '/customers/import', { data: [{ email: 'nonmember@example.com' }] }));
    expect((await event(tenant, { event: 'signup', customer: data[0].id })).statusCode).toBe(422);

    const other = await t.tenant();
    const foreign = await member(other, 'foreign@example.com');
    const response = await event(tenant, { event: 'signup', loyaltyMembershipId: foreign.id });
    expect(response.statusCode).toBe(422);
    expect((await event(tenant, { event: 'signup', customer: 'foreign@example.com' })).statusCode).toBe(422);

    await ok(req(tenant, 'POST', `/loyalty-memberships/${cara.id}/leave`));
    expect((await event(tenant, { event: 'signup', loyaltyMembershipId: cara.id })).statusCode).toBe(409);
  });

  it('records a referral by code (referral.updated once), refusing unknown and own codes', async () => {
    const tenant = await t.tenant();
    const referrer = await member(tenant, 'referrer@example.com');
    const friend = await member(tenant, 'friend@example.com');
    const result = await ok(
      event(tenant, {
        loyaltyMembershipId: friend.id,
        event: 'signup',
        referralCode: referrer.referralCode.toLowerCase(),
      }),
    );
    expect(result.referral).toMatchObject({
      referrerMembershipId: referrer.id,
      referredMembershipId: friend.id,
      referredCustomerId: friend.customerId,
      status: 'pending',
      orderId: null,
      attributedAt: null,
    });
    await ok(event(tenant, { loyaltyMembershipId: friend.id, event: 'signup', referralCode: referrer.referralCode }));
    expect((await eventsOf(t, tenant.organization.id, 'referral.updated')).map((row) => row.payload)).toEqual([
      result.referral,
    ]);

    const third = await member(tenant, 'third@example.com');
    expect(
      (await event(tenant, { loyaltyMembershipId: friend.id, event: 'signup', referralCode: third.referralCode }))
        .statusCode,
    ).toBe(409);
    expect(
      (await event(tenant, { loyaltyMembershipId: third.id, event: 'signup', referralCode: third.referralCode }))
        .statusCode,
    ).toBe(422);
    expect(
      (await event(tenant, { loyaltyMembershipId: third.id, event: 'signup', referralCode: 'NOPE2345' })).statusCode,
    ).toBe(422);
  });
});

describe('POST /loyalty-stamps', () => {
  const coupon = { type: 'amountCoupon', amountCents: 500, productFilter: null, minimumOrderTotalCents: null };

  it('starts, stamps and completes cards, issuing the reward and carrying overflow to the next card', async () => {
    const tenant = await t.tenant();
    const dan = await member(tenant, 'dan@example.com');
    const card = await rule(tenant, 'stampCards', 'Coffee', { stampsRequired: 3, reward: coupon });

    const first = await ok(stamp(tenant, { customer: 'dan@example.com' }));
    expect(first).toMatchObject({
      loyaltyMembershipId: dan.id,
      loyaltyRuleId: card.id,
      stampsAdded: 1,
      duplicate: false,
      rewards: [],
      transactions: [],
    });
    expect(first.stampCards).toEqual([
      expect.objectContaining({
        loyaltyRuleId: card.id,
        stamps: 1,
        stampsRequired: 3,
        completedAt: null,
        loyaltyRewardId: null,
      }),
    ]);

    const second = await ok(stamp(tenant, { loyaltyMembershipId: dan.id, stamps: 6 }));
    expect(second.stampCards.map((c: any) => [c.stamps, Boolean(c.completedAt)])).toEqual([
      [3, true],
      [3, true],
      [1, false],
    ]);
    expect(second.stampCards[0].id).toBe(first.stampCards[0].id);
    expect(second.rewards).toHaveLength(2);
    expect(second.rewards[0]).toMatchObject({
      loyaltyMembershipId: dan.id,
      loyaltyRuleId: card.id,
      stampCardId: second.stampCards[0].id,
      status: 'pending',
      reward: coupon,
      ruleSnapshot: { id: card.id, name: 'Coffee', section: 'stampCards' },
      rule: { id: card.id, name: 'Coffee', section: 'stampCards' },
    });
    expect(second.stampCards[0].loyaltyRewardId).toBe(second.rewards[0].id);

    const names = (await eventsOf(t, tenant.organization.id))
      .map((row) => row.name)
      .filter((name) => name.startsWith('stampCard') || name.startsWith('loyaltyReward'));
    expect(names).toEqual([
      'stampCard.created',
      'stampCard.updated', // first stamp
      'stampCard.updated',
      'stampCard.completed',
      'stampCard.created',
      'stampCard.updated',
      'stampCard.completed',
      'stampCard.created',
      'stampCard.updated',
      'loyaltyReward.issued',
      'loyaltyReward.issued',
    ]);
    const completed = await eventsOf(t, tenant.organization.id, 'stampCard.completed');
    expect(completed[0]!.payload).toMatchObject({
      id: second.stampCards[0].id,
      stamps: 3,
      loyaltyRewardId: second.rewards[0].id,
    });
    const rewards = await ok(
      req(
        tenant,
        'GET',
        `/loyalty-rewards?filter=${encodeURIComponent(JSON.stringify({ stampCardId: second.stampCards[1].id }))}`,
      ),
    );
    expect(rewards.data.map((reward: any) => reward.id)).toEqual([second.rewards[1].id]);
  });

  it('completes a card whose reward would be born expired (its fixed date has passed) without issuing it, the card unlinked', async () => {
    const tenant = await t.tenant();
    const fay = await member(tenant, 'fay@example.com');
    const card = await rule(tenant, 'stampCards', 'Summer card', {
      stampsRequired: 2,
      reward: { ...coupon, expiry: { type: 'fixedDate', expiresAt: '2099-09-01T00:00:00Z' } },
    });
    await ok(stamp(tenant, { loyaltyMembershipId: fay.id }));
    // The summer is over: the rule's fixed date is now behind us.
    await db()
      .updateTable('loyalty_rules')
      .set({ config: sql`jsonb_set(config, '{reward,expiry,expiresAt}', '"2020-09-01T00:00:00Z"')` })
      .where('organization_id', '=', tenant.organization.id)
      .where('id', '=', card.id)
      .execute();
    const full = await ok(stamp(tenant, { loyaltyMembershipId: fay.id, stamps: 2 }));
    expect(full.rewards).toEqual([]);
    expect(full.stampCards.map((c: any) => [c.stamps, Boolean(c.completedAt), c.loyaltyRewardId])).toEqual([
      [2, true, null],
      [1, false, null],
    ]);
    const stored = await db()
      .selectFrom('stamp_cards')
      .select(['id', 'loyalty_reward_id'])
      .where('organization_id', '=', tenant.organization.id)
      .execute();
    expect(stored.map((row) => row.loyalty_reward_id)).toEqual([null, null]);
    expect(await eventsOf(t, tenant.organization.id, 'loyaltyReward.issued')).toEqual([]);
    expect((await eventsOf(t, tenant.organization.id, 'stampCard.completed'))[0]!.payload).toMatchObject({
      id: full.stampCards[0].id,
      loyaltyRewardId: null,
    });
    expect((await ok(req(tenant, 'GET', '/loyalty-rewards'))).data).toEqual([]);
  });

  it('is idempotent by key, credits points rewards to the ledger, and needs a rule when there are several', async () => {
    const tenant = await t.tenant();
    const eve = await member(tenant, 'eve@example.com');
    const points = await rule(tenant, 'stampCards', 'Points card', {
      stampsRequired: 2,
      reward: { type: 'points', amount: 40 },
    });
    await ok(stamp(tenant, { loyaltyMembershipId: eve.id, key: 'visit-1' }));
    const repeat = await ok(stamp(tenant, { loyaltyMembershipId: eve.id, key: 'visit-1' }));
    expect(repeat).toMatchObject({ duplicate: true, stampsAdded: 0, stampCards: [{ stamps: 1 }] });
    const full = await ok(stamp(tenant, { loyaltyMembershipId: eve.id, key: 'visit-2' }));
    expect(full.rewards).toEqual([]);
    expect(full.transactions).toEqual([
      expect.objectContaining({
        kind: 'earned',
        points: 40,
        loyaltyRuleId: points.id,
        reason: 'Stamp card "Points card" completed',
      }),
    ]);
    expect(await balance(tenant, eve.id)).toBe(40);

    const other = await rule(tenant, 'stampCards', 'Second', { stampsRequired: 5, reward: coupon });
    expect((await stamp(tenant, { loyaltyMembershipId: eve.id })).statusCode).toBe(400);
    expect((await ok(stamp(tenant, { loyaltyMembershipId: eve.id, stampCardRuleId: other.id }))).loyaltyRuleId).toBe(
      other.id,
    );
    expect((await stamp(tenant, { loyaltyMembershipId: eve.id, stampCardRuleId: GHOST })).statusCode).toBe(422);
    expect(
      (await stamp(tenant, { loyaltyMembershipId: eve.id, stampCardRuleId: other.id, stamps: 0 })).statusCode,
    ).toBe(400);
    expect(
      (await stamp(tenant, { loyaltyMembershipId: eve.id, stampCardRuleId: other.id, stamps: 1001 })).statusCode,
    ).toBe(400);

    const foreignTenant = await t.tenant();
    const foreignRule = await rule(foreignTenant, 'stampCards', 'Theirs', { stampsRequired: 2, reward: coupon });
    expect((await stamp(tenant, { loyaltyMembershipId: eve.id, stampCardRuleId: foreignRule.id })).statusCode).toBe(
      422,
    );
    expect((await stamp(foreignTenant, { loyaltyMembershipId: eve.id })).statusCode).toBe(422);
  });

  it('stamps concurrently without losing or doubling a stamp (row locks)', async () => {
    const tenant = await t.tenant();
    const max = await member(tenant, 'max@example.com');
    await rule(tenant, 'stampCards', 'Three', { stampsRequired: 3, reward: coupon });
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => stamp(tenant, { loyaltyMembershipId: max.id, key: `c-${i % 8}` })),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(10).fill(200));
    expect(answers.filter((answer) => answer.json().duplicate).length).toBe(2);
    const cards = await db()
      .selectFrom('stamp_cards')
      .selectAll()
      .where('loyalty_membership_id', '=', max.id)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    expect(cards.map((card) => card.stamps)).toEqual([3, 3, 2]);
    expect(cards.filter((card) => card.completed_at === null)).toHaveLength(1);
    expect(
      (
        await ok(
          req(
            tenant,
            'GET',
            `/loyalty-rewards?filter=${encodeURIComponent(JSON.stringify({ loyaltyMembershipId: max.id }))}`,
          ),
        )
      ).data,
    ).toHaveLength(2);
  });

  it('answers 422 when the program has no stamp card rule', async () => {
    const tenant = await t.tenant();
    const fay = await member(tenant, 'fay@example.com');
    expect((await stamp(tenant, { loyaltyMembershipId: fay.id })).statusCode).toBe(422);
  });
});

describe('endpoint buckets', () => {
  it('refuses the loyalty-events request after a burst of 120 with 429 while other endpoints still answer', async () => {
    const tenant = await t.tenant();
    const gus = await member(tenant, 'gus@example.com');
    // Bodies refused by validation still spend their tokens (D14) and cost no database work, so the burst is quick;
    // the bucket refills 2 tokens a second, which the bound allows for on a slow machine.
    const started = performance.now();
    let firstRefused = -1;
    for (let i = 0; i < 200 && firstRefused < 0; i += 1) {
      const response = await event(tenant, {});
      if (response.statusCode === 429) firstRefused = i;
      else expect(response.statusCode).toBe(400);
    }
    const elapsedSeconds = (performance.now() - started) / 1000;
    expect(firstRefused).toBeGreaterThanOrEqual(120);
    expect(firstRefused).toBeLessThanOrEqual(120 + Math.ceil(elapsedSeconds * 2));
    const refused = await event(tenant, { loyaltyMembershipId: gus.id, event: 'ping' });
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.json().error.code).toBe('TOO_MANY_REQUESTS');
    // Its own bucket only: stamps (own bucket) and reads still answer.
    expect((await stamp(tenant, { loyaltyMembershipId: gus.id })).statusCode).toBe(422);
    expect((await req(tenant, 'GET', `/loyalty-memberships/${gus.id}`)).statusCode).toBe(200);
  });
});

describe('POST /loyalty-history', () => {
  it('applies historical entries in createdAt order with their dates, idempotent by key, skipping unknown members', async () => {
    const tenant = await t.tenant();
    const hal = await member(tenant, 'hal@example.com');
    const rows = [
      {
        customer: 'hal@example.com',
        kind: 'spent',
        points: -30,
        createdAt: '2023-02-01T00:00:00Z',
        reason: 'Old shop redemption',
        key: 'old-2',
      },
      {
        loyaltyMembershipId: hal.id,
        kind: 'earned',
        points: 100,
        createdAt: '2023-01-01T00:00:00+01:00',
        eventName: 'legacy',
        key: 'old-1',
      },
      { customer: 'ghost@example.com', kind: 'earned', points: 5, createdAt: '2023-01-05T00:00:00Z' },
      {
        loyaltyMembershipId: hal.id,
        kind: 'adjusted',
        points: -10,
        createdAt: '2023-03-01T00:00:00Z',
        metadata: { source: 'legacy' },
      },
    ];
    const result = await ok(req(tenant, 'POST', '/loyalty-history', { data: rows }));
    expect(result.skipped).toEqual([
      { index: 2, message: 'Customer "ghost@example.com" does not exist in this organization.' },
    ]);
    expect(result.data.map((entry: any) => [entry.kind, entry.points, entry.balanceAfter, entry.createdAt])).toEqual([
      ['earned', 100, 100, '2022-12-31T23:00:00.000Z'],
      ['spent', -30, 70, '2023-02-01T00:00:00.000Z'],
      ['adjusted', -10, 60, '2023-03-01T00:00:00.000Z'],
    ]);
    expect(result.data[2].metadata).toEqual({ source: 'legacy' });
    expect(await balance(tenant, hal.id)).toBe(60);
    expect((await eventsOf(t, tenant.organization.id, 'loyaltyTransaction.created')).length).toBe(3);

    const again = await ok(req(tenant, 'POST', '/loyalty-history', { data: rows.slice(0, 2) }));
    expect(again.data).toEqual([]);
    expect(again.skipped.map((skip: any) => skip.index)).toEqual([0, 1]);
    expect(await balance(tenant, hal.id)).toBe(60);

    const strict = await req(tenant, 'POST', '/loyalty-history', { strict: true, data: [rows[2]] });
    expect(strict.statusCode).toBe(422);
  });

  it('refuses signs that contradict the kind, future dates and overdrafts, writing nothing', async () => {
    // The endpoint bucket (30) pays for 3 requests of cost 10 at a time, so each refusal gets a fresh organization.
    const base = { loyaltyMembershipId: GHOST, createdAt: '2024-01-01T00:00:00Z' };
    for (const row of [
      { ...base, kind: 'earned', points: -5 },
      { ...base, kind: 'spent', points: 5 },
      { ...base, kind: 'adjusted', points: 0 },
      { ...base, kind: 'earned', points: 5, createdAt: '2999-01-01T00:00:00Z' },
      { ...base, kind: 'bonus', points: 5 },
      { kind: 'earned', points: 5, createdAt: base.createdAt },
    ]) {
      expect(
        (await req(await t.tenant(), 'POST', '/loyalty-history', { data: [row] })).statusCode,
        JSON.stringify(row),
      ).toBe(400);
    }
    const tenant = await t.tenant();
    const ida = await member(tenant, 'ida@example.com');
    const mine = { ...base, loyaltyMembershipId: ida.id };
    const overdraft = await req(tenant, 'POST', '/loyalty-history', {
      data: [
        { ...mine, kind: 'earned', points: 10 },
        { ...mine, kind: 'spent', points: -11, createdAt: '2024-02-01T00:00:00Z' },
      ],
    });
    expect(overdraft.statusCode).toBe(409);
    expect(overdraft.json().error.message).toContain('Row 1');
    expect(await balance(tenant, ida.id)).toBe(0);
    expect(
      (
        await req(tenant, 'POST', '/loyalty-history', {
          data: Array.from({ length: 1001 }, () => ({ ...mine, kind: 'earned', points: 1 })),
        })
      ).statusCode,
    ).toBe(413);
  });

  it('has its own bucket of 30 requests refilled at 1/s, while the organization bucket is charged the cost of 10', async () => {
    const tenant = await t.tenant({ apiRequestsPerMinute: 100_000 });
    const started = performance.now();
    let firstRefused = -1;
    let refusal: Awaited<ReturnType<typeof req>> | undefined;
    for (let i = 0; i < 200 && firstRefused < 0; i += 1) {
      const response = await req(tenant, 'POST', '/loyalty-history', {});
      if (response.statusCode === 429) [firstRefused, refusal] = [i, response];
    }
    expect(firstRefused).toBeGreaterThanOrEqual(30);
    expect(firstRefused).toBeLessThanOrEqual(30 + Math.ceil((performance.now() - started) / 1000));
    expect(refusal!.json().error.message).toMatch(/endpoint "loyalty-history": the request costs 1 token/);
    // The organization bucket paid 10 per request: 100,000 - 10 × (accepted requests), give or take the refill.
    const orgLeft = Number(/r=(\d+)/.exec(String(refusal!.headers.ratelimit))![1]);
    expect(orgLeft).toBeLessThanOrEqual(
      100_000 - 10 * firstRefused + Math.ceil((performance.now() - started) / 1000) * 1_667,
    );
    expect((await req(tenant, 'POST', '/loyalty-events', {})).statusCode).toBe(400);
  });
});

describe('POST /loyalty-activity/bulk-expire', () => {
  it('expires what is left of the credits the filter selects, one entry per member', async () => {
    const tenant = await t.tenant();
    const jo = await member(tenant, 'jo@example.com');
    const kim = await member(tenant, 'kim@example.com');
    const adjust = (id: string, points: number) =>
      ok(req(tenant, 'POST', `/loyalty-memberships/${id}/points-adjustments`, { points, reason: 'test' }));
    await adjust(jo.id, 50);
    await adjust(jo.id, 30);
    await adjust(jo.id, -60); // FIFO: the 50 credit is spent, 20 left of the 30
    await adjust(kim.id, 40);
    const filter = encodeURIComponent(JSON.stringify({ 'customer.email': { $in: ['jo@example.com'] } }));
    const result = await ok(
      req(tenant, 'POST', `/loyalty-activity/bulk-expire?filter=${filter}`, { reason: 'Program closed' }),
    );
    expect(result).toEqual({ count: 1, points: 20 });
    expect(await balance(tenant, jo.id)).toBe(0);
    expect(await balance(tenant, kim.id)).toBe(40);
    const expired = await eventsOf(t, tenant.organization.id, 'loyaltyTransaction.created');
    expect(expired.at(-1)!.payload).toMatchObject({
      loyaltyMembershipId: jo.id,
      kind: 'expired',
      points: -20,
      balanceAfter: 0,
      reason: 'Program closed',
    });
    expect(await ok(req(tenant, 'POST', `/loyalty-activity/bulk-expire?filter=${filter}`))).toEqual({
      count: 0,
      points: 0,
    });

    // No filter: everything left in the organization (not another organization's).
    const other = await t.tenant();
    const lee = await member(other, 'lee@example.com');
    await ok(req(other, 'POST', `/loyalty-memberships/${lee.id}/points-adjustments`, { points: 9, reason: 'x' }));
    expect(await ok(req(tenant, 'POST', '/loyalty-activity/bulk-expire'))).toEqual({ count: 1, points: 40 });
    expect(await balance(other, lee.id)).toBe(9);
    expect(
      (await req(tenant, 'POST', `/loyalty-activity/bulk-expire?filter=${encodeURIComponent('{"nope":1}')}`))
        .statusCode,
    ).toBe(400);
    // A JSON null is not "no body" (found by the bad-input fuzzer), and changes nothing.
    const nullBody = await t.request({
      method: 'POST',
      url: '/v1/loyalty-activity/bulk-expire',
      key: other.key,
      body: 'null',
      headers: { 'content-type': 'application/json' },
    });
    expect(nullBody.statusCode).toBe(400);
    expect(await balance(other, lee.id)).toBe(9);
  });
});
