import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { expireDuePoints } from '../../src/resources/loyalty/engine/ledger.js';
import { expireAllDueRewards } from '../../src/resources/loyalty/engine/rewards/transitions.js';
import { ACTIVITY_KINDS } from '../../src/records/loyalty/activity-entry.js';
import * as feedMigration from '../../src/db/migrations/0025_member_activity_feed.js';

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
const coupon = { type: 'amountCoupon', amountCents: 500, productFilter: null, minimumOrderTotalCents: null };
const GHOST = '0190a000-0000-7000-8000-000000000000';

async function member(tenant: Tenant, email: string) {
  const { data } = await ok(req(tenant, 'POST', '/customers/import', { data: [{ email }] }));
  return ok(req(tenant, 'POST', '/loyalty-memberships', { customerId: data[0].id }), 201);
}
const rule = (tenant: Tenant, section: string, name: string, config: unknown) =>
  ok(req(tenant, 'POST', '/loyalty-rules', { section, name, config }), 201);
/** Every entry of a member's feed, newest first, walked page by page. */
async function feed(tenant: Tenant, id: string, query = ''): Promise<any[]> {
  const entries: any[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await ok(
      req(tenant, 'GET', `/loyalty-memberships/${id}/activity?limit=3${query}${cursor ? `&cursor=${cursor}` : ''}`),
    );
    entries.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return entries;
}
const feedRows = (membershipId: string) =>
  db().selectFrom('loyalty_activity').selectAll().where('loyalty_membership_id', '=', membershipId).execute();

/** A tenant where ann and cy have been through every kind of change the feed records. */
async function story() {
  const tenant = await t.tenant();
  const orgId = tenant.organization.id;
  await ok(req(tenant, 'POST', '/sites', { name: 'Shop', domain: 'shop.example.com' }), 201);
  const ann = await member(tenant, 'ann@example.com');
  const cy = await member(tenant, 'cy@example.com');
  const gold = await ok(req(tenant, 'POST', '/loyalty-tiers', { name: 'Gold', thresholdPoints: 100 }), 201);
  await ok(
    req(tenant, 'POST', `/loyalty-memberships/${ann.id}/points-adjustments`, { points: 150, reason: 'Goodwill' }),
  );
  const perk = await rule(tenant, 'rewards', 'Perk', { pointsCost: 50, reward: coupon });
  const claimed = await ok(
    req(tenant, 'POST', `/loyalty-memberships/${ann.id}/claim`, { loyaltyRuleId: perk.id }),
    201,
  );
  await ok(req(tenant, 'POST', '/loyalty-rewards/redeem', { code: claimed.code }));
  const byHand = await ok(
    req(tenant, 'POST', '/loyalty-rewards', { loyaltyMembershipId: ann.id, reward: coupon, reason: 'Late parcel' }),
    201,
  );
  await ok(req(tenant, 'POST', `/loyalty-rewards/${byHand.id}/revoke`, { reason: 'Issued twice' }));
  const lapsing = await ok(
    req(tenant, 'POST', '/loyalty-rewards', { loyaltyMembershipId: ann.id, reward: coupon }),
    201,
  );
  await sql`update loyalty_rewards set expires_at = now() - interval '1 minute' where id = ${lapsing.id}::uuid`.execute(
    db(),
  );
  await expireAllDueRewards(db(), orgId, new Date());
  await rule(tenant, 'rules', 'Signup', { type: 'event', eventName: 'signup', points: 10 });
  await ok(req(tenant, 'POST', '/loyalty-events', { loyaltyMembershipId: ann.id, event: 'signup' }));
  await rule(tenant, 'stampCards', 'Coffee', { stampsRequired: 2, reward: coupon, stampsPerOrder: 0 });
  await ok(req(tenant, 'POST', '/loyalty-stamps', { loyaltyMembershipId: ann.id, stamps: 2 }));
  await ok(
    req(tenant, 'POST', '/loyalty-history', {
      data: [
        {
          loyaltyMembershipId: ann.id,
          kind: 'earned',
          points: 7,
          createdAt: '2024-01-01T00:00:00Z',
          expiresAt: '2024-06-01T00:00:00Z',
          reason: 'Old shop',
        },
      ],
    }),
  );
  await expireDuePoints(db(), orgId, new Date());
  // cy is referred by ann; cy's first order earns and attributes the referral.
  await ok(
    req(tenant, 'POST', '/loyalty-events', {
      loyaltyMembershipId: cy.id,
      event: 'signup',
      referralCode: ann.referralCode,
    }),
  );
  await rule(tenant, 'rules', 'Points per dollar', { type: 'orderSpend', pointsPerUnit: 1 });
  await ok(
    req(tenant, 'POST', '/orders/import', {
      data: [
        { site: 'shop.example.com', customer: 'cy@example.com', remoteId: 'C1', number: '#C1', totalCents: 2_500 },
      ],
    }),
  );
  await ok(req(tenant, 'POST', `/loyalty-activity/bulk-expire?${filter({ loyaltyMembershipId: cy.id })}`));
  await ok(req(tenant, 'POST', `/loyalty-memberships/${ann.id}/leave`));
  await ok(req(tenant, 'POST', '/loyalty-memberships', { customerId: ann.customerId }));
  return { tenant, ann, cy, gold, claimed, byHand, lapsing };
}

describe('GET /loyalty-memberships/{id}/activity', () => {
  it('shows an entry for every kind of change, newest first, each written by the real operation', async () => {
    const { tenant, ann, cy, gold, claimed, byHand, lapsing } = await story();
    const annFeed = await feed(tenant, ann.id);
    const cyFeed = await feed(tenant, cy.id);
    expect(annFeed.map((entry) => entry.kind)).toEqual([
      'rejoined',
      'left',
      'referralAttributed',
      'pointsExpired',
      'stampCardCompleted',
      'rewardIssued',
      'stampAdded',
      'pointsEarned',
      'rewardExpired',
      'rewardIssued',
      'rewardRevoked',
      'rewardIssued',
      'rewardRedeemed',
      'rewardIssued',
      'pointsSpent',
      'tierChanged',
      'pointsAdjusted',
      'joined',
      'pointsEarned', // history keeps its 2024 date
    ]);
    expect(cyFeed.map((entry) => entry.kind)).toEqual([
      'pointsExpired',
      'pointsEarned', // the order
      'pointsEarned', // the signup
      'joined',
    ]);
    const kinds = new Set([...annFeed, ...cyFeed].map((entry) => entry.kind));
    expect([...kinds].sort()).toEqual([...ACTIVITY_KINDS].sort());

    const one = (kind: string, match: (entry: any) => boolean = () => true) =>
      annFeed.find((entry) => entry.kind === kind && match(entry));
    expect(one('pointsAdjusted')).toEqual({
      id: expect.any(String),
      kind: 'pointsAdjusted',
      occurredAt: expect.any(String),
      points: 150,
      loyaltyTransactionId: expect.any(String),
      loyaltyRewardId: null,
      stampCardId: null,
      loyaltyTierId: null,
      reason: 'Goodwill',
    });
    expect(one('tierChanged')).toMatchObject({ loyaltyTierId: gold.id, points: null });
    expect(one('pointsSpent')).toMatchObject({ points: -50 });
    expect(one('rewardRedeemed')).toMatchObject({ loyaltyRewardId: claimed.id });
    expect(one('rewardIssued', (entry) => entry.loyaltyRewardId === byHand.id)).toMatchObject({
      reason: 'Late parcel',
    });
    expect(one('rewardRevoked')).toMatchObject({ loyaltyRewardId: byHand.id, reason: 'Issued twice' });
    expect(one('rewardExpired')).toMatchObject({ loyaltyRewardId: lapsing.id });
    expect(one('stampAdded')!.stampCardId).toEqual(expect.any(String));
    expect(one('stampCardCompleted')).toMatchObject({
      stampCardId: one('stampAdded')!.stampCardId,
      loyaltyRewardId: expect.any(String),
    });
    expect(annFeed.at(-1)).toMatchObject({ occurredAt: '2024-01-01T00:00:00.000Z', points: 7, reason: 'Old shop' });
    expect(one('pointsExpired')).toMatchObject({ points: -7, reason: 'Points expired' });
    expect(cyFeed[0]).toMatchObject({ kind: 'pointsExpired', points: -35, reason: 'Expired in bulk' });
    // Every points entry names its ledger entry, and the ledger has no movement without one.
    const ledger = await ok(
      req(tenant, 'GET', `/loyalty-activity?${filter({ loyaltyMembershipId: ann.id })}&limit=250`),
    );
    expect(
      annFeed
        .filter((entry) => entry.kind.startsWith('points'))
        .map((entry) => entry.loyaltyTransactionId)
        .sort(),
    ).toEqual(ledger.data.map((row: any) => row.id).sort());
  });

  it('filters by kind and occurredAt, pages with the list cursor, and refuses a bad filter with 400', async () => {
    const tenant = await t.tenant();
    const ann = await member(tenant, 'ann@example.com');
    for (const points of [10, 20, 30, 40, 50])
      await ok(
        req(tenant, 'POST', `/loyalty-memberships/${ann.id}/points-adjustments`, { points, reason: `+${points}` }),
      );
    const all = await feed(tenant, ann.id);
    expect(all.map((entry) => entry.points)).toEqual([50, 40, 30, 20, 10, null]);
    expect((await feed(tenant, ann.id, `&${filter({ kind: 'joined' })}`)).map((entry) => entry.kind)).toEqual([
      'joined',
    ]);
    expect(
      (
        await feed(
          tenant,
          ann.id,
          `&${filter({ kind: { $in: ['pointsAdjusted'] }, occurredAt: { $lte: all[2].occurredAt } })}`,
        )
      ).map((entry) => entry.points),
    ).toEqual(
      all
        .slice(2)
        .filter((entry) => entry.kind === 'pointsAdjusted')
        .map((entry) => entry.points),
    );
    expect((await feed(tenant, ann.id, '&sort=occurredAt')).map((entry) => entry.points)).toEqual(
      [...all].reverse().map((entry) => entry.points),
    );

    for (const query of [
      filter({ kind: 'stamped' }),
      filter({ loyaltyMembershipId: ann.id }),
      filter({ occurredAt: { $gt: 'yesterday' } }),
      'sort=points',
      'limit=0',
      'cursor=nonsense',
    ]) {
      const response = await req(tenant, 'GET', `/loyalty-memberships/${ann.id}/activity?${query}`);
      expect(response.statusCode, `${query}: ${response.body}`).toBe(400);
      expect(response.json().error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('answers 404 for a missing membership and for another organization’s, exactly alike', async () => {
    const tenant = await t.tenant();
    const other = await t.tenant();
    const theirs = await member(other, 'them@example.com');
    const missing = await req(tenant, 'GET', `/loyalty-memberships/${GHOST}/activity`);
    const foreign = await req(tenant, 'GET', `/loyalty-memberships/${theirs.id}/activity`);
    expect(missing.statusCode).toBe(404);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error).toEqual({ ...missing.json().error, requestId: foreign.json().error.requestId });
  });
});

describe('feed entries are written with their change', () => {
  it('leaves no entry when the change is refused', async () => {
    const tenant = await t.tenant();
    const ann = await member(tenant, 'ann@example.com');
    const before = (await feedRows(ann.id)).length;
    expect(
      (await req(tenant, 'POST', `/loyalty-memberships/${ann.id}/points-adjustments`, { points: -5, reason: 'x' }))
        .statusCode,
    ).toBe(409);
    const overdraft = await req(tenant, 'POST', '/loyalty-history', {
      data: [
        { loyaltyMembershipId: ann.id, kind: 'earned', points: 5, createdAt: '2024-01-01T00:00:00Z' },
        { loyaltyMembershipId: ann.id, kind: 'spent', points: -9, createdAt: '2024-01-02T00:00:00Z' },
      ],
    });
    expect(overdraft.statusCode).toBe(409);
    await ok(req(tenant, 'POST', `/loyalty-memberships/${ann.id}/leave`));
    expect(
      (await req(tenant, 'POST', '/loyalty-rewards', { loyaltyMembershipId: ann.id, reward: coupon, reason: 'x' }))
        .statusCode,
    ).toBe(409);
    expect((await feedRows(ann.id)).map((row) => row.type).sort()).toEqual(['joined', 'left']);
    expect(before).toBe(1);
  });

  it('writes the entries of a bulk expiry over many members in the expiry statement', async () => {
    const tenant = await t.tenant();
    const members = [];
    for (const name of ['a', 'b', 'c']) {
      const m = await member(tenant, `${name}@example.com`);
      await ok(req(tenant, 'POST', `/loyalty-memberships/${m.id}/points-adjustments`, { points: 5, reason: 'x' }));
      members.push(m);
    }
    expect(await ok(req(tenant, 'POST', '/loyalty-activity/bulk-expire', { reason: 'Closing' }))).toEqual({
      count: 3,
      points: 15,
    });
    for (const m of members) {
      expect((await feed(tenant, m.id))[0]).toMatchObject({ kind: 'pointsExpired', points: -5, reason: 'Closing' });
    }
  });
});

describe('migration 0025: the feed back-filled', () => {
  it('writes the entries the old rows tell, once, and renames the stamp entries', async () => {
    const { tenant, ann } = await story();
    const now = await feed(tenant, ann.id);
    // Back to the feed as it was: no points, completions or referrals, and memberships that never had a joined entry.
    await feedMigration.down(db() as unknown as Kysely<unknown>);
    await sql`delete from loyalty_activity where loyalty_membership_id = ${ann.id}::uuid
      and type in ('joined', 'rejoined', 'left', 'rewardIssued')`.execute(db());
    await feedMigration.up(db() as unknown as Kysely<unknown>);
    const after = await feed(tenant, ann.id);
    const kinds = (entries: any[]) => entries.map((entry) => entry.kind).sort();
    // Joining and the rewards' issue come back from the membership and reward rows; a member back in the program
    // keeps no trace of leaving and rejoining.
    expect(kinds(after)).toEqual(kinds(now.filter((entry) => !['left', 'rejoined'].includes(entry.kind))));
    const issued = after.find((entry) => entry.kind === 'rewardIssued' && entry.reason === 'Late parcel');
    expect(issued).toBeDefined();
    expect(after.find((entry) => entry.kind === 'stampAdded').stampCardId).toEqual(expect.any(String));
    const old = after.find((entry) => entry.kind === 'pointsEarned' && entry.reason === 'Old shop');
    expect(old.occurredAt).toBe('2024-01-01T00:00:00.000Z');
    // Running it again adds nothing.
    await feedMigration.up(db() as unknown as Kysely<unknown>);
    expect((await feed(tenant, ann.id)).length).toBe(after.length);
  });
});
