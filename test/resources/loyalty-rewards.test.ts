import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertIssuedRewards } from '../../src/resources/loyalty/engine/rewards/queries.js';
import { expireAllDueRewards } from '../../src/resources/loyalty/engine/rewards/transitions.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { nextMillisecond } from '../support/clock.js';
import { eventsOf } from '../support/events.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const CODE =
  /^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{4}-[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{4}-[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{4}$/;
const DAY = 86_400_000;

/** A reward as events carry it: the sixteen fields, without the embeds. */
const base = ({ customer: _c, membership: _m, rule: _r, ...reward }: Record<string, unknown>) => reward;

const coupon = { type: 'amountCoupon', amountCents: 500, productFilter: null, minimumOrderTotalCents: null };

interface Member {
  customerId: string;
  membershipId: string;
  email: string;
}

interface Org {
  tenant: Tenant;
  id: string;
  key: string;
  programId: string;
}

let referral = 0;

async function org(): Promise<Org> {
  const tenant = await t.tenant();
  const program = await db()
    .selectFrom('loyalty_programs')
    .select('id')
    .where('organization_id', '=', tenant.organization.id)
    .executeTakeFirstOrThrow();
  return { tenant, id: tenant.organization.id, key: tenant.key, programId: program.id };
}

async function member(
  o: Org,
  email: string,
  fields: {
    firstName?: string;
    lastName?: string;
    metadata?: Record<string, string>;
    optOut?: boolean;
    leftAt?: string;
  } = {},
): Promise<Member> {
  const customerId = uuidv7();
  const membershipId = uuidv7();
  await db()
    .insertInto('customers')
    .values({
      organization_id: o.id,
      id: customerId,
      email,
      first_name: fields.firstName ?? null,
      last_name: fields.lastName ?? null,
      metadata: JSON.stringify(fields.metadata ?? {}),
      email_opt_out: fields.optOut ?? false,
      email_opt_out_at: fields.optOut ? new Date('2025-07-01T00:00:00Z') : null,
      email_opt_out_source: fields.optOut ? 'merchant' : null,
    })
    .execute();
  await db()
    .insertInto('loyalty_memberships')
    .values({
      organization_id: o.id,
      id: membershipId,
      customer_id: customerId,
      loyalty_program_id: o.programId,
      referral_code: `REF${String((referral += 1)).padStart(5, '0')}`,
      left_at: fields.leftAt ? new Date(fields.leftAt) : null,
    })
    .execute();
  return { customerId, membershipId, email };
}

const issue = (o: Org, body: unknown) => t.request({ method: 'POST', url: '/v1/loyalty-rewards', key: o.key, body });
const issueOk = async (o: Org, data: Record<string, unknown>) => {
  const response = await issue(o, { data });
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
};
const get = async (o: Org, id: string, include = 'customer,membership,rule') => {
  const response = await t.request({
    url: `/v1/loyalty-rewards/${id}${include ? `?include=${include}` : ''}`,
    key: o.key,
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
};
const list = async (o: Org, query: string) => {
  const response = await t.request({ url: `/v1/loyalty-rewards?${query}`, key: o.key });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { data: any[]; nextCursor: string | null };
};
const filter = (document: unknown) => `filter=${encodeURIComponent(JSON.stringify(document))}`;
const redeem = (o: Org, body: unknown) =>
  t.request({ method: 'POST', url: '/v1/loyalty-rewards/redeem', key: o.key, body });
const revoke = (o: Org, id: string, body?: unknown) =>
  t.request({
    method: 'POST',
    url: `/v1/loyalty-rewards/${id}/revoke`,
    key: o.key,
    ...(body === undefined ? {} : { body }),
  });

describe('POST /v1/loyalty-rewards (D17)', () => {
  let o: Org;
  let alice: Member;
  beforeAll(async () => {
    o = await org();
    alice = await member(o, 'alice@example.com', { firstName: 'Alice', lastName: 'Smith' });
  });

  it('issues a pending reward with a fresh code, the sixteen fields, customer, membership and rule (null) embedded', async () => {
    const before = Date.now();
    const response = await issue(o, {
      data: { loyaltyMembershipId: alice.membershipId, reward: coupon, reason: 'Sorry about the late parcel' },
    });
    expect(response.statusCode, response.body).toBe(201);
    const reward = response.json();
    expect(Object.keys(reward).sort()).toEqual(
      [
        'id',
        'loyaltyMembershipId',
        'loyaltyRuleId',
        'stampCardId',
        'loyaltyTransactionId',
        'reward',
        'status',
        'code',
        'redeemedAt',
        'expiresAt',
        'revokedAt',
        'metadata',
        'fulfillment',
        'ruleSnapshot',
        'createdAt',
        'updatedAt',
        'customer',
        'membership',
        'rule',
      ].sort(),
    );
    expect(reward).toMatchObject({
      loyaltyMembershipId: alice.membershipId,
      loyaltyRuleId: null,
      stampCardId: null,
      loyaltyTransactionId: null,
      reward: coupon,
      status: 'pending',
      redeemedAt: null,
      expiresAt: null,
      revokedAt: null,
      metadata: {},
      fulfillment: { mode: 'manual', status: 'active' },
      ruleSnapshot: null,
      rule: null,
    });
    expect(reward.code).toMatch(CODE);
    expect(reward.createdAt).toMatch(ISO);
    expect(Date.parse(reward.createdAt)).toBeGreaterThanOrEqual(before - 5);
    expect(reward.customer).toMatchObject({
      id: alice.customerId,
      email: 'alice@example.com',
      firstName: 'Alice',
      lastName: 'Smith',
    });
    expect(Object.keys(reward.customer)).toHaveLength(14);
    expect(reward.membership).toMatchObject({
      id: alice.membershipId,
      customerId: alice.customerId,
      loyaltyProgramId: o.programId,
      leftAt: null,
    });
    expect(Object.keys(reward.membership)).toHaveLength(11);

    // D17: the reason is on the member's activity feed entry.
    const activity = await db()
      .selectFrom('loyalty_activity')
      .selectAll()
      .where('organization_id', '=', o.id)
      .where('loyalty_reward_id', '=', reward.id)
      .execute();
    expect(activity).toHaveLength(1);
    expect(activity[0]).toMatchObject({
      type: 'rewardIssued',
      reason: 'Sorry about the late parcel',
      loyalty_membership_id: alice.membershipId,
      customer_id: alice.customerId,
    });

    // loyaltyReward.issued carries the reward exactly as the API shows it with its embeds.
    const events = await eventsOf(t, o.id, 'loyaltyReward.issued');
    expect(events.map((event) => (event.payload as { id: string }).id)).toEqual([reward.id]);
    // The event carries the sixteen fields, exactly as GET shows them without include.
    expect(events[0]!.payload).toEqual(base(reward));
    expect(events[0]!.payload).toEqual(await get(o, reward.id, ''));
    // The answer is the stored reward, with the embeds GET shows.
    expect(reward).toEqual(await get(o, reward.id));
  });

  it('fans loyaltyReward.issued out to the endpoints subscribed to it, in the statement that writes the reward', async () => {
    const subscribed = await t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key: o.key,
      body: {
        data: {
          url: 'https://93.184.215.14/hook',
          events: ['loyaltyReward.issued'],
          hmacSecret: 'plain-secret-0123456789abcdef',
        },
      },
    });
    expect(subscribed.statusCode, subscribed.body).toBe(201);
    const endpointId = subscribed.json<{ id: string }>().id;
    const first = await issueOk(o, { loyaltyMembershipId: alice.membershipId, reward: coupon });
    const second = await issueOk(o, { loyaltyMembershipId: alice.membershipId, reward: coupon });
    const deliveries = await db()
      .selectFrom('webhook_deliveries as d')
      .innerJoin('events as e', (join) =>
        join.onRef('e.organization_id', '=', 'd.organization_id').onRef('e.id', '=', 'd.event_id'),
      )
      .select(['d.sequence', 'd.status', 'd.event_name', 'e.payload'])
      .where('d.organization_id', '=', o.id)
      .where('d.webhook_id', '=', endpointId)
      .orderBy('d.sequence')
      .execute();
    expect(
      deliveries.map((delivery) => [
        delivery.sequence,
        delivery.status,
        delivery.event_name,
        (delivery.payload as { id: string }).id,
      ]),
    ).toEqual([
      [1, 'pending', 'loyaltyReward.issued', first.id],
      [2, 'pending', 'loyaltyReward.issued', second.id],
    ]);
    await t.request({ method: 'DELETE', url: `/v1/webhooks/${endpointId}`, key: o.key });
  });

  it('accepts every coupon type and stores it as given', async () => {
    const rewards = [
      {
        type: 'amountCoupon',
        amountCents: 1,
        productFilter: { slugs: ['mug'], tags: ['sale'] },
        minimumOrderTotalCents: 1000,
      },
      { type: 'percentageCoupon', percentageDiscount: 15, productFilter: null, minimumOrderTotalCents: null },
      { type: 'freeShipping', maximumValueCents: null },
      { type: 'giftCard', amountCents: 2500, expirySeconds: 86_400 },
    ];
    for (const reward of rewards) {
      const issued = await issueOk(o, { loyaltyMembershipId: alice.membershipId, reward });
      expect(issued.reward).toEqual(reward);
      expect((await get(o, issued.id, '')).reward).toEqual(reward);
    }
  });

  it('also takes the fields at the top level (not both)', async () => {
    const response = await issue(o, { loyaltyMembershipId: alice.membershipId, reward: coupon });
    expect(response.statusCode, response.body).toBe(201);
    const both = await issue(o, { data: { loyaltyMembershipId: alice.membershipId, reward: coupon }, reason: 'x' });
    expect(both.statusCode).toBe(400);
  });

  const bounds: [string, Record<string, unknown>, number][] = [
    [
      'percentageDiscount 0',
      { type: 'percentageCoupon', percentageDiscount: 0, productFilter: null, minimumOrderTotalCents: null },
      400,
    ],
    [
      'percentageDiscount 101',
      { type: 'percentageCoupon', percentageDiscount: 101, productFilter: null, minimumOrderTotalCents: null },
      400,
    ],
    [
      'percentageDiscount 1',
      { type: 'percentageCoupon', percentageDiscount: 1, productFilter: null, minimumOrderTotalCents: null },
      201,
    ],
    [
      'percentageDiscount 100',
      { type: 'percentageCoupon', percentageDiscount: 100, productFilter: null, minimumOrderTotalCents: null },
      201,
    ],
    [
      'percentageDiscount 1.5',
      { type: 'percentageCoupon', percentageDiscount: 1.5, productFilter: null, minimumOrderTotalCents: null },
      400,
    ],
    ['expiry days 0', { ...coupon, expiry: { type: 'daysAfterIssuance', days: 0 } }, 400],
    ['expiry days 3651', { ...coupon, expiry: { type: 'daysAfterIssuance', days: 3651 } }, 400],
    ['expiry days 1', { ...coupon, expiry: { type: 'daysAfterIssuance', days: 1 } }, 201],
    ['expiry days 3650', { ...coupon, expiry: { type: 'daysAfterIssuance', days: 3650 } }, 201],
    ['amountCents 0', { ...coupon, amountCents: 0 }, 400],
    ['amountCents 2^53', { ...coupon, amountCents: 2 ** 53 }, 400],
    ['amountCents 2^53 - 1', { ...coupon, amountCents: 2 ** 53 - 1 }, 201],
    ['giftCard amountCents 0', { type: 'giftCard', amountCents: 0, expirySeconds: null }, 400],
    ['giftCard expirySeconds 0', { type: 'giftCard', amountCents: 1, expirySeconds: 0 }, 400],
    ['giftCard expirySeconds 2^53', { type: 'giftCard', amountCents: 1, expirySeconds: 2 ** 53 }, 400],
    ['freeShipping maximumValueCents 0', { type: 'freeShipping', maximumValueCents: 0 }, 400],
    ['freeShipping maximumValueCents 2^53', { type: 'freeShipping', maximumValueCents: 2 ** 53 }, 400],
    ['minimumOrderTotalCents 0', { ...coupon, minimumOrderTotalCents: 0 }, 400],
    ['minimumOrderTotalCents 2^53', { ...coupon, minimumOrderTotalCents: 2 ** 53 }, 400],
    [
      'a missing required field (productFilter)',
      { type: 'amountCoupon', amountCents: 5, minimumOrderTotalCents: null },
      400,
    ],
    ['an unknown field', { ...coupon, colour: 'red' }, 400],
    ['an unknown type', { type: 'hug' }, 400],
    ['a points reward', { type: 'points', amount: 100 }, 400],
    ['an unknown expiry type', { ...coupon, expiry: { type: 'someday' } }, 400],
    [
      'a fixedDate expiry without an offset',
      { ...coupon, expiry: { type: 'fixedDate', expiresAt: '2099-01-01T00:00:00' } },
      400,
    ],
  ];
  it.each(bounds)('%s → %i', async (_name, reward, status) => {
    const before = await eventsOf(t, o.id, 'loyaltyReward.issued');
    const response = await issue(o, { data: { loyaltyMembershipId: alice.membershipId, reward } });
    expect(response.statusCode, response.body).toBe(status);
    if (status === 400) {
      expect(response.json().error.code).toBe('VALIDATION_ERROR');
      expect((await eventsOf(t, o.id, 'loyaltyReward.issued')).length).toBe(before.length);
    }
  });

  it('says where points go when a points reward is sent', async () => {
    const response = await issue(o, {
      data: { loyaltyMembershipId: alice.membershipId, reward: { type: 'points', amount: 100 } },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toMatch(/points-adjustments/);
    expect(response.json().error.details).toEqual([{ path: 'body.data.reward.type', message: expect.any(String) }]);
  });

  it('requires loyaltyMembershipId and reward, refuses unknown fields and an expiresAt without offset or in the past', async () => {
    for (const data of [
      { reward: coupon },
      { loyaltyMembershipId: alice.membershipId },
      { loyaltyMembershipId: alice.membershipId, reward: coupon, metadata: {} },
      { loyaltyMembershipId: alice.membershipId, reward: coupon, expiresAt: '2099-01-01T00:00:00' },
      { loyaltyMembershipId: alice.membershipId, reward: coupon, expiresAt: '2020-01-01T00:00:00Z' },
      {
        loyaltyMembershipId: alice.membershipId,
        reward: { ...coupon, expiry: { type: 'fixedDate', expiresAt: '2020-01-01T00:00:00Z' } },
      },
      { loyaltyMembershipId: 'nope', reward: coupon },
      { loyaltyMembershipId: alice.membershipId, reward: coupon, reason: '' },
    ]) {
      const response = await issue(o, { data });
      expect(response.statusCode, JSON.stringify(data)).toBe(400);
    }
    expect((await issue(o, {})).statusCode).toBe(400);
  });

  it("answers 422 for an unknown or another organization's membership, 409 for one that left", async () => {
    const other = await org();
    const stranger = await member(other, 'stranger@example.com');
    const left = await member(o, 'gone@example.com', { leftAt: '2026-01-01T00:00:00Z' });
    const before = (await eventsOf(t, o.id)).length;
    for (const id of [uuidv7(), stranger.membershipId]) {
      const response = await issue(o, { data: { loyaltyMembershipId: id, reward: coupon } });
      expect(response.statusCode, response.body).toBe(422);
      expect(response.json().error.details).toEqual([
        { path: 'body.data.loyaltyMembershipId', message: expect.any(String) },
      ]);
    }
    const response = await issue(o, { data: { loyaltyMembershipId: left.membershipId, reward: coupon } });
    expect(response.statusCode, response.body).toBe(409);
    expect((await eventsOf(t, o.id)).length).toBe(before);
    expect(
      await db()
        .selectFrom('loyalty_rewards')
        .select('id')
        .where('organization_id', '=', o.id)
        .where('loyalty_membership_id', '=', left.membershipId)
        .execute(),
    ).toEqual([]);
  });

  it('resolves the expiry: expiresAt, else reward.expiry, else the program default', async () => {
    const explicit = await issueOk(o, {
      loyaltyMembershipId: alice.membershipId,
      reward: { ...coupon, expiry: { type: 'daysAfterIssuance', days: 5 } },
      expiresAt: '2099-06-01T12:00:00+02:00',
    });
    expect(explicit.expiresAt).toBe('2099-06-01T10:00:00.000Z');

    const days = await issueOk(o, {
      loyaltyMembershipId: alice.membershipId,
      reward: { ...coupon, expiry: { type: 'daysAfterIssuance', days: 30 } },
    });
    expect(Date.parse(days.expiresAt) - Date.parse(days.createdAt)).toBe(30 * DAY);

    const fixed = await issueOk(o, {
      loyaltyMembershipId: alice.membershipId,
      reward: { ...coupon, expiry: { type: 'fixedDate', expiresAt: '2098-01-01T00:00:00-05:00' } },
    });
    expect(fixed.expiresAt).toBe('2098-01-01T05:00:00.000Z');
    expect(fixed.reward.expiry).toEqual({ type: 'fixedDate', expiresAt: '2098-01-01T05:00:00.000Z' });

    const never = await issueOk(o, {
      loyaltyMembershipId: alice.membershipId,
      reward: { ...coupon, expiry: { type: 'never' } },
    });
    expect(never.expiresAt).toBeNull();

    await db()
      .updateTable('loyalty_programs')
      .set({ default_reward_expiry: JSON.stringify({ type: 'daysAfterIssuance', days: 7 }) })
      .where('organization_id', '=', o.id)
      .execute();
    try {
      const byDefault = await issueOk(o, { loyaltyMembershipId: alice.membershipId, reward: coupon });
      expect(Date.parse(byDefault.expiresAt) - Date.parse(byDefault.createdAt)).toBe(7 * DAY);
      const overridden = await issueOk(o, {
        loyaltyMembershipId: alice.membershipId,
        reward: { ...coupon, expiry: { type: 'never' } },
      });
      expect(overridden.expiresAt).toBeNull();
    } finally {
      await db()
        .updateTable('loyalty_programs')
        .set({ default_reward_expiry: JSON.stringify({ type: 'never' }) })
        .where('organization_id', '=', o.id)
        .execute();
    }
  });

  it('gives every reward its own code (D18), unique in the organization by index', async () => {
    const issued = await Promise.all(
      Array.from({ length: 40 }, () => issueOk(o, { loyaltyMembershipId: alice.membershipId, reward: coupon })),
    );
    const codes = issued.map((reward) => reward.code as string);
    for (const code of codes) expect(code).toMatch(CODE);
    expect(new Set(codes).size).toBe(codes.length);
    // A code already taken is not inserted again (the service then draws another one), and nothing else is written.
    const activityBefore = await db()
      .selectFrom('loyalty_activity')
      .select('id')
      .where('organization_id', '=', o.id)
      .execute();
    const now = new Date();
    const row = {
      organization_id: o.id,
      id: uuidv7(),
      loyalty_membership_id: alice.membershipId,
      customer_id: alice.customerId,
      loyalty_rule_id: null,
      stamp_card_id: null,
      loyalty_transaction_id: null,
      reward: coupon,
      status: 'pending' as const,
      code: codes[0]!,
      redeemed_at: null,
      expires_at: null,
      revoked_at: null,
      metadata: {},
      fulfillment: null,
      rule_snapshot: null,
      reason: null,
      order_id: null,
      expiring_soon_sent_at: null,
      created_at: now,
      updated_at: now,
    };
    const write = (reward: typeof row) => ({ row: reward, activity: { id: uuidv7(), data: {} } });
    expect(await insertIssuedRewards(db(), o.id, [write(row)])).toEqual({
      issued: new Set(),
      members: new Map([[alice.membershipId, true]]),
    });
    // A membership left since it was read gets no reward, whatever the code, nor one deleted meanwhile; in a batch,
    // the others are still written.
    const gone = await member(o, 'left-meanwhile@example.com', { leftAt: '2026-01-01T00:00:00Z' });
    const forGone = {
      ...row,
      id: uuidv7(),
      code: 'ZZZZ-ZZZZ-ZZZZ',
      loyalty_membership_id: gone.membershipId,
      customer_id: gone.customerId,
    };
    const deleted = { ...row, id: uuidv7(), code: 'YYYY-YYYY-YYYY', loyalty_membership_id: uuidv7() };
    const fine = { ...row, id: uuidv7(), code: 'XXXX-XXXX-XXXX' };
    const batch = await insertIssuedRewards(db(), o.id, [write(forGone), write(deleted), write(fine)]);
    expect(batch.issued).toEqual(new Set([fine.id]));
    expect(batch.members).toEqual(
      new Map([
        [gone.membershipId, false],
        [alice.membershipId, true],
      ]),
    );
    expect(
      await db()
        .selectFrom('loyalty_rewards')
        .select('id')
        .where('organization_id', '=', o.id)
        .where('id', 'in', [row.id, forGone.id, deleted.id])
        .execute(),
    ).toEqual([]);
    await db()
      .deleteFrom('loyalty_activity')
      .where('organization_id', '=', o.id)
      .where('loyalty_reward_id', '=', fine.id)
      .execute();
    await db().deleteFrom('loyalty_rewards').where('organization_id', '=', o.id).where('id', '=', fine.id).execute();
    expect(
      await db().selectFrom('loyalty_activity').select('id').where('organization_id', '=', o.id).execute(),
    ).toHaveLength(activityBefore.length);
  });

  it('issues racing a leave and a delete answer 201 or 409, never an error, and leave no half-written reward', async () => {
    const racer = await member(o, 'racer@example.com');
    const issues = Array.from({ length: 12 }, () =>
      issue(o, { data: { loyaltyMembershipId: racer.membershipId, reward: coupon } }),
    );
    const leave = t.request({ method: 'POST', url: `/v1/loyalty-memberships/${racer.membershipId}/leave`, key: o.key });
    const answers = await Promise.all([...issues, leave]);
    expect(answers.at(-1)!.statusCode, answers.at(-1)!.body).toBe(200);
    const statuses = answers.slice(0, -1).map((answer) => answer.statusCode);
    for (const status of statuses) expect([201, 409]).toContain(status);
    const issued = answers
      .slice(0, -1)
      .filter((answer) => answer.statusCode === 201)
      .map((answer) => answer.json<{ id: string }>().id);
    const stored = await db()
      .selectFrom('loyalty_rewards')
      .select('id')
      .where('organization_id', '=', o.id)
      .where('loyalty_membership_id', '=', racer.membershipId)
      .execute();
    expect(stored.map((row) => row.id).sort()).toEqual([...issued].sort());
    const activity = await db()
      .selectFrom('loyalty_activity')
      .select('loyalty_reward_id')
      .where('organization_id', '=', o.id)
      .where('loyalty_membership_id', '=', racer.membershipId)
      .where('type', '=', 'rewardIssued')
      .execute();
    expect(activity.map((row) => row.loyalty_reward_id).sort()).toEqual([...issued].sort());
    const events = (await eventsOf(t, o.id, 'loyaltyReward.issued')).map(
      (event) => (event.payload as { id: string }).id,
    );
    for (const id of issued) expect(events).toContain(id);

    const doomed = await member(o, 'doomed@example.com');
    const more = Array.from({ length: 12 }, () =>
      issue(o, { data: { loyaltyMembershipId: doomed.membershipId, reward: coupon } }),
    );
    const removal = t.request({ method: 'DELETE', url: `/v1/loyalty-memberships/${doomed.membershipId}`, key: o.key });
    const outcomes = await Promise.all([...more, removal]);
    expect(outcomes.at(-1)!.statusCode, outcomes.at(-1)!.body).toBe(200);
    for (const answer of outcomes.slice(0, -1)) expect([201, 409, 422], answer.body).toContain(answer.statusCode);
    expect(
      await db()
        .selectFrom('loyalty_rewards')
        .select('id')
        .where('organization_id', '=', o.id)
        .where('loyalty_membership_id', '=', doomed.membershipId)
        .execute(),
    ).toEqual([]);
  });

  it('needs loyalty:write', async () => {
    const key = await t.key(o.id, ['loyalty:read']);
    const response = await t.request({
      method: 'POST',
      url: '/v1/loyalty-rewards',
      key,
      body: { data: { loyaltyMembershipId: alice.membershipId, reward: coupon } },
    });
    expect(response.statusCode).toBe(403);
  });
});

describe('redeem, revoke and expiry (D19)', () => {
  let o: Org;
  let bob: Member;
  beforeAll(async () => {
    o = await org();
    bob = await member(o, 'bob@example.com');
  });
  const fresh = () => issueOk(o, { loyaltyMembershipId: bob.membershipId, reward: coupon });

  it('redeems a pending reward by its code (any case, with or without dashes), once', async () => {
    const reward = await fresh();
    const orderId = uuidv7();
    const site = uuidv7();
    await db()
      .insertInto('sites')
      .values({
        organization_id: o.id,
        id: site,
        name: 's',
        domain: 's.example',
        platform: 'custom',
        currency_code: 'USD',
      })
      .execute();
    await db()
      .insertInto('orders')
      .values({
        organization_id: o.id,
        id: orderId,
        site_id: site,
        customer_id: bob.customerId,
        remote_id: 'r1',
        number: '1001',
        currency_code: 'USD',
      })
      .execute();
    const typed = (reward.code as string).toLowerCase().replace(/-/g, '');
    const response = await redeem(o, { code: typed, orderId });
    expect(response.statusCode, response.body).toBe(200);
    const redeemed = response.json();
    expect(redeemed).toMatchObject({
      id: reward.id,
      status: 'redeemed',
      revokedAt: null,
      fulfillment: { mode: 'manual', status: 'deactivated' },
    });
    expect(redeemed.redeemedAt).toMatch(ISO);
    expect(redeemed.updatedAt).toBe(redeemed.redeemedAt);
    expect(redeemed.customer.id).toBe(bob.customerId);
    const events = await eventsOf(t, o.id, 'loyaltyReward.redeemed');
    expect(events.map((event) => event.payload)).toEqual([base(redeemed)]);
    expect(events[0]!.payload).toEqual(await get(o, reward.id, ''));
    const stored = await db()
      .selectFrom('loyalty_rewards')
      .select('order_id')
      .where('organization_id', '=', o.id)
      .where('id', '=', reward.id)
      .executeTakeFirstOrThrow();
    expect(stored.order_id).toBe(orderId);
    const activity = await db()
      .selectFrom('loyalty_activity')
      .select('type')
      .where('organization_id', '=', o.id)
      .where('loyalty_reward_id', '=', reward.id)
      .orderBy('created_at')
      .execute();
    expect(activity.map((row) => row.type)).toEqual(['rewardIssued', 'rewardRedeemed']);

    // Any other transition is 409 and changes nothing.
    const again = await redeem(o, { code: reward.code });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('CONFLICT');
    expect((await revoke(o, reward.id)).statusCode).toBe(409);
    expect((await eventsOf(t, o.id, 'loyaltyReward.redeemed')).length).toBe(1);
    expect((await get(o, reward.id, '')).status).toBe('redeemed');
  });

  it('revokes a pending reward with a reason on the activity feed; a revoked reward cannot be redeemed or revoked again', async () => {
    const reward = await fresh();
    const response = await revoke(o, reward.id, { reason: 'Issued by mistake' });
    expect(response.statusCode, response.body).toBe(200);
    const revoked = response.json();
    expect(revoked).toMatchObject({ status: 'revoked', redeemedAt: null, fulfillment: { status: 'deactivated' } });
    expect(revoked.revokedAt).toMatch(ISO);
    const events = await eventsOf(t, o.id, 'loyaltyReward.revoked');
    expect(events.map((event) => event.payload)).toEqual([base(revoked)]);
    expect(events[0]!.payload).toEqual(await get(o, reward.id, ''));
    const activity = await db()
      .selectFrom('loyalty_activity')
      .selectAll()
      .where('organization_id', '=', o.id)
      .where('loyalty_reward_id', '=', reward.id)
      .where('type', '=', 'rewardRevoked')
      .execute();
    expect(activity.map((row) => row.reason)).toEqual(['Issued by mistake']);

    expect((await redeem(o, { code: reward.code })).statusCode).toBe(409);
    expect((await revoke(o, reward.id, {})).statusCode).toBe(409);
    // No body at all is fine for a revoke.
    const other = await fresh();
    expect((await revoke(o, other.id)).statusCode).toBe(200);
  });

  it('refuses unknown codes (404), unknown orders (422) and bad bodies (400) without changing anything', async () => {
    const reward = await fresh();
    const unknownCode = await redeem(o, { code: 'AAAA-BBBB-CCCC' });
    expect(unknownCode.statusCode).toBe(404);
    expect(unknownCode.json()).toEqual({
      error: { code: 'NOT_FOUND', message: 'The loyalty reward with this code was not found.' },
    });
    const unknownOrder = await redeem(o, { code: reward.code, orderId: uuidv7() });
    expect(unknownOrder.statusCode).toBe(422);
    expect(unknownOrder.json().error.details).toEqual([{ path: 'body.orderId', message: expect.any(String) }]);
    expect((await redeem(o, { code: reward.code, extra: 1 })).statusCode).toBe(400);
    expect((await redeem(o, {})).statusCode).toBe(400);
    expect((await revoke(o, reward.id, { reason: 5 })).statusCode).toBe(400);
    // A JSON null is not "no body" (found by the bad-input fuzzer).
    const nullBody = await t.request({
      method: 'POST',
      url: `/v1/loyalty-rewards/${reward.id}/revoke`,
      key: o.key,
      body: 'null',
      headers: { 'content-type': 'application/json' },
    });
    expect(nullBody.statusCode).toBe(400);
    expect((await revoke(o, uuidv7())).statusCode).toBe(404);
    expect((await get(o, reward.id, '')).status).toBe('pending');
  });

  it('expires a pending reward whose time ran out before the sweep reached it, and answers 409', async () => {
    const reward = await fresh();
    await db()
      .updateTable('loyalty_rewards')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('organization_id', '=', o.id)
      .where('id', '=', reward.id)
      .execute();
    const response = await redeem(o, { code: reward.code });
    expect(response.statusCode, response.body).toBe(409);
    expect(response.json().error.message).toMatch(/expired/);
    const after = await get(o, reward.id);
    expect(after).toMatchObject({ status: 'expired', redeemedAt: null, fulfillment: { status: 'deactivated' } });
    const events = await eventsOf(t, o.id, 'loyaltyReward.expired');
    expect(events.map((event) => event.payload)).toEqual([base(after)]);
    expect(
      (await eventsOf(t, o.id, 'loyaltyReward.redeemed')).filter(
        (event) => (event.payload as { id: string }).id === reward.id,
      ),
    ).toEqual([]);
    expect((await revoke(o, reward.id)).statusCode).toBe(409);
  });

  it('expireDueRewards: every pending reward due by now expires in batches, with one event each; others are untouched', async () => {
    const x = await org();
    const carol = await member(x, 'carol@example.com');
    const due = await Promise.all(
      Array.from({ length: 7 }, () => issueOk(x, { loyaltyMembershipId: carol.membershipId, reward: coupon })),
    );
    const later = await issueOk(x, {
      loyaltyMembershipId: carol.membershipId,
      reward: coupon,
      expiresAt: '2099-01-01T00:00:00Z',
    });
    const never = await issueOk(x, { loyaltyMembershipId: carol.membershipId, reward: coupon });
    const redeemedDue = await issueOk(x, { loyaltyMembershipId: carol.membershipId, reward: coupon });
    expect((await redeem(x, { code: redeemedDue.code })).statusCode).toBe(200);
    await db()
      .updateTable('loyalty_rewards')
      .set({ expires_at: new Date(Date.now() - DAY) })
      .where('organization_id', '=', x.id)
      .where('id', 'in', [...due.map((reward) => reward.id), redeemedDue.id])
      .execute();
    // Another organization's due reward is not this organization's sweep's business.
    const otherDue = await fresh();
    await db()
      .updateTable('loyalty_rewards')
      .set({ expires_at: new Date(Date.now() - DAY) })
      .where('organization_id', '=', o.id)
      .where('id', '=', otherDue.id)
      .execute();

    expect(await expireAllDueRewards(db(), x.id, new Date(), 3)).toBe(7);
    for (const reward of due) expect((await get(x, reward.id, '')).status).toBe('expired');
    expect((await get(x, later.id, '')).status).toBe('pending');
    expect((await get(x, never.id, '')).status).toBe('pending');
    expect((await get(x, redeemedDue.id, '')).status).toBe('redeemed');
    expect((await get(o, otherDue.id, '')).status).toBe('pending');
    const events = await eventsOf(t, x.id, 'loyaltyReward.expired');
    expect(events.map((event) => (event.payload as { id: string }).id).sort()).toEqual(
      due.map((reward) => reward.id).sort(),
    );
    for (const event of events) expect(event.payload).toEqual(await get(x, (event.payload as { id: string }).id, ''));
    const activity = await db()
      .selectFrom('loyalty_activity')
      .select('id')
      .where('organization_id', '=', x.id)
      .where('type', '=', 'rewardExpired')
      .execute();
    expect(activity).toHaveLength(7);
    expect(await expireAllDueRewards(db(), x.id, new Date(), 3)).toBe(0);
  });

  it("keeps organizations apart: another organization's reward is 404 to get, revoke and redeem", async () => {
    const reward = await fresh();
    const other = await org();
    expect((await t.request({ url: `/v1/loyalty-rewards/${reward.id}`, key: other.key })).statusCode).toBe(404);
    expect((await revoke(other, reward.id)).statusCode).toBe(404);
    expect((await redeem(other, { code: reward.code })).statusCode).toBe(404);
    expect((await list(other, '')).data).toEqual([]);
    expect((await get(o, reward.id, '')).status).toBe('pending');
  });
});

describe("D19: a reward code among an imported order's discountCodes is redeemed", () => {
  let o: Org;
  let carol: Member;
  beforeAll(async () => {
    o = await org();
    carol = await member(o, 'carol@example.com');
    const site = await t.request({
      method: 'POST',
      url: '/v1/sites',
      key: o.key,
      body: { data: { name: 'Shop', domain: 'shop.example', platform: 'custom', currencyCode: 'EUR' } },
    });
    expect(site.statusCode, site.body).toBe(201);
  });
  const importOrders = async (rows: Record<string, unknown>[], extra: Record<string, unknown> = {}) => {
    const response = await t.request({
      method: 'POST',
      url: '/v1/orders/import',
      key: o.key,
      body: {
        data: rows.map((row) => ({
          site: 'shop.example',
          customer: carol.email,
          number: String(row.remoteId),
          totalCents: 1000,
          currencyCode: 'EUR',
          ...row,
        })),
        ...extra,
      },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data as { id: string }[];
  };
  const fresh = () => issueOk(o, { loyaltyMembershipId: carol.membershipId, reward: coupon });

  it('redeems the reward on that order (typed any way), with its event after the order event; a re-sync changes nothing', async () => {
    const reward = await fresh();
    const typed = (reward.code as string).toLowerCase().replace(/-/g, ' ');
    const [order] = await importOrders([{ remoteId: 'd19-1', discountCodes: ['SUMMER10', typed] }]);
    const redeemed = await get(o, reward.id, '');
    expect(redeemed).toMatchObject({ status: 'redeemed', fulfillment: { status: 'deactivated' } });
    expect(redeemed.redeemedAt).toMatch(ISO);
    const stored = await db()
      .selectFrom('loyalty_rewards')
      .select('order_id')
      .where('organization_id', '=', o.id)
      .where('id', '=', reward.id)
      .executeTakeFirstOrThrow();
    expect(stored.order_id).toBe(order!.id);
    const events = await eventsOf(t, o.id);
    const names = events.map((event) => event.name);
    expect(names.filter((name) => name === 'loyaltyReward.redeemed')).toHaveLength(1);
    expect(names.lastIndexOf('order.updated')).toBeLessThan(names.indexOf('loyaltyReward.redeemed'));
    expect(events.find((event) => event.name === 'loyaltyReward.redeemed')!.payload).toEqual(redeemed);

    await importOrders([{ remoteId: 'd19-1', discountCodes: [reward.code] }]);
    expect((await eventsOf(t, o.id, 'loyaltyReward.redeemed')).length).toBe(1);
    expect((await get(o, reward.id, '')).redeemedAt).toBe(redeemed.redeemedAt);
  });

  it('redeems on historical imports too, never a revoked reward, and expires a lapsed one instead of redeeming it', async () => {
    const historical = await fresh();
    const revoked = await fresh();
    expect((await revoke(o, revoked.id)).statusCode).toBe(200);
    const lapsed = await fresh();
    await db()
      .updateTable('loyalty_rewards')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('organization_id', '=', o.id)
      .where('id', '=', lapsed.id)
      .execute();
    await importOrders(
      [{ remoteId: 'd19-2', discountCodes: [historical.code, revoked.code, lapsed.code, 'NOT-A-CODE'] }],
      { earnLoyalty: false },
    );
    expect((await get(o, historical.id, '')).status).toBe('redeemed');
    expect((await get(o, revoked.id, '')).status).toBe('revoked');
    expect((await get(o, lapsed.id, '')).status).toBe('expired');
    expect(
      (await eventsOf(t, o.id, 'loyaltyReward.expired')).map((event) => (event.payload as { id: string }).id),
    ).toEqual([lapsed.id]);
  });

  it("never touches another organization's reward with the same code text", async () => {
    const other = await org();
    const otherMember = await member(other, 'dave@example.com');
    const foreign = await issueOk(other, { loyaltyMembershipId: otherMember.membershipId, reward: coupon });
    await importOrders([{ remoteId: 'd19-3', discountCodes: [foreign.code] }]);
    expect((await get(other, foreign.id, '')).status).toBe('pending');
  });
});

describe('GET /v1/loyalty-rewards', () => {
  let o: Org;
  let alice: Member;
  let bob: Member;
  let ruleId: string;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    o = await org();
    alice = await member(o, 'alice@example.com', {
      firstName: 'Alice',
      lastName: 'Zimmer',
      metadata: { tier: 'gold' },
    });
    bob = await member(o, 'Bob@Example.com', { firstName: 'Bob', lastName: 'Jones', optOut: true });
    ruleId = uuidv7();
    await db()
      .insertInto('loyalty_rules')
      .values({
        organization_id: o.id,
        id: ruleId,
        loyalty_program_id: o.programId,
        section: 'rewards',
        name: 'Coffee on us',
        config: JSON.stringify({ pointsCost: 100, reward: coupon }),
      })
      .execute();
    // Issued one after another so createdAt orders them a1 < a2 < b1 < b2 < b3.
    for (const [name, m] of [
      ['a1', alice],
      ['a2', alice],
      ['b1', bob],
      ['b2', bob],
      ['b3', bob],
    ] as const) {
      ids[name] = (
        await issueOk(o, {
          loyaltyMembershipId: m.membershipId,
          reward: coupon,
          ...(name === 'a2' ? { expiresAt: '2099-01-01T00:00:00Z' } : {}),
          ...(name === 'b1' ? { expiresAt: '2098-01-01T00:00:00Z' } : {}),
        })
      ).id;
      await nextMillisecond();
    }
    await db()
      .updateTable('loyalty_rewards')
      .set({ loyalty_rule_id: ruleId, rule_snapshot: JSON.stringify({ id: ruleId, name: 'Coffee on us' }) })
      .where('organization_id', '=', o.id)
      .where('id', '=', ids.b2!)
      .execute();
    const b3 = await get(o, ids.b3!, '');
    expect((await redeem(o, { code: b3.code })).statusCode).toBe(200);
    const a1 = await get(o, ids.a1!, '');
    expect((await redeem(o, { code: a1.code })).statusCode).toBe(200);
  });

  const names = (page: { data: { id: string }[] }) =>
    page.data.map((reward) => Object.entries(ids).find(([, id]) => id === reward.id)?.[0]);

  it('lists newest first by default, the sixteen fields only', async () => {
    const page = await list(o, '');
    expect(names(page)).toEqual(['b3', 'b2', 'b1', 'a2', 'a1']);
    expect(page.nextCursor).toBeNull();
    expect(Object.keys(page.data[0]!)).toHaveLength(16);
  });

  it('sorts by createdAt, redeemedAt and expiresAt both ways, nulls last', async () => {
    expect(names(await list(o, 'sort=createdAt'))).toEqual(['a1', 'a2', 'b1', 'b2', 'b3']);
    // b3 was redeemed before a1.
    expect(names(await list(o, 'sort=redeemedAt')).slice(0, 2)).toEqual(['b3', 'a1']);
    expect(names(await list(o, 'sort=-redeemedAt')).slice(0, 2)).toEqual(['a1', 'b3']);
    expect(names(await list(o, 'sort=expiresAt')).slice(0, 2)).toEqual(['b1', 'a2']);
    expect(names(await list(o, 'sort=-expiresAt')).slice(0, 2)).toEqual(['a2', 'b1']);
    expect((await t.request({ url: '/v1/loyalty-rewards?sort=code', key: o.key })).statusCode).toBe(400);
  });

  it('pages with nextCursor through every sort, nulls included', async () => {
    for (const sort of ['-createdAt', 'redeemedAt', '-expiresAt']) {
      const all = names(await list(o, `sort=${sort}`));
      const seen: (string | undefined)[] = [];
      let cursor: string | null = null;
      do {
        const page = await list(o, `sort=${sort}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(page.data.length).toBeLessThanOrEqual(2);
        seen.push(...names(page));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual(all);
    }
  });

  it('embeds customer, membership and rule with include, one extra each', async () => {
    const page = await list(o, 'include=customer,membership,rule');
    const b2 = page.data.find((reward) => reward.id === ids.b2)!;
    expect(b2.rule).toEqual({ id: ruleId, name: 'Coffee on us', section: 'rewards' });
    expect(b2.customer).toMatchObject({ id: bob.customerId, email: 'Bob@Example.com', emailOptOut: true });
    expect(b2.membership).toMatchObject({ id: bob.membershipId, customerId: bob.customerId });
    const a1 = page.data.find((reward) => reward.id === ids.a1)!;
    expect(a1.rule).toBeNull();
    expect(a1.customer.id).toBe(alice.customerId);
    const onlyRule = await list(o, 'include=rule');
    expect(onlyRule.data[0]).not.toHaveProperty('customer');
    expect((await t.request({ url: '/v1/loyalty-rewards?include=orders', key: o.key })).statusCode).toBe(400);
  });

  it('filters on every listed field, customer.* and rule.*', async () => {
    const cases: [unknown, string[]][] = [
      [{ 'customer.email': 'alice@example.com' }, ['a2', 'a1']],
      [{ 'customer.email': { $contains: 'EXAMPLE' } }, ['b3', 'b2', 'b1', 'a2', 'a1']],
      [{ 'customer.firstName': 'Bob' }, ['b3', 'b2', 'b1']],
      [{ 'customer.lastName': { $startsWith: 'zim' } }, ['a2', 'a1']],
      [{ 'customer.metadata.tier': 'gold' }, ['a2', 'a1']],
      [{ 'customer.emailOptOut': true }, ['b3', 'b2', 'b1']],
      [{ 'customer.emailOptOutSource': 'merchant' }, ['b3', 'b2', 'b1']],
      [{ 'customer.createdAt': { $gte: '2000-01-01T00:00:00Z' } }, ['b3', 'b2', 'b1', 'a2', 'a1']],
      [{ 'customer.id': bob.customerId }, ['b3', 'b2', 'b1']],
      [{ 'rule.name': 'Coffee on us' }, ['b2']],
      [{ 'rule.name': { $contains: 'coffee' } }, ['b2']],
      [{ 'rule.id': ruleId }, ['b2']],
      [{ loyaltyRuleId: null }, ['b3', 'b1', 'a2', 'a1']],
      [{ loyaltyMembershipId: alice.membershipId }, ['a2', 'a1']],
      [{ status: 'redeemed' }, ['b3', 'a1']],
      [{ status: { $in: ['pending', 'expired'] } }, ['b2', 'b1', 'a2']],
      [{ redeemedAt: { $exists: true } }, ['b3', 'a1']],
      [{ expiresAt: { $lt: '2098-06-01T00:00:00Z' } }, ['b1']],
      [{ revokedAt: null }, ['b3', 'b2', 'b1', 'a2', 'a1']],
      [{ stampCardId: { $exists: false } }, ['b3', 'b2', 'b1', 'a2', 'a1']],
      [{ id: ids.a2 }, ['a2']],
      [{ createdAt: { $gte: '2000-01-01T00:00:00Z' } }, ['b3', 'b2', 'b1', 'a2', 'a1']],
      [{ $or: [{ 'customer.email': 'alice@example.com' }, { 'rule.name': 'Coffee on us' }] }, ['b2', 'a2', 'a1']],
    ];
    for (const [document, expected] of cases) {
      expect(names(await list(o, filter(document))), JSON.stringify(document)).toEqual(expected);
    }
    const code = (await get(o, ids.b1!, '')).code as string;
    expect(names(await list(o, filter({ code })))).toEqual(['b1']);
    for (const bad of [
      { status: 'lost' },
      { 'customer.phone': 'x' },
      { 'rule.section': 'rewards' },
      { reward: 'x' },
      { 'customer.emailOptOut': 'yes' },
    ]) {
      const response = await t.request({ url: `/v1/loyalty-rewards?${filter(bad)}`, key: o.key });
      expect(response.statusCode, JSON.stringify(bad)).toBe(400);
    }
  });

  it('searches the code and the customer email, first and last name (not the phone)', async () => {
    const b1 = await get(o, ids.b1!, '');
    expect(
      names(await list(o, `search=${encodeURIComponent((b1.code as string).slice(5, 9).toLowerCase())}`)),
    ).toContain('b1');
    expect(names(await list(o, 'search=zimmer'))).toEqual(['a2', 'a1']);
    expect(names(await list(o, 'search=BOB%40example'))).toEqual(['b3', 'b2', 'b1']);
    expect(names(await list(o, `search=alice&${filter({ status: 'pending' })}`))).toEqual(['a2']);
    await db()
      .updateTable('customers')
      .set({ phone: '+14155550123' })
      .where('organization_id', '=', o.id)
      .where('id', '=', alice.customerId)
      .execute();
    expect(names(await list(o, 'search=4155550123'))).toEqual([]);
  });

  it("shows only the organization's own rewards", async () => {
    const other = await org();
    const dave = await member(other, 'alice@example.com');
    await issueOk(other, { loyaltyMembershipId: dave.membershipId, reward: coupon });
    expect(names(await list(o, filter({ 'customer.email': 'alice@example.com' })))).toEqual(['a2', 'a1']);
    expect((await list(other, '')).data).toHaveLength(1);
  });

  it("keeps a reward's rule after the rule leaves configuration", async () => {
    await db()
      .updateTable('loyalty_rules')
      .set({ deleted_at: new Date() })
      .where('organization_id', '=', o.id)
      .where('id', '=', ruleId)
      .execute();
    try {
      expect(names(await list(o, filter({ 'rule.name': 'Coffee on us' })))).toEqual(['b2']);
      expect((await get(o, ids.b2!, 'rule')).rule).toEqual({ id: ruleId, name: 'Coffee on us', section: 'rewards' });
    } finally {
      await db()
        .updateTable('loyalty_rules')
        .set({ deleted_at: null })
        .where('organization_id', '=', o.id)
        .where('id', '=', ruleId)
        .execute();
    }
  });
});

describe('POST /v1/loyalty-memberships/{id}/claim', () => {
  let o: Org;
  let erin: Member;
  let ruleId: string;
  const claimConfig = {
    pointsCost: 300,
    reward: {
      type: 'percentageCoupon',
      percentageDiscount: 10,
      productFilter: null,
      minimumOrderTotalCents: null,
      expiry: { type: 'daysAfterIssuance', days: 14 },
    },
  };

  const rule = async (
    target: Org,
    fields: {
      section?: 'rules' | 'rewards';
      name?: string;
      config?: unknown;
      isActive?: boolean;
      programId?: string;
    } = {},
  ) => {
    const response = await t.request({
      method: 'POST',
      url: '/v1/loyalty-rules',
      key: target.key,
      body: {
        data: {
          loyaltyProgramId: fields.programId ?? target.programId,
          section: fields.section ?? 'rewards',
          name: fields.name ?? '10% off',
          config: fields.config ?? claimConfig,
          isActive: fields.isActive ?? true,
        },
      },
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json().id as string;
  };
  const credit = async (target: Org, m: Member, points: number) => {
    const response = await t.request({
      method: 'POST',
      url: `/v1/loyalty-memberships/${m.membershipId}/points-adjustments`,
      key: target.key,
      body: { points, reason: 'test' },
    });
    expect(response.statusCode, response.body).toBe(200);
  };
  const balance = async (m: Member) =>
    Number(
      (
        await db()
          .selectFrom('loyalty_memberships')
          .select('points_balance')
          .where('id', '=', m.membershipId)
          .executeTakeFirstOrThrow()
      ).points_balance,
    );
  const claim = (target: Org, membershipId: string, body: unknown) =>
    t.request({ method: 'POST', url: `/v1/loyalty-memberships/${membershipId}/claim`, key: target.key, body });

  beforeAll(async () => {
    o = await org();
    erin = await member(o, 'erin@example.com');
    ruleId = await rule(o);
    await credit(o, erin, 500);
  });

  it("spends the points through the ledger and issues the rule's reward with the rule, its snapshot and the transaction", async () => {
    const response = await claim(o, erin.membershipId, { loyaltyRuleId: ruleId });
    expect(response.statusCode, response.body).toBe(201);
    const reward = response.json();
    expect(reward).toMatchObject({
      loyaltyMembershipId: erin.membershipId,
      loyaltyRuleId: ruleId,
      status: 'pending',
      reward: claimConfig.reward,
      ruleSnapshot: { id: ruleId, name: '10% off', section: 'rewards', config: claimConfig },
      rule: { id: ruleId, name: '10% off', section: 'rewards' },
      fulfillment: { mode: 'manual', status: 'active' },
    });
    expect(reward.code).toMatch(CODE);
    expect(Date.parse(reward.expiresAt) - Date.parse(reward.createdAt)).toBe(14 * DAY);
    expect(await balance(erin)).toBe(200);
    const transaction = await db()
      .selectFrom('loyalty_transactions')
      .selectAll()
      .where('organization_id', '=', o.id)
      .where('id', '=', reward.loyaltyTransactionId)
      .executeTakeFirstOrThrow();
    expect(transaction).toMatchObject({
      kind: 'spent',
      points: -300,
      balance_after: 200,
      loyalty_rule_id: ruleId,
      loyalty_reward_id: reward.id,
    });
    const issued = await eventsOf(t, o.id, 'loyaltyReward.issued');
    expect(issued.map((event) => event.payload)).toEqual([base(reward)]);
    expect(issued[0]!.payload).toEqual(await get(o, reward.id, ''));
    expect(
      (await eventsOf(t, o.id, 'loyaltyTransaction.created')).map((event) => (event.payload as { id: string }).id),
    ).toContain(reward.loyaltyTransactionId);

    // The snapshot keeps the rule as it was.
    await db()
      .updateTable('loyalty_rules')
      .set({ name: 'Renamed', config: JSON.stringify({ ...claimConfig, pointsCost: 1 }) })
      .where('organization_id', '=', o.id)
      .where('id', '=', ruleId)
      .execute();
    const later = await get(o, reward.id);
    expect(later.ruleSnapshot).toEqual({ id: ruleId, name: '10% off', section: 'rewards', config: claimConfig });
    expect(later.rule.name).toBe('Renamed');
    await db()
      .updateTable('loyalty_rules')
      .set({ name: '10% off', config: JSON.stringify(claimConfig) })
      .where('organization_id', '=', o.id)
      .where('id', '=', ruleId)
      .execute();
  });

  it('answers 409 when the balance is short, and changes nothing', async () => {
    const before = (await eventsOf(t, o.id)).length;
    expect(await balance(erin)).toBe(200);
    const response = await claim(o, erin.membershipId, { loyaltyRuleId: ruleId });
    expect(response.statusCode, response.body).toBe(409);
    expect(response.json().error.message).toMatch(/200/);
    expect(await balance(erin)).toBe(200);
    expect((await eventsOf(t, o.id)).length).toBe(before);
  });

  it('refuses rules that cannot be claimed (422, inactive 409) and members that cannot claim (404, left 409)', async () => {
    const other = await org();
    const foreignRule = await rule(other);
    const earning = await rule(o, {
      section: 'rules',
      config: { type: 'event', eventName: 'signup', points: 5, frequency: 'once' },
    });
    const deleted = await rule(o);
    expect((await t.request({ method: 'DELETE', url: `/v1/loyalty-rules/${deleted}`, key: o.key })).statusCode).toBe(
      200,
    );
    const program = await t.request({
      method: 'POST',
      url: '/v1/loyalty-programs',
      key: o.key,
      body: { data: { name: 'VIP' } },
    });
    expect(program.statusCode, program.body).toBe(201);
    const secondProgram = program.json().id as string;
    const otherProgramRule = await rule(o, { programId: secondProgram });
    const inactive = await rule(o, { isActive: false });
    await credit(o, erin, 1000);
    const before = await balance(erin);

    for (const id of [uuidv7(), foreignRule, earning, deleted, otherProgramRule]) {
      const response = await claim(o, erin.membershipId, { loyaltyRuleId: id });
      expect(response.statusCode, response.body).toBe(422);
      expect(response.json().error.details).toEqual([{ path: 'body.loyaltyRuleId', message: expect.any(String) }]);
    }
    expect((await claim(o, erin.membershipId, { loyaltyRuleId: inactive })).statusCode).toBe(409);
    expect((await claim(o, erin.membershipId, {})).statusCode).toBe(400);
    expect((await claim(o, erin.membershipId, { loyaltyRuleId: ruleId, extra: 1 })).statusCode).toBe(400);

    expect((await claim(o, uuidv7(), { loyaltyRuleId: ruleId })).statusCode).toBe(404);
    const stranger = await member(other, 'stranger@example.com');
    await credit(other, stranger, 1000);
    expect((await claim(o, stranger.membershipId, { loyaltyRuleId: ruleId })).statusCode).toBe(404);
    expect((await claim(other, stranger.membershipId, { loyaltyRuleId: ruleId })).statusCode).toBe(422);
    const left = await member(o, 'left@example.com');
    await credit(o, left, 1000);
    expect(
      (await t.request({ method: 'POST', url: `/v1/loyalty-memberships/${left.membershipId}/leave`, key: o.key }))
        .statusCode,
    ).toBe(200);
    expect((await claim(o, left.membershipId, { loyaltyRuleId: ruleId })).statusCode).toBe(409);
    expect(await balance(erin)).toBe(before);
  });

  it('lets only as many concurrent claims through as the balance pays for', async () => {
    const frank = await member(o, 'frank@example.com');
    await credit(o, frank, 650);
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => claim(o, frank.membershipId, { loyaltyRuleId: ruleId })),
    );
    expect(responses.map((response) => response.statusCode).sort()).toEqual([201, 201, 409, 409, 409]);
    expect(await balance(frank)).toBe(50);
    expect((await list(o, filter({ loyaltyMembershipId: frank.membershipId }))).data).toHaveLength(2);
  });
});
