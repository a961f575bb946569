/**
 * Review summaries through HTTP: D20 (threshold, null, first generation by itself), the lifecycle table (suppress,
 * regenerate, accept, revert), D21 (once per rolling day, 429 with Retry-After, queued false), tenancy, permissions
 * and input errors. Generation runs on a job runner the test ticks.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRunner } from '../../src/jobs/runner/runner.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { nextMillisecond } from '../support/clock.js';
import {
  api,
  DAY,
  drain,
  importProducts,
  importReviews,
  ok,
  simpleReviews,
  summaryRunner,
  type Clock,
} from '../fixtures/reviews/harness.js';

let t: TestApp;
let runner: JobRunner;
const clock: Clock = { now: new Date() };
beforeAll(async () => {
  t = await startTestApp();
  runner = summaryRunner(t, clock);
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const SUMMARY_KEYS = [
  'generatedAt',
  'language',
  'modelId',
  'newestReviewAt',
  'previous',
  'productId',
  'promptVersion',
  'reviewCount',
  'summary',
  'suppressedAt',
  'themes',
];
const VERSION_KEYS = SUMMARY_KEYS.filter((key) => !['previous', 'productId', 'suppressedAt'].includes(key));

const tenant = (extra: Parameters<TestApp['tenant']>[0] = {}) =>
  t.tenant({ apiRequestsPerMinute: 1_000_000, ...extra });
const generationJobs = (organizationId: string) =>
  db()
    .selectFrom('jobs')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('name', '=', 'reviewSummary.generate')
    .orderBy('created_at')
    .execute();
const summaryRow = (organizationId: string, productId: string) =>
  db()
    .selectFrom('review_summaries')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('product_id', '=', productId)
    .executeTakeFirst();
/** Moves the product's last manual regeneration back in time, as if it had happened `ms` ago. */
const regeneratedAgo = (organizationId: string, productId: string, ms: number) =>
  db()
    .updateTable('review_summaries')
    .set({ regenerate_requested_at: new Date(Date.now() - ms) })
    .where('organization_id', '=', organizationId)
    .where('product_id', '=', productId)
    .execute();

/** A tenant with one product holding `reviews` published reviews, its summary generated when that reaches 5. */
async function productWithReviews(reviews: number, who?: Tenant) {
  const owner = who ?? (await tenant());
  const slug = `product-${Math.random().toString(36).slice(2, 8)}`;
  const { [slug]: productId } = await importProducts(t, owner, [{ slug, title: 'Linen Shirt' }]);
  if (reviews) await importReviews(t, owner, simpleReviews(productId!, slug, reviews));
  await drain(runner, clock);
  return { tenant: owner, org: owner.organization.id, productId: productId!, slug, client: api(t, owner) };
}

describe('D20: a summary exists once the product has enough published reviews', () => {
  it('answers null below the threshold, then queues the first generation by itself and serves the summary', async () => {
    const p = await productWithReviews(0);
    expect(await ok(p.client.summary(p.productId))).toBeNull();
    // Four published plus unpublished and flagged ones: still below the default threshold of 5.
    await importReviews(t, p.tenant, [
      ...simpleReviews(p.productId, `${p.slug}-a`, 4),
      ...simpleReviews(p.productId, `${p.slug}-hidden`, 3, { published: false }),
      ...simpleReviews(p.productId, `${p.slug}-flagged`, 2, { flagged: true }),
    ]);
    expect(await generationJobs(p.org)).toEqual([]);
    expect(await drain(runner, clock)).toBe(0);
    expect(await ok(p.client.summary(p.productId))).toBeNull();

    const [fifth] = simpleReviews(p.productId, `${p.slug}-b`, 1, {
      createdAt: new Date(Date.now() - DAY).toISOString(),
    });
    await importReviews(t, p.tenant, [fifth!]);
    const jobs = await generationJobs(p.org);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.run_key.startsWith(`${p.productId}/`)).toBe(true);
    expect(await ok(p.client.summary(p.productId))).toBeNull(); // queued, not written yet

    await drain(runner, clock);
    const summary = await ok(p.client.summary(p.productId));
    expect(Object.keys(summary).sort()).toEqual(SUMMARY_KEYS);
    expect(summary).toMatchObject({
      productId: p.productId,
      reviewCount: 5,
      newestReviewAt: fifth!.createdAt,
      modelId: 'patron-extractive',
      promptVersion: 1,
      language: 'en',
      suppressedAt: null,
      previous: null,
    });
    expect(summary.generatedAt).toMatch(ISO_MS);
    expect(summary.summary.length).toBeGreaterThan(20);
    expect(summary.themes.length).toBeGreaterThan(0);
    for (const theme of summary.themes) expect(['positive', 'negative', 'mixed']).toContain(theme.sentiment);
    // The first generation is not a regeneration: the daily allowance is untouched.
    expect((await summaryRow(p.org, p.productId))!.regenerate_requested_at).toBeNull();
    expect(await ok(p.client.regenerate(p.productId), 202)).toEqual({ queued: true });
  });

  it("follows the organization's reviewSummaryMinReviews and counts only published, unflagged reviews", async () => {
    const owner = await tenant();
    await db()
      .updateTable('organizations')
      .set({ review_summary_min_reviews: 2 })
      .where('id', '=', owner.organization.id)
      .execute();
    const { 'two-reviews': productId } = await importProducts(t, owner, [{ slug: 'two-reviews', title: 'Mug' }]);
    await importReviews(t, owner, simpleReviews(productId!, 'two', 1));
    await drain(runner, clock);
    expect(await ok(api(t, owner).summary(productId!))).toBeNull();
    const reviews = await importReviews(t, owner, simpleReviews(productId!, 'two-more', 1));
    await drain(runner, clock);
    expect(await ok(api(t, owner).summary(productId!))).toMatchObject({ reviewCount: 2 });
    // Flagging one takes it out of what the next generation reads.
    await ok(
      t.request({
        method: 'PATCH',
        url: `/v1/reviews/${reviews['two-more-1'].id}`,
        key: owner.key,
        body: { flagged: true },
      }),
    );
    await ok(api(t, owner).regenerate(productId!), 202);
    await drain(runner, clock);
    // One summarizable review is below the threshold now: the generation is dropped, the summary stays.
    expect(await ok(api(t, owner).summary(productId!))).toMatchObject({ reviewCount: 2, previous: null });
  });

  it('queues one first generation however many imports race to the threshold', async () => {
    const p = await productWithReviews(3);
    await Promise.all(
      [0, 1, 2].map((i) => importReviews(t, p.tenant, simpleReviews(p.productId, `${p.slug}-race${i}`, 2))),
    );
    expect(await generationJobs(p.org)).toHaveLength(1);
    await drain(runner, clock);
    expect(await ok(p.client.summary(p.productId))).toMatchObject({ reviewCount: 9 });
  });

  it('answers 404 for PATCH, accept and revert while there is no summary; a deleted product takes its summary along', async () => {
    const p = await productWithReviews(2);
    for (const response of [
      p.client.suppress(p.productId, true),
      p.client.accept(p.productId),
      p.client.revert(p.productId),
    ]) {
      const answered = await response;
      expect(answered.statusCode).toBe(404);
      expect(answered.json().error).toMatchObject({
        code: 'NOT_FOUND',
        message: expect.stringMatching(/no review summary yet/),
      });
    }
    const q = await productWithReviews(5);
    expect(await ok(q.client.summary(q.productId))).not.toBeNull();
    await ok(q.client.call('DELETE', `/products/${q.productId}`));
    expect((await q.client.summary(q.productId)).statusCode).toBe(404);
    expect(await summaryRow(q.org, q.productId)).toBeUndefined();
  });
});

describe('what a generation reads', () => {
  it('reads the newest reviews within 150,000 characters, so that one product cannot hold the server for long', async () => {
    const p = await productWithReviews(0);
    // Ten reviews of 20,000 characters (the longest a body may be) and a title of 9 or 10: seven fit the budget.
    const long = simpleReviews(p.productId, p.slug, 10).map((row, index) => ({
      ...row,
      body: `${`Review ${index + 1} says the fit is perfect and the fabric feels soft. `.repeat(400)}`.slice(0, 20_000),
    }));
    await importReviews(t, p.tenant, long);
    await drain(runner, clock);
    const summary = await ok(p.client.summary(p.productId));
    expect(summary.reviewCount).toBe(7);
    expect(summary.newestReviewAt).toBe(long[9]!.createdAt);
  });
});

describe('lifecycle: regenerate, accept, revert', () => {
  it('regenerate queues a summary that goes live when written, keeping the replaced one in previous', async () => {
    const p = await productWithReviews(6);
    const first = await ok(p.client.summary(p.productId));
    await importReviews(t, p.tenant, simpleReviews(p.productId, `${p.slug}-new`, 2));
    expect(await ok(p.client.regenerate(p.productId), 202)).toEqual({ queued: true });
    expect(await ok(p.client.summary(p.productId))).toEqual(first); // not written yet
    await drain(runner, clock, new Date(Date.now() + 1_000));
    const second = await ok(p.client.summary(p.productId));
    expect(second.reviewCount).toBe(8);
    expect(second.generatedAt > first.generatedAt).toBe(true);
    const { productId: _p, suppressedAt: _s, previous: _v, ...firstVersion } = first;
    expect(second.previous).toEqual(firstVersion);
    expect(Object.keys(second.previous).sort()).toEqual(VERSION_KEYS);
  });

  it('accept keeps the current summary and forgets previous; with nothing to accept it answers the summary unchanged', async () => {
    const p = await productWithReviews(5);
    const first = await ok(p.client.summary(p.productId));
    expect(await ok(p.client.accept(p.productId))).toEqual(first);
    await ok(p.client.regenerate(p.productId), 202);
    await drain(runner, clock, new Date(Date.now() + 1_000));
    const regenerated = await ok(p.client.summary(p.productId));
    expect(regenerated.previous).not.toBeNull();
    const accepted = await ok(p.client.accept(p.productId));
    expect(accepted).toEqual({ ...regenerated, previous: null });
    expect(await ok(p.client.summary(p.productId))).toEqual(accepted);
    expect(await ok(p.client.accept(p.productId))).toEqual(accepted);
    const revert = await p.client.revert(p.productId);
    expect(revert.statusCode).toBe(409);
    expect(revert.json().error).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/nothing to revert/),
    });
  });

  it('revert makes previous current and discards the summary that replaced it; only the most recent regeneration can be undone', async () => {
    const p = await productWithReviews(5);
    const revertConflict = await p.client.revert(p.productId);
    expect(revertConflict.statusCode).toBe(409); // a first generation has no previous

    const v1 = await ok(p.client.summary(p.productId));
    await importReviews(t, p.tenant, simpleReviews(p.productId, `${p.slug}-2`, 1));
    await ok(p.client.regenerate(p.productId), 202);
    await drain(runner, clock, new Date(Date.now() + 1_000));
    const v2 = await ok(p.client.summary(p.productId));
    await regeneratedAgo(p.org, p.productId, DAY + 1_000);
    await importReviews(t, p.tenant, simpleReviews(p.productId, `${p.slug}-3`, 1));
    await ok(p.client.regenerate(p.productId), 202);
    await drain(runner, clock, new Date(Date.now() + 2_000));
    const v3 = await ok(p.client.summary(p.productId));
    expect([v1.reviewCount, v2.reviewCount, v3.reviewCount]).toEqual([5, 6, 7]);
    const { productId: _p, suppressedAt: _s, previous: _v, ...v2Version } = v2;
    expect(v3.previous).toEqual(v2Version);

    const reverted = await ok(p.client.revert(p.productId));
    expect(reverted).toEqual({ ...v2, previous: null });
    expect(await ok(p.client.summary(p.productId))).toEqual(reverted);
    // v1 is out of reach: the revert undid only the most recent regeneration.
    const again = await p.client.revert(p.productId);
    expect(again.statusCode).toBe(409);
    expect(await ok(p.client.summary(p.productId))).toEqual(reverted);
  });
});

describe('D21: regeneration once per rolling 24 hours', () => {
  it('answers a second call 429 TOO_MANY_REQUESTS with Retry-After until 24 hours have passed', async () => {
    const p = await productWithReviews(5);
    expect(await ok(p.client.regenerate(p.productId), 202)).toEqual({ queued: true });
    const second = await p.client.regenerate(p.productId);
    expect(second.statusCode).toBe(429);
    expect(second.json()).toEqual({
      error: { code: 'TOO_MANY_REQUESTS', message: expect.stringMatching(/once per 24 hours/) },
    });
    const retryAfter = Number(second.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(DAY / 1000 - 60);
    expect(retryAfter).toBeLessThanOrEqual(DAY / 1000);
    // Still limited after the generation ran, with the Retry-After counting down.
    await drain(runner, clock);
    await regeneratedAgo(p.org, p.productId, 23 * 3_600_000);
    const later = await p.client.regenerate(p.productId);
    expect(later.statusCode).toBe(429);
    expect(Number(later.headers['retry-after'])).toBeGreaterThan(3_500);
    expect(Number(later.headers['retry-after'])).toBeLessThanOrEqual(3_600);
    await regeneratedAgo(p.org, p.productId, DAY + 1);
    expect(await ok(p.client.regenerate(p.productId), 202)).toEqual({ queued: true });
  });

  it('answers queued: false below the threshold and while a generation is queued, without spending the day', async () => {
    const low = await productWithReviews(3);
    expect(await ok(low.client.regenerate(low.productId), 202)).toEqual({ queued: false });
    expect(await ok(low.client.regenerate(low.productId), 202)).toEqual({ queued: false });
    expect(await generationJobs(low.org)).toEqual([]);

    // Reaching the threshold queues the first generation: a regeneration asked for now finds it queued.
    const p = await productWithReviews(0);
    await importReviews(t, p.tenant, simpleReviews(p.productId, p.slug, 5));
    expect(await ok(p.client.regenerate(p.productId), 202)).toEqual({ queued: false });
    expect(await generationJobs(p.org)).toHaveLength(1);
    await drain(runner, clock);
    expect(await ok(p.client.regenerate(p.productId), 202)).toEqual({ queued: true });
  });

  it('lets two concurrent calls queue one regeneration and refuse the other', async () => {
    const p = await productWithReviews(5);
    const answers = await Promise.all([p.client.regenerate(p.productId), p.client.regenerate(p.productId)]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([202, 429]);
    expect(await generationJobs(p.org)).toHaveLength(2); // the first generation and this one
  });

  it('costs 5 tokens from the organization bucket', async () => {
    const owner = await t.tenant({ apiRequestsPerMinute: 600 });
    const p = await productWithReviews(0, owner);
    const tokensLeft = (answer: { headers: Record<string, unknown> }) =>
      Number(/r=(\d+)/.exec(String(answer.headers['ratelimit']))![1]);
    const before = tokensLeft(await p.client.summary(p.productId));
    const after = tokensLeft(await p.client.regenerate(p.productId));
    // Whole tokens shown; the bucket refills 10 per second meanwhile.
    expect(before - after).toBeGreaterThanOrEqual(4);
    expect(before - after).toBeLessThanOrEqual(5);
  });
});

describe('suppression', () => {
  it('hides the summary (GET still returns it with suppressedAt), keeps the first hiding time, and shows it again', async () => {
    const p = await productWithReviews(5);
    const shown = await ok(p.client.summary(p.productId));
    const hidden = await ok(p.client.suppress(p.productId, true));
    expect(hidden).toEqual({ ...shown, suppressedAt: expect.stringMatching(ISO_MS) });
    expect(await ok(p.client.summary(p.productId))).toEqual(hidden);
    expect(await ok(p.client.suppress(p.productId, true))).toEqual(hidden);
    expect(await ok(p.client.suppress(p.productId, false))).toEqual(shown);
  });

  it('writes nothing when asked for the state the summary is already in (docs/api.md#writes-that-change-nothing)', async () => {
    const p = await productWithReviews(5);
    const shown = await ok(p.client.suppress(p.productId, false));
    const untouched = await summaryRow(p.org, p.productId);
    await nextMillisecond();
    expect(await ok(p.client.suppress(p.productId, false))).toEqual(shown);
    expect(await summaryRow(p.org, p.productId)).toEqual(untouched);
    const hidden = await ok(p.client.suppress(p.productId, true));
    const hiddenRow = await summaryRow(p.org, p.productId);
    expect(hiddenRow!.updated_at.getTime()).toBeGreaterThan(untouched!.updated_at.getTime());
    await nextMillisecond();
    expect(await ok(p.client.suppress(p.productId, true))).toEqual(hidden);
    expect(await summaryRow(p.org, p.productId)).toEqual(hiddenRow);
  });

  it('survives new reviews and the overnight refresh; a regeneration by hand is allowed and stays suppressed', async () => {
    const hiddenProduct = await productWithReviews(5);
    const shownProduct = await productWithReviews(5, hiddenProduct.tenant);
    const untouchedProduct = await productWithReviews(5, hiddenProduct.tenant);
    const hidden = await ok(hiddenProduct.client.suppress(hiddenProduct.productId, true));
    const untouched = await ok(untouchedProduct.client.summary(untouchedProduct.productId));
    await importReviews(t, hiddenProduct.tenant, [
      ...simpleReviews(hiddenProduct.productId, `${hiddenProduct.slug}-new`, 3),
      ...simpleReviews(shownProduct.productId, `${shownProduct.slug}-new`, 3),
    ]);
    expect(await drain(runner, clock)).toBe(0); // new reviews alone queue nothing once a summary exists

    // The night: the refresh is queued once the organization's clock (UTC) reaches 02:30, so the clock is set past it
    // whatever the time the test runs at.
    const night = new Date(Date.now() + 2 * DAY);
    night.setUTCHours(3, 0, 0, 0);
    await drain(runner, clock, night);
    expect(await ok(hiddenProduct.client.summary(hiddenProduct.productId))).toEqual(hidden);
    expect(await ok(untouchedProduct.client.summary(untouchedProduct.productId))).toEqual(untouched);
    const refreshed = await ok(shownProduct.client.summary(shownProduct.productId));
    expect(refreshed).toMatchObject({ reviewCount: 8, suppressedAt: null, previous: { reviewCount: 5 } });

    expect(await ok(hiddenProduct.client.regenerate(hiddenProduct.productId), 202)).toEqual({ queued: true });
    await drain(runner, clock, new Date(night.getTime() + 60_000));
    const regenerated = await ok(hiddenProduct.client.summary(hiddenProduct.productId));
    expect(regenerated).toMatchObject({
      reviewCount: 8,
      suppressedAt: hidden.suppressedAt,
      previous: { reviewCount: 5 },
    });
  });
});

describe('tenancy, permissions and input', () => {
  it("answers another organization's product exactly like a missing one (404) and changes nothing", async () => {
    const p = await productWithReviews(5);
    const before = await ok(p.client.summary(p.productId));
    const stranger = api(t, await tenant());
    const missing = '018f0000-0000-7000-8000-000000000000';
    for (const productId of [p.productId, missing]) {
      for (const response of [
        stranger.summary(productId),
        stranger.suppress(productId, true),
        stranger.regenerate(productId),
        stranger.accept(productId),
        stranger.revert(productId),
      ]) {
        const answered = await response;
        expect(answered.statusCode, answered.body).toBe(404);
        expect(answered.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'The product was not found.' } });
      }
    }
    expect(await ok(p.client.summary(p.productId))).toEqual(before);
    expect((await summaryRow(p.org, p.productId))!.regenerate_requested_at).toBeNull();
  });

  it('needs reviews:read to read and reviews:write to change', async () => {
    const p = await productWithReviews(5);
    const reader = { ...p.tenant, key: await t.key(p.org, ['reviews:read']) };
    const writer = { ...p.tenant, key: await t.key(p.org, ['reviews:write']) };
    expect((await api(t, reader).summary(p.productId)).statusCode).toBe(200);
    expect((await api(t, writer).summary(p.productId)).statusCode).toBe(403);
    for (const response of [
      api(t, reader).suppress(p.productId, true),
      api(t, reader).regenerate(p.productId),
      api(t, reader).accept(p.productId),
      api(t, reader).revert(p.productId),
    ]) {
      const answered = await response;
      expect(answered.statusCode).toBe(403);
      expect(answered.json().error).toMatchObject({
        code: 'FORBIDDEN',
        message: expect.stringContaining('reviews:write'),
      });
    }
    expect((await api(t, writer).suppress(p.productId, true)).statusCode).toBe(200);
    expect((await t.request({ url: `/v1/products/${p.productId}/review-summary` })).statusCode).toBe(401);
  });

  it('refuses bad input with 400 VALIDATION_ERROR and changes nothing', async () => {
    const p = await productWithReviews(5);
    const before = await ok(p.client.summary(p.productId));
    const url = `/v1/products/${p.productId}/review-summary`;
    const cases: { method: 'PATCH' | 'POST' | 'GET'; url: string; body?: unknown; path: string }[] = [
      { method: 'PATCH', url, body: {}, path: 'body.suppressed' },
      { method: 'PATCH', url, body: { suppressed: 'yes' }, path: 'body.suppressed' },
      { method: 'PATCH', url, body: { suppressed: 1 }, path: 'body.suppressed' },
      { method: 'PATCH', url, body: { suppressed: true, note: 'x' }, path: 'body.note' },
      { method: 'PATCH', url, body: '{"suppressed": tru', path: 'body' },
      { method: 'PATCH', url, body: [true], path: 'body' },
      { method: 'POST', url: `${url}/regenerate`, body: { force: true }, path: 'body.force' },
      { method: 'POST', url: `${url}/accept`, body: { x: 1 }, path: 'body.x' },
      { method: 'POST', url: `${url}/revert`, body: 'null x', path: 'body' },
      { method: 'GET', url: '/v1/products/not-a-uuid/review-summary', path: 'path.id' },
      { method: 'GET', url: `${url}?include=previous`, path: 'query.include' },
    ];
    for (const { method, url: target, body, path } of cases) {
      const json = typeof body === 'string' ? { headers: { 'content-type': 'application/json' } } : {};
      const answered = await t.request({
        method,
        url: target,
        key: p.tenant.key,
        ...(body !== undefined ? { body } : {}),
        ...json,
      });
      expect(answered.statusCode, `${method} ${target} ${JSON.stringify(body)}: ${answered.body}`).toBe(400);
      expect(answered.json().error.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(answered.json().error.details ?? [])).toContain(path);
    }
    expect(await ok(p.client.summary(p.productId))).toEqual(before);
    expect((await summaryRow(p.org, p.productId))!.regenerate_requested_at).toBeNull();
    // The actions take an empty object, or no body at all.
    expect((await t.request({ method: 'POST', url: `${url}/accept`, key: p.tenant.key, body: {} })).statusCode).toBe(
      200,
    );
  });

  it('documents the five operations with their permission and cost', async () => {
    const spec = (await t.request({ url: '/openapi.json' })).json();
    const operation = (path: string, method: string) => spec.paths[path][method];
    const read = { 'x-permission': 'reviews:read', 'x-cost': 1 };
    const write = { 'x-permission': 'reviews:write', 'x-cost': 1 };
    expect(operation('/products/{id}/review-summary', 'get')).toMatchObject({
      operationId: 'getReviewSummary',
      ...read,
    });
    expect(operation('/products/{id}/review-summary', 'patch')).toMatchObject({
      operationId: 'updateReviewSummary',
      ...write,
    });
    expect(operation('/products/{id}/review-summary/regenerate', 'post')).toMatchObject({
      operationId: 'regenerateReviewSummary',
      ...write,
      'x-cost': 5,
    });
    expect(operation('/products/{id}/review-summary/accept', 'post')).toMatchObject({
      operationId: 'acceptReviewSummary',
      ...write,
    });
    expect(operation('/products/{id}/review-summary/revert', 'post')).toMatchObject({
      operationId: 'revertReviewSummary',
      ...write,
    });
  });
});

describe('schema', () => {
  it('keeps review_summaries keyed by organization and product, cascading from the product', async () => {
    const { rows } = await sql<{ definition: string }>`
      select pg_get_constraintdef(c.oid) as definition from pg_constraint c
      where c.conrelid = 'review_summaries'::regclass and c.contype = 'f'`.execute(db());
    expect(rows.map((row) => row.definition)).toContain(
      'FOREIGN KEY (organization_id, product_id) REFERENCES products(organization_id, id) ON DELETE CASCADE',
    );
  });
});
