import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
      timezone: 'Europe/Berlin',
      plan: { apiRequestsPerMinute: 1200, loyaltyEventsPerMinute: 120, loyaltyStampsPerMinute: 120 },
      settings: { cascadeDeleteReviews: false, reviewSummaryMinReviews: 5, expiringSoonDays: 7 },
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
