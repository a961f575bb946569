/**
 * Review summaries and withdrawn reviews (issue 6: unpublished reviews never leak into summary text): a summary
 * whose words come from a review that is unpublished, flagged, deleted (also with its customer) or moved to another
 * product is regenerated at once, outside the daily allowance; a withdrawal the summary does not quote changes
 * nothing; a hidden summary catches up when shown again; `previous` never brings withdrawn words back; a failed
 * regeneration removes the summary rather than leave the words up. Through HTTP, with the job runner ticked by hand.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarizeWithSources } from '../../src/resources/review-summaries/generators/extractive/index.js';
import { createOpenAiGenerator } from '../../src/resources/review-summaries/generators/openai.js';
import type { ReviewText, SummaryGenerator } from '../../src/resources/review-summaries/generators/types.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import {
  api,
  DAY,
  drain,
  importProducts,
  importReviews,
  ok,
  recordingLogger,
  summaryRunner,
  type Clock,
  type ReviewRow,
} from '../fixtures/reviews/harness.js';

let t: TestApp;
const clock: Clock = { now: new Date() };
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;
const tenant = () => t.tenant({ apiRequestsPerMinute: 1_000_000 });

/** One sentence each, all about the same shirt, so the built-in generator quotes some and not others. */
const BODIES = [
  'The linen shirt fits well and the fabric stays cool on hot summer days.',
  'Soft linen fabric and a relaxed fit, and the shirt still looks good after washing.',
  'The shirt arrived quickly and the linen feels soft and breathable in the heat.',
  'A great summer shirt, the linen is light and the fit is true to size.',
  'The buttons feel cheap, but the linen shirt itself is comfortable and cool.',
  'I wear this linen shirt every weekend because it is so light and comfortable.',
  'The colour faded a little after washing, otherwise a soft and breathable shirt.',
  'Nice cut and good stitching, the linen shirt looks smart with jeans.',
];

function rows(productId: string, prefix: string, count: number, from = 0): ReviewRow[] {
  const base = Date.now() - 30 * DAY;
  return Array.from({ length: count }, (_, index) => ({
    product: productId,
    remoteId: `${prefix}-${from + index + 1}`,
    rating: 4 + ((from + index) % 2),
    body: BODIES[(from + index) % BODIES.length]!,
    published: true,
    language: 'en',
    createdAt: new Date(base + (from + index) * 60_000).toISOString(),
  }));
}

const generationJobs = async (organizationId: string) =>
  (
    await db()
      .selectFrom('jobs')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('name', '=', 'reviewSummary.generate')
      .execute()
  ).length;
const summaryRow = (organizationId: string, productId: string) =>
  db()
    .selectFrom('review_summaries')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('product_id', '=', productId)
    .executeTakeFirstOrThrow();

/** A product with `count` reviews and its summary written by `generator` (the built-in one by default). */
async function summarized(count: number, options: { owner?: Tenant; generator?: SummaryGenerator } = {}) {
  const owner = options.owner ?? (await tenant());
  const slug = `shirt-${Math.random().toString(36).slice(2, 8)}`;
  const { [slug]: productId } = await importProducts(t, owner, [{ slug, title: 'Linen Shirt' }]);
  const input = rows(productId!, slug, count);
  const reviews = await importReviews(t, owner, input);
  const runner = summaryRunner(t, clock, options.generator ? { generator: options.generator } : {});
  await drain(runner, clock);
  const client = api(t, owner);
  const summary = await ok(client.summary(productId!));
  expect(summary).not.toBeNull();
  const byBody = new Map(input.map((row) => [row.body!, reviews[row.remoteId]]));
  /** The reviews whose sentence the summary text carries (each body is one sentence). */
  const quoted = (text: string) => [...byBody].filter(([body]) => text.includes(body)).map(([, review]) => review);
  return {
    owner,
    org: owner.organization.id,
    productId: productId!,
    slug,
    reviews,
    input,
    client,
    runner,
    summary,
    quoted,
  };
}

const patchReview = (owner: Tenant, id: string, body: object) =>
  ok(t.request({ method: 'PATCH', url: `/v1/reviews/${id}`, key: owner.key, body }));

/** Each way a review leaves what summaries read, applied to one review. */
const WITHDRAWALS: [string, (p: Awaited<ReturnType<typeof summarized>>, review: any) => Promise<unknown>][] = [
  ['unpublished (PATCH)', (p, review) => patchReview(p.owner, review.id, { published: false })],
  ['flagged (PATCH)', (p, review) => patchReview(p.owner, review.id, { flagged: true })],
  [
    'unpublished (bulk-update)',
    (p, review) =>
      ok(
        t.request({
          method: 'PATCH',
          url: `/v1/reviews/bulk-update?filter=${encodeURIComponent(JSON.stringify({ id: review.id }))}`,
          key: p.owner.key,
          body: { published: false },
        }),
      ),
  ],
  ['deleted', (p, review) => ok(p.client.call('DELETE', `/reviews/${review.id}`))],
  ['deleted with its customer', (p, review) => ok(p.client.call('DELETE', `/customers/${review.customerId}`))],
  [
    'moved to another product (import)',
    async (p, review) => {
      const other = `${p.slug}-other`;
      await importProducts(t, p.owner, [{ slug: other, title: 'Other Shirt' }]);
      const row = p.input.find((candidate) => candidate.body === review.body)!;
      await importReviews(t, p.owner, [{ ...row, product: other }]);
    },
  ],
];

describe('a review the current summary quotes is withdrawn', () => {
  it.each(WITHDRAWALS)(
    '%s: the summary is regenerated at once without its words, outside the daily allowance',
    async (_, withdraw) => {
      const p = await summarized(6);
      const [victim] = p.quoted(p.summary.summary);
      expect(victim, p.summary.summary).toBeDefined();
      const jobsBefore = await generationJobs(p.org);

      await withdraw(p, victim);
      expect(await generationJobs(p.org)).toBe(jobsBefore + 1);
      expect(await summaryRow(p.org, p.productId)).toMatchObject({
        pending_reason: 'withdrawn',
        regenerate_requested_at: null,
      });
      await drain(p.runner, clock);

      const after = await ok(p.client.summary(p.productId));
      expect(after.summary).not.toContain(victim.body);
      expect(after.generatedAt).not.toBe(p.summary.generatedAt);
      expect(after).toMatchObject({ reviewCount: 5, suppressedAt: null, previous: null });
      expect(p.quoted(after.summary).length).toBeGreaterThan(0);
      // Not a regeneration by hand: today's one is still available.
      expect((await summaryRow(p.org, p.productId)).regenerate_requested_at).toBeNull();
      expect(await ok(p.client.regenerate(p.productId), 202)).toEqual({ queued: true });
    },
  );

  it('leaves the summary alone when the withdrawn review is not quoted (no job, same text)', async () => {
    const p = await summarized(6);
    const quotedIds = new Set(p.quoted(p.summary.summary).map((review) => review.id));
    const unquoted = Object.values(p.reviews).filter((review) => !quotedIds.has(review.id));
    expect(unquoted.length).toBeGreaterThan(1);
    const jobsBefore = await generationJobs(p.org);
    await patchReview(p.owner, unquoted[0].id, { published: false });
    await ok(p.client.call('DELETE', `/reviews/${unquoted[1].id}`));
    expect(await generationJobs(p.org)).toBe(jobsBefore);
    await drain(p.runner, clock);
    expect(await ok(p.client.summary(p.productId))).toEqual(p.summary);
  });

  it('queues one regeneration for several withdrawals, and none more while a regeneration by hand is queued', async () => {
    const p = await summarized(8);
    const victims = p.quoted(p.summary.summary);
    expect(victims.length).toBeGreaterThan(1);
    const jobsBefore = await generationJobs(p.org);
    for (const victim of victims) await patchReview(p.owner, victim.id, { published: false });
    expect(await generationJobs(p.org)).toBe(jobsBefore + 1);
    await drain(p.runner, clock);
    const after = await ok(p.client.summary(p.productId));
    for (const victim of victims) expect(after.summary).not.toContain(victim.body);
    expect(after.reviewCount).toBe(8 - victims.length);

    // A regeneration asked for by hand is pending: it reads the reviews when it runs, so nothing is added.
    expect(await ok(p.client.regenerate(p.productId), 202)).toEqual({ queued: true });
    const [next] = p.quoted(after.summary);
    await patchReview(p.owner, next.id, { flagged: true });
    expect(await generationJobs(p.org)).toBe(jobsBefore + 2);
    await drain(p.runner, clock);
    expect((await ok(p.client.summary(p.productId))).summary).not.toContain(next.body);
  });

  it('rewrites the summary from the reviews left below the threshold, and removes it when none is left', async () => {
    const p = await summarized(5);
    const [victim] = p.quoted(p.summary.summary);
    await patchReview(p.owner, victim.id, { published: false });
    await drain(p.runner, clock);
    const rewritten = await ok(p.client.summary(p.productId));
    expect(rewritten).toMatchObject({ reviewCount: 4, previous: null });
    expect(rewritten.summary).not.toContain(victim.body);

    // Every review unpublished: nothing can replace the summary, so it goes at once (no job), as before a first one.
    const jobsBefore = await generationJobs(p.org);
    await ok(
      t.request({
        method: 'PATCH',
        url: `/v1/reviews/bulk-update?filter=${encodeURIComponent(JSON.stringify({ productId: p.productId }))}`,
        key: p.owner.key,
        body: { published: false },
      }),
    );
    expect(await ok(p.client.summary(p.productId))).toBeNull();
    expect(await generationJobs(p.org)).toBe(jobsBefore);
    expect((await p.client.accept(p.productId)).statusCode).toBe(404);
    // The overnight refresh has nothing to retry, and publishing enough reviews again writes a first summary (D20).
    await drain(p.runner, clock, new Date(Date.now() + 2 * DAY));
    expect(await ok(p.client.summary(p.productId))).toBeNull();
    await ok(
      t.request({
        method: 'PATCH',
        url: `/v1/reviews/bulk-update?filter=${encodeURIComponent(JSON.stringify({ productId: p.productId }))}`,
        key: p.owner.key,
        body: { published: true },
      }),
    );
    await drain(p.runner, clock);
    expect(await ok(p.client.summary(p.productId))).toMatchObject({ reviewCount: 5, previous: null });
  });

  it('regenerates again when a review it is about to quote is withdrawn while it generates', async () => {
    const owner = await tenant();
    let calls = 0;
    // Quotes the newest review; on its second call (the regeneration) unpublishes that review before answering.
    const racing: SummaryGenerator = {
      kind: 'builtin',
      modelId: 'quote-newest',
      promptVersion: 1,
      generate: async (reviews) => {
        calls += 1;
        const newest = reviews.at(-1)!;
        if (calls === 2) await patchReview(owner, newest.id, { published: false });
        return { summary: newest.body, themes: [], language: 'en', sourceReviewIds: [newest.id] };
      },
    };
    const p = await summarized(6, { owner, generator: racing });
    expect(await ok(p.client.regenerate(p.productId), 202)).toEqual({ queued: true });
    await drain(p.runner, clock);
    expect(calls).toBe(3);
    const after = await ok(p.client.summary(p.productId));
    // Written from the five reviews left; the summary it replaced quoted the withdrawn review, so it is not kept.
    expect(after).toMatchObject({ summary: BODIES[4], reviewCount: 5, previous: null });
  });
});

describe('the sources each generator reports', () => {
  const texts = (bodies: string[]): ReviewText[] =>
    bodies.map((body, index) => ({
      id: `0190a000-0000-7000-8000-${String(index).padStart(12, '0')}`,
      rating: 5,
      title: '',
      body,
      language: 'en',
      createdAt: new Date(Date.now() - (bodies.length - index) * DAY),
    }));

  it('built-in: exactly the reviews its sentences are copied from', () => {
    const reviews = texts(BODIES);
    const output = summarizeWithSources(reviews);
    const quoting = reviews.filter((review) => output.summary.includes(review.body)).map((review) => review.id);
    expect(quoting.length).toBeGreaterThan(1);
    expect(output.sourceReviewIds).toEqual(quoting.sort());
  });

  it('openai: every review it sent (the newest within its budget), whatever the model answers', async () => {
    let sentLines = 0;
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        const prompt: string = JSON.parse(body).messages[1].content;
        sentLines = prompt.split('\n').length - 1;
        response.setHeader('content-type', 'application/json');
        response.end(
          JSON.stringify({
            choices: [
              { message: { content: JSON.stringify({ summary: 'Reviewers like it.', themes: [], language: 'en' }) } },
            ],
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const generator = createOpenAiGenerator({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        model: 'stand-in',
        timeoutMs: 5_000,
      });
      const few = texts(BODIES.slice(0, 3));
      expect(await generator.generate(few)).toEqual({
        summary: 'Reviewers like it.',
        themes: [],
        language: 'en',
        sourceReviewIds: few.map((review) => review.id),
      });
      // 40 long reviews exceed the 60,000-character budget: only the newest are sent, and only they are sources.
      const many = texts(
        Array.from({ length: 40 }, (_, index) => `${'Very long review text. '.repeat(90)}Number ${index}.`),
      );
      const output = await generator.generate(many);
      expect(sentLines).toBeGreaterThan(1);
      expect(sentLines).toBeLessThan(40);
      expect(output.sourceReviewIds).toEqual(many.slice(-sentLines).map((review) => review.id));
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('a generator that does not name its sources', () => {
  it('is taken to draw on every review it read; one naming a review it did not read fails', async () => {
    const vague: SummaryGenerator = {
      kind: 'builtin',
      modelId: 'vague',
      promptVersion: 1,
      generate: async () => ({ summary: 'Reviewers like the shirt.', themes: [], language: 'en' }) as never,
    };
    const p = await summarized(6, { generator: vague });
    await patchReview(p.owner, p.reviews[`${p.slug}-3`].id, { published: false });
    expect(await summaryRow(p.org, p.productId)).toMatchObject({ pending_reason: 'withdrawn' });

    const inventing: SummaryGenerator = {
      kind: 'builtin',
      modelId: 'inventing',
      promptVersion: 1,
      generate: async () => ({
        summary: 'Reviewers like the shirt.',
        themes: [],
        language: 'en',
        sourceReviewIds: ['00000000-0000-7000-8000-000000000000'],
      }),
    };
    const logger = recordingLogger();
    await drain(summaryRunner(t, clock, { generator: inventing, logger, maxAttempts: 1 }), clock);
    expect(logger.lines.find((line) => line.level === 'error')).toMatchObject({
      object: { failure: 'invalid_output', productId: p.productId },
    });
    // The summary drew on the unpublished review and could not be replaced: it is removed, not left up.
    expect(await ok(p.client.summary(p.productId))).toBeNull();
  });
});

describe('a failed regeneration of a summary that quotes a withdrawn review', () => {
  it('removes the summary instead of leaving the words up until a retry; a later success writes a new one', async () => {
    const p = await summarized(6);
    const [victim] = p.quoted(p.summary.summary);
    const logger = recordingLogger();
    const failing: SummaryGenerator = {
      kind: 'builtin',
      modelId: 'broken',
      promptVersion: 1,
      generate: async () => {
        throw new Error('model crashed');
      },
    };
    const runner = summaryRunner(t, clock, { generator: failing, logger, maxAttempts: 2, retryDelayMs: 60_000 });
    await patchReview(p.owner, victim.id, { published: false });
    await drain(runner, clock);
    expect(await ok(p.client.summary(p.productId))).toBeNull();
    expect(logger.lines.find((line) => line.level === 'error')).toMatchObject({
      message: expect.stringMatching(/quoted a withdrawn review and was removed/),
      object: { productId: p.productId, removed: true, willRetry: true },
    });
    // The retry, with a generator that works, writes a fresh summary (no previous to fall back on).
    await drain(p.runner, clock, new Date(Date.now() + 61_000));
    const after = await ok(p.client.summary(p.productId));
    expect(after).toMatchObject({ reviewCount: 5, previous: null });
    expect(after.summary).not.toContain(victim.body);
  });

  it('leaves a summary that quotes nothing withdrawn untouched when its generation fails', async () => {
    const p = await summarized(6);
    const failing: SummaryGenerator = {
      kind: 'builtin',
      modelId: 'broken',
      promptVersion: 1,
      generate: async () => {
        throw new Error('model crashed');
      },
    };
    expect(await ok(p.client.regenerate(p.productId), 202)).toEqual({ queued: true });
    await drain(summaryRunner(t, clock, { generator: failing, maxAttempts: 1 }), clock);
    expect(await ok(p.client.summary(p.productId))).toEqual(p.summary);
  });
});

describe('a hidden summary', () => {
  it('is left alone while hidden (D21) and regenerated at once when shown again, outside the daily allowance', async () => {
    const p = await summarized(6);
    const [victim] = p.quoted(p.summary.summary);
    const hidden = await ok(p.client.suppress(p.productId, true));
    const jobsBefore = await generationJobs(p.org);
    await patchReview(p.owner, victim.id, { published: false });
    expect(await generationJobs(p.org)).toBe(jobsBefore);
    await drain(p.runner, clock);
    // The merchant's view still shows the hidden text; the storefront does not show a hidden summary.
    expect(await ok(p.client.summary(p.productId))).toEqual(hidden);

    const shown = await ok(p.client.suppress(p.productId, false));
    expect(shown.suppressedAt).toBeNull();
    expect(await generationJobs(p.org)).toBe(jobsBefore + 1);
    await drain(p.runner, clock);
    const after = await ok(p.client.summary(p.productId));
    expect(after).toMatchObject({ reviewCount: 5, suppressedAt: null, previous: null });
    expect(after.summary).not.toContain(victim.body);
    expect(await ok(p.client.regenerate(p.productId), 202)).toEqual({ queued: true });
  });

  it('showing a summary that quotes nothing withdrawn queues nothing', async () => {
    const p = await summarized(6);
    await ok(p.client.suppress(p.productId, true));
    const jobsBefore = await generationJobs(p.org);
    await ok(p.client.suppress(p.productId, false));
    expect(await generationJobs(p.org)).toBe(jobsBefore);
    expect(await ok(p.client.summary(p.productId))).toEqual(p.summary);
  });

  it('is removed when no review is left, hidden or not', async () => {
    const p = await summarized(5);
    await ok(p.client.suppress(p.productId, true));
    await ok(
      t.request({
        method: 'PATCH',
        url: `/v1/reviews/bulk-update?filter=${encodeURIComponent(JSON.stringify({ productId: p.productId }))}`,
        key: p.owner.key,
        body: { flagged: true },
      }),
    );
    expect(await ok(p.client.summary(p.productId))).toBeNull();
    expect((await p.client.suppress(p.productId, false)).statusCode).toBe(404);
  });
});

describe('previous never brings withdrawn words back', () => {
  // Quotes the newest review it reads, so which version quotes which review is known.
  const quoteNewest: SummaryGenerator = {
    kind: 'builtin',
    modelId: 'quote-newest',
    promptVersion: 1,
    generate: async (reviews) => {
      const newest = reviews.at(-1)!;
      return { summary: newest.body, themes: [], language: 'en', sourceReviewIds: [newest.id] };
    },
  };

  async function withPrevious() {
    const p = await summarized(5, { generator: quoteNewest });
    expect(p.summary.summary).toBe(BODIES[4]);
    const added = await importReviews(t, p.owner, rows(p.productId, p.slug, 1, 5));
    expect(await ok(p.client.regenerate(p.productId), 202)).toEqual({ queued: true });
    await drain(p.runner, clock);
    const current = await ok(p.client.summary(p.productId));
    expect(current).toMatchObject({ summary: BODIES[5], previous: { summary: BODIES[4] } });
    return { ...p, reviews: { ...p.reviews, ...added }, current };
  }

  it('drops previous at once when it quotes a withdrawn review; revert is then 409 and the current summary stays', async () => {
    const p = await withPrevious();
    const jobsBefore = await generationJobs(p.org);
    await patchReview(p.owner, p.reviews[`${p.slug}-5`].id, { published: false });
    expect(await generationJobs(p.org)).toBe(jobsBefore); // the current summary does not quote it
    const after = await ok(p.client.summary(p.productId));
    expect(after).toEqual({ ...p.current, previous: null });
    const revert = await p.client.revert(p.productId);
    expect(revert.statusCode).toBe(409);
    expect(revert.json().error).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/nothing to revert to/),
    });
    expect(await ok(p.client.summary(p.productId))).toEqual(after);
  });

  it('drops previous of a hidden summary too', async () => {
    const p = await withPrevious();
    await ok(p.client.suppress(p.productId, true));
    await ok(p.client.call('DELETE', `/reviews/${p.reviews[`${p.slug}-5`].id}`));
    expect(await ok(p.client.summary(p.productId))).toMatchObject({ summary: BODIES[5], previous: null });
    expect((await p.client.revert(p.productId)).statusCode).toBe(409);
  });

  it('refuses a revert to a previous that quotes a withdrawn review, however it got there', async () => {
    const p = await withPrevious();
    // As a summary written before sources were recorded could be: its previous quotes a review withdrawn earlier.
    await db()
      .updateTable('reviews')
      .set({ published: false })
      .where('organization_id', '=', p.org)
      .where('id', '=', p.reviews[`${p.slug}-5`].id)
      .execute();
    const revert = await p.client.revert(p.productId);
    expect(revert.statusCode).toBe(409);
    expect(revert.json().error.message).toMatch(/quotes a review that has since been unpublished/);
    expect(await ok(p.client.summary(p.productId))).toEqual(p.current);
  });

  it('a withdrawal regeneration does not keep the replaced summary as previous, so revert cannot restore it', async () => {
    const p = await withPrevious();
    await patchReview(p.owner, p.reviews[`${p.slug}-6`].id, { published: false });
    await drain(p.runner, clock);
    const after = await ok(p.client.summary(p.productId));
    // The regeneration quotes review 5 again; the summary it replaced (review 6's words) is not kept.
    expect(after).toMatchObject({ summary: BODIES[4], previous: null });
    expect((await p.client.revert(p.productId)).statusCode).toBe(409);
  });
});
