import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresUrl } from '../support/database.js';
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
const filter = (document: unknown) => `filter=${encodeURIComponent(JSON.stringify(document))}`;

async function customers(tenant: Tenant, ...emails: string[]): Promise<{ id: string; email: string }[]> {
  const { data } = await ok(
    req(tenant, 'POST', '/customers/import', {
      data: emails.map((email) => ({ email, firstName: email.split('@')[0] })),
    }),
  );
  return data;
}
async function member(tenant: Tenant, email: string) {
  const [customer] = await customers(tenant, email);
  return ok(req(tenant, 'POST', '/loyalty-memberships', { data: { customerId: customer!.id } }), 201);
}
const adjust = (tenant: Tenant, id: string, points: number, reason = 'test') =>
  req(tenant, 'POST', `/loyalty-memberships/${id}/points-adjustments`, { data: { points, reason } });

describe('memberships', () => {
  it('joins the only program with a referral code and sends loyaltyMembership.created', async () => {
    const tenant = await t.tenant();
    const [program] = (await ok(req(tenant, 'GET', '/loyalty-programs'))).data;
    const [customer] = await customers(tenant, 'ann@example.com');
    const membership = await ok(req(tenant, 'POST', '/loyalty-memberships', { customerId: customer!.id }), 201);
    expect(membership).toEqual({
      id: expect.any(String),
      customerId: customer!.id,
      loyaltyProgramId: program.id,
      loyaltyTierId: null,
      tierAssignedManually: false,
      tierAttainedAt: null,
      tierReviewAt: null,
      leftAt: null,
      referralCode: expect.stringMatching(/^[A-HJKMNP-Z2-9]{8}$/),
      pointsBalance: 0,
      lifetimePoints: 0,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const events = await eventsOf(t, tenant.organization.id, 'loyaltyMembership.created');
    expect(events.map((event) => event.payload)).toEqual([membership]);
    expect((await req(tenant, 'POST', '/loyalty-memberships', { customerId: customer!.id })).statusCode).toBe(409);
    const withCustomer = await ok(req(tenant, 'GET', `/loyalty-memberships/${membership.id}?include=customer`));
    expect(withCustomer.customer).toMatchObject({ id: customer!.id, email: 'ann@example.com' });
    expect((await req(tenant, 'GET', `/loyalty-memberships/${membership.id}?include=nope`)).statusCode).toBe(400);
  });

  it('refuses a missing customer or program (422) and a missing customerId (400)', async () => {
    const tenant = await t.tenant();
    const ghost = '0190a000-0000-7000-8000-000000000000';
    expect((await req(tenant, 'POST', '/loyalty-memberships', { customerId: ghost })).statusCode).toBe(422);
    const [customer] = await customers(tenant, 'x@example.com');
    expect(
      (await req(tenant, 'POST', '/loyalty-memberships', { customerId: customer!.id, loyaltyProgramId: ghost }))
        .statusCode,
    ).toBe(422);
    expect((await req(tenant, 'POST', '/loyalty-memberships', {})).statusCode).toBe(400);
    const other = await t.tenant();
    const [foreign] = await customers(other, 'y@example.com');
    expect((await req(tenant, 'POST', '/loyalty-memberships', { customerId: foreign!.id })).statusCode).toBe(422);
  });

  it('leaves and rejoins with balances restored', async () => {
    const tenant = await t.tenant();
    const membership = await member(tenant, 'leaver@example.com');
    await ok(adjust(tenant, membership.id, 120));
    const left = await ok(req(tenant, 'POST', `/loyalty-memberships/${membership.id}/leave`));
    expect(left.leftAt).toEqual(expect.any(String));
    expect((await req(tenant, 'POST', `/loyalty-memberships/${membership.id}/leave`)).statusCode).toBe(409);
    expect((await adjust(tenant, membership.id, 5)).statusCode).toBe(409);
    const rejoined = await ok(req(tenant, 'POST', '/loyalty-memberships', { customerId: membership.customerId }), 200);
    expect(rejoined).toMatchObject({
      id: membership.id,
      leftAt: null,
      pointsBalance: 120,
      lifetimePoints: 120,
      referralCode: membership.referralCode,
    });
    expect((await eventsOf(t, tenant.organization.id, 'loyaltyMembership.created')).length).toBe(2);
    const feed = await db()
      .selectFrom('loyalty_activity')
      .select('type')
      .where('loyalty_membership_id', '=', membership.id)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    expect(feed.map((entry) => entry.type)).toEqual(['joined', 'pointsAdjusted', 'left', 'rejoined']);
  });

  it('deletes with its ledger and sends loyaltyMembership.deleted', async () => {
    const tenant = await t.tenant();
    const membership = await member(tenant, 'gone@example.com');
    await ok(adjust(tenant, membership.id, 10));
    const deleted = await ok(req(tenant, 'DELETE', `/loyalty-memberships/${membership.id}`));
    expect(deleted).toMatchObject({ id: membership.id, pointsBalance: 10 });
    expect((await req(tenant, 'GET', `/loyalty-memberships/${membership.id}`)).statusCode).toBe(404);
    expect(
      (await eventsOf(t, tenant.organization.id, 'loyaltyMembership.deleted')).map((event) => event.payload),
    ).toEqual([deleted]);
    expect((await ok(req(tenant, 'GET', '/loyalty-activity'))).data).toEqual([]);
  });

  it('lists with filters, sorts, search and paging', async () => {
    const tenant = await t.tenant();
    const a = await member(tenant, 'alpha@example.com');
    const b = await member(tenant, 'bravo@example.com');
    await ok(adjust(tenant, a.id, 50));
    await ok(adjust(tenant, b.id, 10));
    const byEmail = await ok(
      req(tenant, 'GET', `/loyalty-memberships?${filter({ 'customer.email': 'bravo@example.com' })}`),
    );
    expect(byEmail.data.map((m: { id: string }) => m.id)).toEqual([b.id]);
    const rich = await ok(req(tenant, 'GET', `/loyalty-memberships?${filter({ pointsBalance: { $gte: 20 } })}`));
    expect(rich.data.map((m: { id: string }) => m.id)).toEqual([a.id]);
    const sorted = await ok(req(tenant, 'GET', '/loyalty-memberships?sort=-pointsBalance'));
    expect(sorted.data.map((m: { id: string }) => m.id)).toEqual([a.id, b.id]);
    const searched = await ok(req(tenant, 'GET', '/loyalty-memberships?search=ALPHA'));
    expect(searched.data.map((m: { id: string }) => m.id)).toEqual([a.id]);
    expect(
      (await ok(req(tenant, 'GET', `/loyalty-memberships?search=${b.referralCode.toLowerCase()}`))).data.map(
        (m: { id: string }) => m.id,
      ),
    ).toEqual([b.id]);
    const page = await ok(req(tenant, 'GET', '/loyalty-memberships?limit=1'));
    const next = await ok(req(tenant, 'GET', `/loyalty-memberships?limit=1&cursor=${page.nextCursor}`));
    expect([...page.data, ...next.data].map((m: { id: string }) => m.id)).toEqual([b.id, a.id]);
    expect((await req(tenant, 'GET', `/loyalty-memberships?${filter({ pointsBalance: 'many' })}`)).statusCode).toBe(
      400,
    );
  });

  it("answers another organization's membership as missing", async () => {
    const [a, b] = [await t.tenant(), await t.tenant()];
    const membership = await member(a, 'mine@example.com');
    for (const [method, url, body] of [
      ['GET', ''],
      ['PATCH', '', { tierAssignedManually: false }],
      ['DELETE', ''],
      ['POST', '/leave'],
      ['POST', '/points-adjustments', { points: 5, reason: 'x' }],
    ] as const) {
      expect(
        (await req(b, method, `/loyalty-memberships/${membership.id}${url}`, body)).statusCode,
        `${method} ${url}`,
      ).toBe(404);
    }
    expect((await ok(req(b, 'GET', '/loyalty-memberships'))).data).toEqual([]);
    expect((await ok(req(a, 'GET', `/loyalty-memberships/${membership.id}`))).pointsBalance).toBe(0);
  });
});

describe('tiers follow points', () => {
  it('upgrades on points, pins, unpins and recalculates on tier changes, with loyaltyMembership.tierChanged', async () => {
    const tenant = await t.tenant();
    const silver = await ok(req(tenant, 'POST', '/loyalty-tiers', { name: 'Silver', thresholdPoints: 100 }), 201);
    const gold = await ok(req(tenant, 'POST', '/loyalty-tiers', { name: 'Gold', thresholdPoints: 500 }), 201);
    const membership = await member(tenant, 'tiered@example.com');
    await ok(adjust(tenant, membership.id, 150));
    const current = await ok(req(tenant, 'GET', `/loyalty-memberships/${membership.id}`));
    expect(current).toMatchObject({ loyaltyTierId: silver.id, tierAssignedManually: false, tierReviewAt: null });
    expect(current.tierAttainedAt).toEqual(expect.any(String));
    // Spending never downgrades a lifetime tier.
    await ok(adjust(tenant, membership.id, -150));
    expect((await ok(req(tenant, 'GET', `/loyalty-memberships/${membership.id}`))).loyaltyTierId).toBe(silver.id);

    const pinned = await ok(req(tenant, 'PATCH', `/loyalty-memberships/${membership.id}`, { loyaltyTierId: gold.id }));
    expect(pinned).toMatchObject({ loyaltyTierId: gold.id, tierAssignedManually: true, tierReviewAt: null });
    await ok(req(tenant, 'PATCH', `/loyalty-tiers/${gold.id}`, { thresholdPoints: 50 }));
    expect((await ok(req(tenant, 'GET', `/loyalty-memberships/${membership.id}`))).loyaltyTierId).toBe(gold.id);
    const unpinned = await ok(
      req(tenant, 'PATCH', `/loyalty-memberships/${membership.id}`, { tierAssignedManually: false }),
    );
    // Gold is now at 50 and Silver at 100: 150 lifetime points earn Silver.
    expect(unpinned).toMatchObject({ loyaltyTierId: silver.id, tierAssignedManually: false });
    expect((await req(tenant, 'DELETE', `/loyalty-tiers/${silver.id}`)).statusCode).toBe(409);
    expect(
      (
        await req(tenant, 'PATCH', `/loyalty-memberships/${membership.id}`, {
          loyaltyTierId: gold.id,
          tierAssignedManually: false,
        })
      ).statusCode,
    ).toBe(400);
    expect(
      (
        await req(tenant, 'PATCH', `/loyalty-memberships/${membership.id}`, {
          loyaltyTierId: '0190a000-0000-7000-8000-000000000000',
        })
      ).statusCode,
    ).toBe(422);

    const changes = await eventsOf(t, tenant.organization.id, 'loyaltyMembership.tierChanged');
    expect(changes.map((event) => (event.payload as { loyaltyTierId: string }).loyaltyTierId)).toEqual([
      silver.id,
      gold.id,
      silver.id,
    ]);
  });

  it('gives rolling-window tiers a review date', async () => {
    const tenant = await t.tenant();
    const [program] = (await ok(req(tenant, 'GET', '/loyalty-programs'))).data;
    await ok(req(tenant, 'PATCH', `/loyalty-programs/${program.id}`, { tierWindow: { type: 'rolling', months: 6 } }));
    await ok(req(tenant, 'POST', '/loyalty-tiers', { name: 'Bronze', thresholdPoints: 10 }), 201);
    const membership = await member(tenant, 'rolling@example.com');
    await ok(adjust(tenant, membership.id, 10));
    const current = await ok(req(tenant, 'GET', `/loyalty-memberships/${membership.id}`));
    const months = (Date.parse(current.tierReviewAt) - Date.parse(current.tierAttainedAt)) / 86_400_000;
    expect(months).toBeGreaterThan(180);
    expect(months).toBeLessThan(186);
  });
});

describe('points adjustments and the ledger', () => {
  it('writes loyaltyTransactions, never below 0, and lists them in GET /loyalty-activity', async () => {
    const tenant = await t.tenant();
    const membership = await member(tenant, 'points@example.com');
    const credit = await ok(adjust(tenant, membership.id, 100, 'Welcome gift'));
    expect(credit).toMatchObject({
      loyaltyMembershipId: membership.id,
      customerId: membership.customerId,
      kind: 'adjusted',
      points: 100,
      balanceAfter: 100,
      reason: 'Welcome gift',
      loyaltyRuleId: null,
      loyaltyRewardId: null,
      orderId: null,
      eventName: null,
      expiresAt: null,
      metadata: {},
    });
    const refused = await adjust(tenant, membership.id, -101);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.message).toMatch(/balance is 100/);
    const debit = await ok(adjust(tenant, membership.id, -100));
    expect(debit.balanceAfter).toBe(0);
    expect((await ok(req(tenant, 'GET', `/loyalty-memberships/${membership.id}`))).pointsBalance).toBe(0);

    for (const [body, path] of [
      [{ points: 0, reason: 'x' }, 'body.points'],
      [{ points: 1.5, reason: 'x' }, 'body.points'],
      [{ points: 2 ** 53, reason: 'x' }, 'body.points'],
      [{ points: 5 }, 'body.reason'],
      [{ points: 5, reason: '' }, 'body.reason'],
      [{ points: '5', reason: 'x' }, 'body.points'],
    ] as const) {
      const response = await req(tenant, 'POST', `/loyalty-memberships/${membership.id}/points-adjustments`, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().error.details[0].path).toBe(path);
    }
    const events = await eventsOf(t, tenant.organization.id, 'loyaltyTransaction.created');
    expect(events.map((event) => event.payload)).toEqual([credit, debit]);

    const activity = await ok(
      req(
        tenant,
        'GET',
        `/loyalty-activity?include=customer,membership&${filter({ 'customer.email': 'points@example.com', kind: 'adjusted' })}`,
      ),
    );
    expect(activity.data.map((entry: { id: string }) => entry.id)).toEqual([debit.id, credit.id]);
    expect(activity.data[0].customer.email).toBe('points@example.com');
    expect(activity.data[0].membership.id).toBe(membership.id);
    const credits = await ok(req(tenant, 'GET', `/loyalty-activity?${filter({ points: { $gt: 0 } })}&sort=points`));
    expect(credits.data.map((entry: { id: string }) => entry.id)).toEqual([credit.id]);
    expect(
      (await ok(req(tenant, 'GET', '/loyalty-activity?search=welcome'))).data.map((entry: { id: string }) => entry.id),
    ).toEqual([credit.id]);
    expect((await t.tenant().then((other) => ok(req(other, 'GET', '/loyalty-activity')))).data).toEqual([]);
  });

  it('consumes credits soonest-expiring first, keeping sum(remaining) equal to the balance', async () => {
    const tenant = await t.tenant();
    const [program] = (await ok(req(tenant, 'GET', '/loyalty-programs'))).data;
    const membership = await member(tenant, 'fifo@example.com');
    const forever = await ok(adjust(tenant, membership.id, 30));
    await ok(
      req(tenant, 'PATCH', `/loyalty-programs/${program.id}`, { pointsExpiry: { type: 'daysAfterEarning', days: 30 } }),
    );
    const expiring = await ok(adjust(tenant, membership.id, 50));
    expect(Date.parse(expiring.expiresAt) - Date.parse(expiring.createdAt)).toBe(30 * 86_400_000);
    await ok(adjust(tenant, membership.id, -60));
    const rows = await db()
      .selectFrom('loyalty_transactions')
      .select(['id', 'remaining'])
      .where('loyalty_membership_id', '=', membership.id)
      .execute();
    const remaining = new Map(rows.map((row) => [row.id, row.remaining]));
    expect(remaining.get(expiring.id)).toBe(0);
    expect(remaining.get(forever.id)).toBe(20);
  });

  it('imports memberships with balances and tiers (D34), skipping or failing on missing references', async () => {
    const tenant = await t.tenant();
    const tier = await ok(req(tenant, 'POST', '/loyalty-tiers', { name: 'Gold', thresholdPoints: 1000 }), 201);
    const [ann, bob] = await customers(tenant, 'ann@example.com', 'bob@example.com');
    const first = await ok(
      req(tenant, 'POST', '/loyalty-memberships/import', {
        data: [
          { customer: 'ANN@example.com', pointsBalance: 200 },
          { customer: bob!.id, loyaltyTierId: tier.id },
          { customer: 'nobody@example.com', pointsBalance: 5 },
        ],
      }),
    );
    expect(first.skipped).toEqual([{ index: 2, message: expect.stringMatching(/nobody@example.com/) }]);
    expect(first).toMatchObject({ created: 2, updated: 0, unchanged: 0 });
    expect(first.data).toMatchObject([
      { customerId: ann!.id, pointsBalance: 200, lifetimePoints: 200, loyaltyTierId: null },
      { customerId: bob!.id, pointsBalance: 0, loyaltyTierId: tier.id, tierAssignedManually: false },
    ]);
    const second = await ok(
      req(tenant, 'POST', '/loyalty-memberships/import', { data: [{ customer: ann!.id, pointsBalance: 50 }] }),
    );
    expect(second.data[0]).toMatchObject({ id: first.data[0].id, pointsBalance: 50, lifetimePoints: 200 });
    expect(second).toMatchObject({ created: 0, updated: 1, unchanged: 0 });
    // The same balance and tier again: nothing written, counted unchanged.
    const same = await ok(
      req(tenant, 'POST', '/loyalty-memberships/import', {
        data: [
          { customer: ann!.id, pointsBalance: 50 },
          { customer: bob!.id, loyaltyTierId: tier.id },
        ],
      }),
    );
    expect(same).toMatchObject({ created: 0, updated: 0, unchanged: 2 });
    expect(same.data[0].updatedAt).toBe(second.data[0].updatedAt);
    const strict = await req(tenant, 'POST', '/loyalty-memberships/import', {
      strict: true,
      data: [{ customer: ann!.id, pointsBalance: 1 }, { customer: 'nobody@example.com' }],
    });
    expect(strict.statusCode).toBe(422);
    expect((await ok(req(tenant, 'GET', `/loyalty-memberships/${first.data[0].id}`))).pointsBalance).toBe(50);
    const repeat = await req(tenant, 'POST', '/loyalty-memberships/import', {
      data: [{ customer: ann!.id }, { customer: 'ann@example.com' }],
    });
    expect(repeat.statusCode).toBe(400);
    expect((await eventsOf(t, tenant.organization.id, 'loyaltyMembership.created')).length).toBe(2);
    expect(
      (await eventsOf(t, tenant.organization.id, 'loyaltyTransaction.created')).map(
        (event) => (event.payload as { points: number }).points,
      ),
    ).toEqual([200, -150]);
    const tooMany = await req(tenant, 'POST', '/loyalty-memberships/import', {
      data: Array.from({ length: 1001 }, () => ({ customer: 'x@example.com' })),
    });
    expect(tooMany.statusCode).toBe(413);
  });

  it('charges 10 tokens for an import', async () => {
    const tenant = await t.tenant();
    const response = await req(tenant, 'POST', '/loyalty-memberships/import', { data: [] });
    expect(response.statusCode).toBe(200);
    expect(response.headers['ratelimit']).toMatch(/r=590/);
  });
});

// PGlite runs one connection at a time, so only PostgreSQL can put two spends truly side by side.
describe.skipIf(!postgresUrl)('concurrent spends on PostgreSQL', () => {
  it('lets exactly as many spends through as the balance covers', async () => {
    const tenant = await t.tenant({ apiRequestsPerMinute: 10_000 });
    const membership = await member(tenant, 'race@example.com');
    await ok(adjust(tenant, membership.id, 100));
    const responses = await Promise.all(Array.from({ length: 40 }, () => adjust(tenant, membership.id, -30)));
    const statuses = responses.map((response) => response.statusCode).sort();
    expect(statuses.filter((status) => status === 200)).toHaveLength(3);
    expect(statuses.filter((status) => status === 409)).toHaveLength(37);
    const final = await ok(req(tenant, 'GET', `/loyalty-memberships/${membership.id}`));
    expect(final.pointsBalance).toBe(10);
    const ledger = await db()
      .selectFrom('loyalty_transactions')
      .select(['points', 'balance_after', 'remaining'])
      .where('loyalty_membership_id', '=', membership.id)
      .execute();
    expect(ledger.reduce((sum, row) => sum + row.points, 0)).toBe(10);
    expect(ledger.filter((row) => row.points > 0).reduce((sum, row) => sum + (row.remaining ?? 0), 0)).toBe(10);
    expect(new Set(ledger.map((row) => row.balance_after)).size).toBe(ledger.length);
  });
});
