// Review text for the review-summary benches: `count` reviews of one product, made deterministically from the
// hand-written fixture set (test/fixtures/reviews): each keeps a fixture review's rating, language and first
// sentences and borrows one sentence from another review of the same language, so the vocabulary and the mix of
// praise and complaints stay realistic at any size (about 85 % English, 15 % German).
import type { ReviewText } from '../../src/resources/review-summaries/generators/types.js';
import { earbuds } from '../../test/fixtures/reviews/earbuds.js';
import { merinoSweater } from '../../test/fixtures/reviews/merino-sweater.js';
import { mugSet } from '../../test/fixtures/reviews/mug-set.js';
import { rainJacket } from '../../test/fixtures/reviews/rain-jacket.js';
import { trailShoe } from '../../test/fixtures/reviews/trail-shoe.js';

const POOL = [trailShoe, merinoSweater, rainJacket, mugSet, earbuds].flatMap((product) =>
  product.reviews
    .filter((review) => (review.published ?? true) && !review.flagged)
    .map((review) => ({
      ...review,
      language:
        review.language ?? (product.language === 'de' && !/\b(the|and)\b/i.test(review.body) ? 'de' : product.language),
    })),
);

const sentences = (text: string) =>
  [...new Intl.Segmenter('en', { granularity: 'sentence' }).segment(text)]
    .map((part) => part.segment.trim())
    .filter(Boolean);

export function benchReviews(count: number, start = Date.UTC(2025, 0, 1)): ReviewText[] {
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  return Array.from({ length: count }, (_, index) => {
    const base = POOL[index % POOL.length]!;
    const sameLanguage = POOL.filter((review) => review.language === base.language);
    const donor = sameLanguage[Math.floor(random() * sameLanguage.length)]!;
    const own = sentences(base.body);
    const borrowed = sentences(donor.body);
    const body = [...own.slice(0, Math.max(1, own.length - 1)), borrowed[Math.floor(random() * borrowed.length)]!].join(
      ' ',
    );
    return {
      id: `00000000-0000-7000-8000-${String(index).padStart(12, '0')}`,
      rating: base.rating,
      title: base.title,
      body,
      language: index % 3 === 0 ? null : base.language,
      createdAt: new Date(start + index * 3_600_000),
    };
  });
}
