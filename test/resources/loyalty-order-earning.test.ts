import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;
const eventNames = async (organizationId: string) =>
  (
    await db()
      .selectFrom('events')
      .select('name')
      .where('organization_id', '=', organizationId)
      .orderBy('position')
      .execute()
  ).map((row) => row.name);
const req = (tenant: Tenant, method: 'GET' | 'POST', url: string, body?: unknown) =>
  t.request({ method, url: `/v1${url}`, key: tenant.key, ...(body !== undefined ? { body } : {}) });
async function ok<T = any>(promise: ReturnType<typeof req>, status = 200): Promise<T> {
  const response = await promise;
  expect(response.statusCode, response.body).toBe(status);
  return response.json<T>();
}
const coupon = { type: 'amountCoupon', amountCents: 500, productFilter: null, minimumOrderTotalCents: null };

/** A tenant with a site, members ann and cy, customer bob (not a member), and a points-per-dollar rule. */
async function shop() {
  const tenant = await t.tenant();
  await ok(req(tenant, 'POST', '/sites', { name: 'Shop', domain: 'shop.example.com' }), 201);
  await ok(
    req(tenant, 'POST', '/customers/import', {
      data: ['ann', 'bob', 'cy'].map((name) => ({ email: `${name}@example.com` })),
    }),
  );
  const join = async (email: string) => {
    const { data } = await ok(req(tenant, 'GET', `/customers?filter=${encodeURIComponent(JSON.stringify({ email }))}`));
    return ok(req(tenant, 'POST', '/loyalty-memberships', { customerId: data[0].id }), 201);
  };
  const ann = await join('ann@example.com');
  const cy = await join('cy@example.com');
  const spend = await ok(
    req(tenant, 'POST', '/loyalty-rules', {
      section: 'rules',
      name: 'Points per dollar',
      config: { type: 'orderSpend', pointsPerUnit: 1 },
    }),
    201,
  );
  return { tenant, ann, cy, spend };
}
const order = (customer: string, remoteId: string, totalCents: number, extra: Record<string, unknown> = {}) => ({
  site: 'shop.example.com',
  customer,
  remoteId,
  number: `#${remoteId}`,
  totalCents,
  ...extra,
});
const importOrders = (tenant: Tenant, data: unknown[], options: Record<string, unknown> = {}) =>
  ok(req(tenant, 'POST', '/orders/import', { data, ...options }));
const member = (tenant: Tenant, id: string) => ok(req(tenant, 'GET', `/loyalty-memberships/${id}`));
const ledger = async (tenant: Tenant, membershipId: string) =>
  (
    await ok(
      req(
        tenant,
        'GET',
        `/loyalty-activity?sort=createdAt&filter=${encodeURIComponent(JSON.stringify({ loyaltyMembershipId: membershipId }))}`,
      ),
    )
  ).data;

describe('order import with earnLoyalty', () => {
  it('credits newly created orders of members by the earning rules, once, and not with earnLoyalty false', async () => {
    const { tenant, ann, cy, spend } = await shop();
    const { data } = await importOrders(tenant, [
      order('ann@example.com', 'A1', 12_345),
      order('bob@example.com', 'B1', 9_900),
      order('ann@example.com', 'A2', 5_000),
      order('ann@example.com', 'A3', 7_000, { cancelledAt: '2025-01-01T00:00:00Z' }),
      order('cy@example.com', 'C1', 99),
    ]);
    expect((await member(tenant, ann.id)).pointsBalance).toBe(173);
    expect((await member(tenant, cy.id)).pointsBalance).toBe(0); // 99 cents is no whole unit
    const entries = await ledger(tenant, ann.id);
    expect(
      entries.map((entry: any) => [entry.kind, entry.points, entry.orderId, entry.loyaltyRuleId, entry.reason]),
    ).toEqual([
      ['earned', 123, data[0].id, spend.id, 'Order #A1'],
      ['earned', 50, data[2].id, spend.id, 'Order #A2'],
    ]);
    expect(entries[1].balanceAfter).toBe(173);
    expect(
      (await eventNames(tenant.organization.id)).filter((name) => name === 'loyaltyTransaction.created'),
    ).toHaveLength(2);

    // Importing the same orders again updates them: nothing more is credited.
    await importOrders(tenant, [order('ann@example.com', 'A1', 99_999), order('ann@example.com', 'A2', 5_000)]);
    expect((await member(tenant, ann.id)).pointsBalance).toBe(173);

    // Historical orders.
    await importOrders(tenant, [order('ann@example.com', 'H1', 10_000)], { earnLoyalty: false });
    expect((await member(tenant, ann.id)).pointsBalance).toBe(173);
    const [stored] = await db()
      .selectFrom('orders')
      .select('earn_loyalty')
      .where('organization_id', '=', tenant.organization.id)
      .where('remote_id', '=', 'H1')
      .execute();
    expect(stored!.earn_loyalty).toBe(false);

    // Members who left earn nothing; an import with a strict miss rolls the earning back with everything else.
    await ok(req(tenant, 'POST', `/loyalty-memberships/${cy.id}/leave`));
    await importOrders(tenant, [order('cy@example.com', 'C2', 10_000)]);
    expect((await member(tenant, cy.id)).pointsBalance).toBe(0);
    const strict = await req(tenant, 'POST', '/orders/import', {
      strict: true,
      data: [order('ann@example.com', 'A9', 10_000), order('nobody@example.com', 'X1', 1)],
    });
    expect(strict.statusCode).toBe(422);
    expect((await member(tenant, ann.id)).pointsBalance).toBe(173);
  });

  it('applies the multiplier running when the order was placed, stamps cards, issues reward offers once, attributes referrals', async () => {
    const { tenant, ann, cy } = await shop();
    await ok(
      req(tenant, 'POST', '/loyalty-rules', {
        section: 'offers',
        name: 'Double January',
        config: {
          type: 'pointsMultiplier',
          multiplier: 2,
          startsAt: '2025-01-01T00:00:00Z',
          endsAt: '2025-02-01T00:00:00Z',
        },
      }),
      201,
    );
    const gift = await ok(
      req(tenant, 'POST', '/loyalty-rules', {
        section: 'offers',
        name: 'January gift',
        config: { type: 'reward', reward: coupon, startsAt: '2025-01-01T00:00:00Z', endsAt: '2025-02-01T00:00:00Z' },
      }),
      201,
    );
    const card = await ok(
      req(tenant, 'POST', '/loyalty-rules', {
        section: 'stampCards',
        name: 'Every 2 orders',
        config: {
          stampsRequired: 2,
          reward: { type: 'freeShipping', maximumValueCents: null },
          minimumOrderTotalCents: 1_000,
        },
      }),
      201,
    );
    await ok(
      req(tenant, 'POST', '/loyalty-events', {
        loyaltyMembershipId: cy.id,
        event: 'signup',
        referralCode: ann.referralCode,
      }),
    );

    await importOrders(tenant, [
      order('ann@example.com', 'J1', 2_000, { createdAt: '2025-01-10T12:00:00Z' }),
      order('ann@example.com', 'J2', 2_000, { createdAt: '2025-01-20T12:00:00Z' }),
      order('ann@example.com', 'F1', 2_000, { createdAt: '2025-02-10T12:00:00Z' }),
      order('ann@example.com', 'S1', 500, { createdAt: '2025-02-11T12:00:00Z' }),
      order('cy@example.com', 'C1', 1_000, { createdAt: '2025-03-01T12:00:00Z' }),
    ]);
    expect((await ledger(tenant, ann.id)).map((entry: any) => entry.points)).toEqual([40, 40, 20, 5]);

    const rewards = (await ok(req(tenant, 'GET', '/loyalty-rewards?sort=createdAt'))).data;
    const annRewards = rewards.filter((reward: any) => reward.loyaltyMembershipId === ann.id);
    // One January gift (two orders in the window) and one full card (3 orders over the minimum: one card full, one started).
    expect(annRewards.map((reward: any) => reward.loyaltyRuleId).sort()).toEqual([card.id, gift.id].sort());
    const cards = await db()
      .selectFrom('stamp_cards')
      .selectAll()
      .where('loyalty_membership_id', '=', ann.id)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    expect(cards.map((c) => [c.stamps, c.completed_at !== null])).toEqual([
      [2, true],
      [1, false],
    ]);
    expect(annRewards.find((reward: any) => reward.loyaltyRuleId === card.id).stampCardId).toBe(cards[0]!.id);

    // A second import in January does not give the gift again.
    await importOrders(tenant, [order('ann@example.com', 'J3', 2_000, { createdAt: '2025-01-25T12:00:00Z' })]);
    expect(
      (
        await ok(
          req(
            tenant,
            'GET',
            `/loyalty-rewards?filter=${encodeURIComponent(JSON.stringify({ loyaltyRuleId: gift.id }))}`,
          ),
        )
      ).data,
    ).toHaveLength(1);

    const referral = await db()
      .selectFrom('referrals')
      .selectAll()
      .where('organization_id', '=', tenant.organization.id)
      .executeTakeFirstOrThrow();
    const [c1] = (
      await ok(req(tenant, 'GET', `/orders?filter=${encodeURIComponent(JSON.stringify({ number: '#C1' }))}`))
    ).data;
    expect(referral).toMatchObject({
      status: 'attributed',
      order_id: c1.id,
      referrer_membership_id: ann.id,
      referred_membership_id: cy.id,
    });
    const names = await eventNames(tenant.organization.id);
    expect(names.filter((name) => name === 'referral.updated')).toHaveLength(2);
    expect(
      names.filter((name) => name.startsWith('stampCard.')).map((name) => name.slice('stampCard.'.length)),
    ).toEqual([
      'created',
      'updated',
      'completed',
      'created',
      'updated', // ann's first import: 3 stamps, a card of 2 and the next
      'created',
      'updated', // cy
      'updated',
      'completed', // J3 fills ann's second card
    ]);
  });
  it('writes nothing when the line items or the earning fail while the other is under way (a referenced row vanished)', async () => {
    const { tenant, ann } = await shop();
    await ok(
      req(tenant, 'POST', '/products/import', {
        data: [{ slug: 'mug', title: 'Mug', variants: [{ slug: 'mug-default', title: 'Default', priceCents: 1200 }] }],
      }),
    );
    await ok(
      req(tenant, 'POST', '/loyalty-rules', {
        section: 'stampCards',
        name: 'Card',
        config: { stampsRequired: 2, reward: coupon },
      }),
      201,
    );
    const orgId = tenant.organization.id;
    // As if a row these writes refer to had been deleted meanwhile: the database refuses them with 23503.
    await sql`create function fail_as_vanished() returns trigger language plpgsql as $$
      begin raise foreign_key_violation using message = 'referenced row vanished'; end $$`.execute(db());
    const counts = async () => ({
      orders: (
        await db()
          .selectFrom('orders')
          .select(db().fn.countAll<number>().as('n'))
          .where('organization_id', '=', orgId)
          .executeTakeFirstOrThrow()
      ).n,
      ledger: (await ledger(tenant, ann.id)).length,
      cards: (
        await db()
          .selectFrom('stamp_cards')
          .select(db().fn.countAll<number>().as('n'))
          .where('organization_id', '=', orgId)
          .executeTakeFirstOrThrow()
      ).n,
      events: (await eventNames(orgId)).length,
    });
    const before = await counts();
    const data = [
      order('ann@example.com', 'F1', 12_000, { items: [{ product: 'mug', quantity: 1, unitPriceCents: 12_000 }] }),
    ];
    for (const table of ['order_items', 'loyalty_transactions']) {
      await sql`create trigger fail_as_vanished before insert on ${sql.table(table)} for each statement execute function fail_as_vanished()`.execute(
        db(),
      );
      const refused = await req(tenant, 'POST', '/orders/import', { data });
      expect(refused.statusCode, `${table}: ${refused.body}`).toBe(409);
      expect(refused.json().error.code).toBe('CONFLICT');
      expect(await counts()).toEqual(before);
      await sql`drop trigger fail_as_vanished on ${sql.table(table)}`.execute(db());
    }
    await sql`drop function fail_as_vanished()`.execute(db());
    await importOrders(tenant, data);
    expect((await member(tenant, ann.id)).pointsBalance).toBe(120);
    expect((await counts()).orders).toBe(Number(before.orders) + 1);
  });

  it('moves members up a tier on the points of imported orders, with loyaltyMembership.tierChanged', async () => {
    const { tenant, ann, cy } = await shop();
    const silver = await ok(req(tenant, 'POST', '/loyalty-tiers', { name: 'Silver', thresholdPoints: 100 }), 201);
    const gold = await ok(req(tenant, 'POST', '/loyalty-tiers', { name: 'Gold', thresholdPoints: 300 }), 201);
    await importOrders(tenant, [order('ann@example.com', 'T1', 15_000), order('cy@example.com', 'T2', 5_000)]);
    expect(await member(tenant, ann.id)).toMatchObject({
      pointsBalance: 150,
      loyaltyTierId: silver.id,
      tierAssignedManually: false,
    });
    expect(await member(tenant, cy.id)).toMatchObject({ pointsBalance: 50, loyaltyTierId: null });
    await importOrders(tenant, [order('ann@example.com', 'T3', 20_000)]);
    expect(await member(tenant, ann.id)).toMatchObject({ pointsBalance: 350, loyaltyTierId: gold.id });
    const changes = await db()
      .selectFrom('events')
      .select('payload')
      .where('organization_id', '=', tenant.organization.id)
      .where('name', '=', 'loyaltyMembership.tierChanged')
      .orderBy('position')
      .execute();
    expect(changes.map((event) => event.payload as { id: string; loyaltyTierId: string })).toMatchObject([
      { id: ann.id, loyaltyTierId: silver.id },
      { id: ann.id, loyaltyTierId: gold.id },
    ]);
  });

  it('issues the rewards of several members completing cards and winning offers in one import, each with its feed entry and event', async () => {
    const { tenant, ann, cy } = await shop();
    const gift = await ok(
      req(tenant, 'POST', '/loyalty-rules', {
        section: 'offers',
        name: 'March gift',
        config: { type: 'reward', reward: coupon, startsAt: '2025-03-01T00:00:00Z', endsAt: '2025-04-01T00:00:00Z' },
      }),
      201,
    );
    const card = await ok(
      req(tenant, 'POST', '/loyalty-rules', {
        section: 'stampCards',
        name: 'Every order',
        config: {
          stampsRequired: 1,
          reward: { type: 'freeShipping', maximumValueCents: null },
          minimumOrderTotalCents: null,
        },
      }),
      201,
    );
    await importOrders(tenant, [
      order('ann@example.com', 'M1', 2_000, { createdAt: '2025-03-10T12:00:00Z' }),
      order('cy@example.com', 'M2', 2_000, { createdAt: '2025-03-11T12:00:00Z' }),
      order('ann@example.com', 'M3', 2_000, { createdAt: '2025-03-12T12:00:00Z' }),
    ]);
    const rewards = (await ok(req(tenant, 'GET', '/loyalty-rewards?limit=100'))).data;
    const held = (membershipId: string, ruleId: string) =>
      rewards.filter((reward: any) => reward.loyaltyMembershipId === membershipId && reward.loyaltyRuleId === ruleId);
    // Every order fills a card: ann two, cy one; the offer once per member.
    expect(held(ann.id, card.id)).toHaveLength(2);
    expect(held(cy.id, card.id)).toHaveLength(1);
    expect(held(ann.id, gift.id)).toHaveLength(1);
    expect(held(cy.id, gift.id)).toHaveLength(1);
    const cards = await db()
      .selectFrom('stamp_cards')
      .select(['id', 'loyalty_reward_id'])
      .where('organization_id', '=', tenant.organization.id)
      .execute();
    expect(cards.map((c) => c.loyalty_reward_id).sort()).toEqual(
      [...held(ann.id, card.id), ...held(cy.id, card.id)].map((reward: any) => reward.id).sort(),
    );
    for (const reward of rewards)
      expect(reward.stampCardId === null || cards.some((c) => c.id === reward.stampCardId)).toBe(true);
    const feed = await db()
      .selectFrom('loyalty_activity')
      .select('loyalty_reward_id')
      .where('organization_id', '=', tenant.organization.id)
      .where('type', '=', 'rewardIssued')
      .execute();
    expect(feed.map((entry) => entry.loyalty_reward_id).sort()).toEqual(rewards.map((reward: any) => reward.id).sort());
    const issued = await db()
      .selectFrom('events')
      .select('payload')
      .where('organization_id', '=', tenant.organization.id)
      .where('name', '=', 'loyaltyReward.issued')
      .execute();
    expect(issued.map((event) => (event.payload as { id: string }).id).sort()).toEqual(
      rewards.map((reward: any) => reward.id).sort(),
    );
    expect(new Set(rewards.map((reward: any) => reward.code)).size).toBe(rewards.length);
  });
});
