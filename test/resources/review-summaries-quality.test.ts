/**
 * The built-in generator on a realistic, hand-annotated review set (test/fixtures/reviews): five products, English
 * and German, positive, negative and mixed. Checked through HTTP: theme counts recounted from the annotations,
 * every summary sentence a sentence of a published review of that product, nothing of unpublished or flagged reviews
 * in the text, the language, determinism.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createExtractiveGenerator,
  summarizeReviews,
} from '../../src/resources/review-summaries/generators/extractive/index.js';
import type { ReviewText } from '../../src/resources/review-summaries/generators/types.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import {
  api,
  DAY,
  drain,
  fixtureRows,
  importProducts,
  importReviews,
  ok,
  summaryRunner,
  type Clock,
} from '../fixtures/reviews/harness.js';
import { earbuds } from '../fixtures/reviews/earbuds.js';
import { merinoSweater } from '../fixtures/reviews/merino-sweater.js';
import { mugSet } from '../fixtures/reviews/mug-set.js';
import { rainJacket } from '../fixtures/reviews/rain-jacket.js';
import { trailShoe } from '../fixtures/reviews/trail-shoe.js';
import type { Aspect, FixtureProduct, FixtureReview } from '../fixtures/reviews/types.js';

const PRODUCTS = [trailShoe, merinoSweater, rainJacket, mugSet, earbuds];

let t: TestApp;
let owner: Tenant;
const clock: Clock = { now: new Date() };
const ids: Record<string, string> = {};
const rows: Record<string, ReturnType<typeof fixtureRows>> = {};
const reviewIds: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.tenant({ apiRequestsPerMinute: 1_000_000 });
  Object.assign(
    ids,
    await importProducts(
      t,
      owner,
      PRODUCTS.map(({ slug, title }) => ({ slug, title })),
    ),
  );
  for (const product of PRODUCTS) {
    rows[product.slug] = fixtureRows(product, ids[product.slug]!);
    const imported = await importReviews(t, owner, rows[product.slug]!);
    for (const [remoteId, review] of Object.entries(imported)) reviewIds[remoteId] = review.id;
  }
  await drain(summaryRunner(t, clock), clock);
});
afterAll(() => t.close());

const shown = (review: FixtureReview) => (review.published ?? true) && !review.flagged;
const sentencesOf = (text: string, language: string) =>
  [...new Intl.Segmenter(language, { granularity: 'sentence' }).segment(text)]
    .map((part) => part.segment.trim())
    .filter(Boolean);
const themeMinimum = (reviews: number) => Math.max(2, Math.ceil(reviews * 0.03));

/** The annotated count of reviews mentioning an aspect, and how they judge it. */
function annotated(product: FixtureProduct) {
  const counts = new Map<Aspect, { count: number; praise: number; complaints: number }>();
  for (const review of product.reviews.filter(shown)) {
    for (const [aspect, judgement] of Object.entries(review.mentions) as [Aspect, string][]) {
      const entry = counts.get(aspect) ?? { count: 0, praise: 0, complaints: 0 };
      entry.count += 1;
      if (judgement === '+') entry.praise += 1;
      if (judgement === '-') entry.complaints += 1;
      counts.set(aspect, entry);
    }
  }
  return counts;
}

describe.each(PRODUCTS.map((product) => [product.slug, product] as const))('%s', (_slug, product) => {
  let summary: any;
  beforeAll(async () => {
    summary = await ok(api(t, owner).summary(ids[product.slug]!));
  });

  it('counts every published, unflagged review, dates it by the newest, and writes in their language', () => {
    const published = rows[product.slug]!.filter((row) => shown(row.fixture));
    expect(summary).toMatchObject({
      reviewCount: published.length,
      language: product.language,
      modelId: 'patron-extractive',
      promptVersion: 1,
    });
    expect(summary.newestReviewAt).toBe(published.at(-1)!.createdAt);
  });

  it("gives each theme the true number of reviews that mention it (recounted from the fixture's annotations)", () => {
    const truth = annotated(product);
    expect(summary.themes.length).toBeGreaterThan(2);
    for (const theme of summary.themes) {
      expect(theme.reviewCount, `theme ${theme.label}`).toBe(truth.get(theme.label)?.count ?? 0);
    }
    // And no recurring aspect is missing (at most eight themes are listed, the most mentioned first).
    const listed = new Set(summary.themes.map((theme: { label: string }) => theme.label));
    const smallestListed = Math.min(...summary.themes.map((theme: { reviewCount: number }) => theme.reviewCount));
    for (const [aspect, { count }] of truth) {
      if (
        count >= themeMinimum(product.reviews.filter(shown).length) &&
        (summary.themes.length < 8 || count > smallestListed)
      ) {
        expect(listed.has(aspect), `aspect ${aspect} (${count} reviews)`).toBe(true);
      }
    }
    const counts = summary.themes.map((theme: { reviewCount: number }) => theme.reviewCount);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
  });

  it('judges a theme positive or negative when the reviews clearly do', () => {
    const truth = annotated(product);
    for (const theme of summary.themes) {
      const { praise, complaints } = truth.get(theme.label)!;
      if (praise + complaints < 3) continue;
      if (praise / (praise + complaints) >= 0.85) expect(theme.sentiment, theme.label).toBe('positive');
      else if (complaints / (praise + complaints) >= 0.85) expect(theme.sentiment, theme.label).toBe('negative');
      else if (Math.min(praise, complaints) / (praise + complaints) >= 0.35)
        expect(theme.sentiment, theme.label).toBe('mixed');
    }
  });

  it('takes every summary sentence word for word from a published review of this product, and nothing from hidden ones', () => {
    const published = new Set(
      product.reviews.filter(shown).flatMap((review) => sentencesOf(review.body, product.language)),
    );
    const hidden = product.reviews
      .filter((review) => !shown(review))
      .flatMap((review) => sentencesOf(`${review.title}. ${review.body}`, product.language));
    const others = new Set(
      PRODUCTS.filter((other) => other !== product).flatMap((other) =>
        other.reviews.flatMap((review) => sentencesOf(review.body, other.language)),
      ),
    );
    const sentences = sentencesOf(summary.summary, product.language);
    expect(sentences.length).toBeGreaterThanOrEqual(2);
    for (const sentence of sentences) {
      expect(published.has(sentence), sentence).toBe(true);
      expect(others.has(sentence), sentence).toBe(false);
    }
    for (const sentence of hidden) expect(summary.summary).not.toContain(sentence);
  });
});

describe('the summary as a whole', () => {
  it('voices the complaints when many reviewers have them (the mugs break in transit)', async () => {
    const summary = await ok(api(t, owner).summary(ids[mugSet.slug]!));
    expect(summary.themes.find((theme: { label: string }) => theme.label === 'delivery')).toMatchObject({
      sentiment: 'negative',
    });
    expect(summary.summary).toMatch(/broken|chipped|cracked|padding|shattered/);
  });

  it('is the same for the same reviews, whatever their order', async () => {
    const product = merinoSweater;
    const reviews: ReviewText[] = rows[product.slug]!.filter((row) => shown(row.fixture)).map((row) => ({
      id: reviewIds[row.remoteId]!,
      rating: row.rating,
      title: row.title ?? '',
      body: row.body ?? '',
      language: row.language ?? null,
      createdAt: new Date(row.createdAt!),
    }));
    const first = summarizeReviews(reviews);
    expect(summarizeReviews([...reviews].reverse())).toEqual(first);
    // The generator also names the reviews its sentences come from (stored, not part of the API shape).
    const generated = await createExtractiveGenerator().generate([...reviews.slice(7), ...reviews.slice(0, 7)]);
    expect(generated).toEqual({ ...first, sourceReviewIds: expect.any(Array) });
    const quoted = sentencesOf(first.summary, 'en');
    const quoting = reviews
      .filter((review) => quoted.some((sentence) => review.body.includes(sentence)))
      .map((review) => review.id);
    expect(generated.sourceReviewIds).toEqual([...new Set(quoting)].sort());
    const stored = await ok(api(t, owner).summary(ids[product.slug]!));
    expect({ summary: stored.summary, themes: stored.themes, language: stored.language }).toEqual(first);
  });

  it('drops a review from the text once it is unpublished, at once (no overnight wait), and not into previous', async () => {
    const product = trailShoe;
    const client = api(t, owner);
    const before = await ok(client.summary(ids[product.slug]!));
    const quoted = sentencesOf(before.summary, 'en');
    const sources = product.reviews
      .map((review, index) => ({ review, index }))
      .filter(({ review }) => shown(review) && quoted.some((sentence) => review.body.includes(sentence)));
    expect(sources.length).toBeGreaterThan(0);
    for (const { index } of sources) {
      await ok(
        t.request({
          method: 'PATCH',
          url: `/v1/reviews/${reviewIds[`${product.slug}-${index + 1}`]}`,
          key: owner.key,
          body: { published: false },
        }),
      );
    }
    await drain(summaryRunner(t, clock), clock);
    const after = await ok(client.summary(ids[product.slug]!));
    expect(after.reviewCount).toBe(before.reviewCount - sources.length);
    for (const sentence of quoted) expect(after.summary).not.toContain(sentence);
    // The replaced summary quoted the unpublished reviews: it is not kept for revert.
    expect(after.previous).toBeNull();
  });

  it('summarizes a product whose reviews are all fragments with its most central one, as written', () => {
    const fragments = ['Great!', 'Love it', 'Great fit', 'Great quality', 'Great'].map((body, index) => ({
      id: `0000000${index}`,
      rating: 5,
      title: '',
      body,
      language: 'en',
      createdAt: new Date(Date.now() - index * DAY),
    }));
    const { summary, language } = summarizeReviews(fragments);
    expect(language).toBe('en');
    expect(fragments.map((review) => review.body)).toContain(summary);
  });
});
