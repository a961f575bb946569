import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_VERSION } from '../../src/versions/index.js';
import { startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('GET /v1/organization (D13)', () => {
  it("returns the key's own organization with its plan and settings", async () => {
    const { organization, key } = await t.tenant({
      name: 'Acme',
      timezone: 'Europe/Berlin',
      apiRequestsPerMinute: 1200,
    });
    const response = await t.request({ url: '/v1/organization', key });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      id: organization.id,
      name: 'Acme',
      livemode: true,
      timezone: 'Europe/Berlin',
      plan: { apiRequestsPerMinute: 1200, loyaltyEventsPerMinute: 120, loyaltyStampsPerMinute: 120 },
      settings: { cascadeDeleteReviews: false, reviewSummaryMinReviews: 5, expiringSoonDays: 7 },
      // A new organization starts on the newest API version (docs/api.md#api-versions).
      apiVersion: LATEST_VERSION,
    });
    expect(response.headers['ratelimit-policy']).toBe('"org";q=1200;w=60');
  });

  it('shows each organization only its own record', async () => {
    const a = await t.tenant({ name: 'A' });
    const b = await t.tenant({ name: 'B' });
    expect((await t.request({ url: '/v1/organization', key: a.key })).json().name).toBe('A');
    expect((await t.request({ url: '/v1/organization', key: b.key })).json().name).toBe('B');
  });

  it('reads settings as stored per organization', async () => {
    const { organization, key } = await t.tenant();
    await t.testDatabase.database.db
      .updateTable('organizations')
      .set({
        cascade_delete_reviews: true,
        review_summary_min_reviews: 3,
        expiring_soon_days: 14,
        loyalty_events_per_minute: 240,
      })
      .where('id', '=', organization.id)
      .execute();
    const body = (await t.request({ url: '/v1/organization', key })).json();
    expect(body.settings).toEqual({ cascadeDeleteReviews: true, reviewSummaryMinReviews: 3, expiringSoonDays: 14 });
    expect(body.plan.loyaltyEventsPerMinute).toBe(240);
  });
});

describe('PATCH /v1/organization (D38)', () => {
  const patch = (key: string, body: unknown) => t.request({ method: 'PATCH', url: '/v1/organization', key, body });
  const stored = (id: string) =>
    t.testDatabase.database.db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('changes the name, time zone and settings, wrapped in data or bare, and answers the record', async () => {
    const { organization, key } = await t.tenant({ name: 'Acme' });
    const wrapped = await patch(key, {
      data: { name: '  Acme Coffee ', timezone: 'Europe/Berlin', settings: { cascadeDeleteReviews: true } },
    });
    expect(wrapped.statusCode).toBe(200);
    expect(wrapped.json()).toEqual({
      id: organization.id,
      name: 'Acme Coffee',
      livemode: true,
      timezone: 'Europe/Berlin',
      plan: { apiRequestsPerMinute: 600, loyaltyEventsPerMinute: 120, loyaltyStampsPerMinute: 120 },
      settings: { cascadeDeleteReviews: true, reviewSummaryMinReviews: 5, expiringSoonDays: 7 },
      apiVersion: LATEST_VERSION,
    });
    const bare = await patch(key, { settings: { reviewSummaryMinReviews: 3, expiringSoonDays: 14 } });
    expect(bare.statusCode).toBe(200);
    expect(bare.json().settings).toEqual({
      cascadeDeleteReviews: true,
      reviewSummaryMinReviews: 3,
      expiringSoonDays: 14,
    });
    expect((await t.request({ url: '/v1/organization', key })).json()).toEqual(bare.json());
  });

  it('is refused with 403 to a key without organization:write, and GET stays open to it', async () => {
    const { organization, key } = await t.tenant({ permissions: ['orders:read'] });
    const before = await stored(organization.id);
    const response = await patch(key, { name: 'Taken over' });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({
      error: {
        code: 'FORBIDDEN',
        message: expect.stringContaining('"organization:write"'),
      },
    });
    expect(await stored(organization.id)).toEqual(before);
    expect((await t.request({ url: '/v1/organization', key })).statusCode).toBe(200);
    const writer = await t.key(organization.id, ['organization:write']);
    expect((await patch(writer, { name: 'Renamed' })).statusCode).toBe(200);
  });

  it.each([
    ['a summary threshold of 0', { settings: { reviewSummaryMinReviews: 0 } }, 'body.settings.reviewSummaryMinReviews'],
    [
      'a summary threshold of 101',
      { settings: { reviewSummaryMinReviews: 101 } },
      'body.settings.reviewSummaryMinReviews',
    ],
    ['expiringSoonDays of 91', { data: { settings: { expiringSoonDays: 91 } } }, 'body.data.settings.expiringSoonDays'],
    ['expiringSoonDays of 1.5', { settings: { expiringSoonDays: 1.5 } }, 'body.settings.expiringSoonDays'],
    ['an unknown time zone', { timezone: 'Mars/Olympus_Mons' }, 'body.timezone'],
    ['an offset instead of a zone', { data: { timezone: '+05:00' } }, 'body.data.timezone'],
    ['a blank name', { name: '   ' }, 'body.name'],
    ['the plan, which is the operator’s', { plan: { apiRequestsPerMinute: 100000 } }, 'body.plan'],
    ['an unknown setting', { settings: { theme: 'dark' } }, 'body.settings.theme'],
    ['both forms at once', { data: { name: 'A' }, name: 'B' }, 'body.name'],
  ])('refuses %s with 400 in the envelope, changing nothing', async (_, body, path) => {
    const { organization, key } = await t.tenant();
    const before = await stored(organization.id);
    const response = await patch(key, body);
    expect(response.statusCode).toBe(400);
    const { error } = response.json();
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.message).toEqual(expect.any(String));
    expect(error.details.map((detail: { path: string }) => detail.path)).toContain(path);
    expect(await stored(organization.id)).toEqual(before);
  });

  it('writes nothing when nothing changes: updatedAt keeps its value (docs/api.md "Writes that change nothing")', async () => {
    const { organization, key } = await t.tenant({ name: 'Same', timezone: 'Asia/Tokyo' });
    const before = await stored(organization.id);
    for (const body of [
      {},
      { data: {} },
      { name: 'Same', timezone: 'Asia/Tokyo', settings: { cascadeDeleteReviews: false, expiringSoonDays: 7 } },
    ]) {
      const response = await patch(key, body);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ name: 'Same', timezone: 'Asia/Tokyo' });
    }
    expect(await stored(organization.id)).toEqual(before);
    await patch(key, { settings: { expiringSoonDays: 8 } });
    expect((await stored(organization.id)).updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());
  });

  it('sends no event: the catalog has no organization event', async () => {
    const { organization, key } = await t.tenant();
    await patch(key, { name: 'Evented?', settings: { expiringSoonDays: 30 } });
    const events = await t.testDatabase.database.db
      .selectFrom('events')
      .select('name')
      .where('organization_id', '=', organization.id)
      .execute();
    expect(events).toEqual([]);
  });

  it("changes only the calling key's organization", async () => {
    const a = await t.tenant({ name: 'A' });
    const b = await t.tenant({ name: 'B' });
    const before = await stored(b.organization.id);
    const response = await patch(a.key, { data: { name: 'A2', settings: { cascadeDeleteReviews: true } } });
    expect(response.json().id).toBe(a.organization.id);
    expect(await stored(b.organization.id)).toEqual(before);
    expect((await t.request({ url: '/v1/organization', key: b.key })).json()).toMatchObject({
      name: 'B',
      settings: { cascadeDeleteReviews: false },
    });
  });
});
