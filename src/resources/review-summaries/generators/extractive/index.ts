import type { GeneratedSummary, Theme, ThemeSentiment } from '../../schemas.js';
import { GenerationError, type GeneratorOutput, type ReviewText, type SummaryGenerator } from '../types.js';
import { dominantLanguage, reviewLanguage } from './language.js';
import { mentionPolarity, polarity, ratingSign } from './polarity.js';
import { pickRepresentative, rankByCentrality, type Candidate, type Ranked } from './select.js';
import { sentences, stopwords, words } from './text.js';
import { findThemes, THEME_LEXICON } from './themes.js';

import { EXTRACTIVE_IDENTITY, EXTRACTIVE_MODEL_ID, EXTRACTIVE_VERSION } from './identity.js';

export { EXTRACTIVE_MODEL_ID, EXTRACTIVE_VERSION };

/**
 * The built-in generator: no network, no model download, the same summary for the same reviews. It runs on the
 * server's thread, and its time grows faster than the text it reads, so it reads the newest reviews up to these bounds:
 * about 0.2 s of CPU on a quiet machine (docs/api.md#summary-generators).
 */
export const EXTRACTIVE_MAX_REVIEWS = 1_000;
export const EXTRACTIVE_MAX_CHARACTERS = 150_000;

export function createExtractiveGenerator(): SummaryGenerator {
  return {
    ...EXTRACTIVE_IDENTITY,
    maxReviews: EXTRACTIVE_MAX_REVIEWS,
    maxCharacters: EXTRACTIVE_MAX_CHARACTERS,
    generate: async (reviews) => summarizeWithSources(reviews),
  };
}

interface AnalyzedReview {
  review: ReviewText;
  index: number;
  language: string | null;
}

/** A theme is reported when at least this many reviews mention it: 2, or 3% of the reviews when that is more. */
const themeMinimum = (reviews: number) => Math.max(2, Math.ceil(reviews * 0.03));
const MAX_THEMES = 8;
/** Share of polarized mentions that makes a theme positive (or, from the other side, negative). */
const CLEAR_MAJORITY = 0.7;
/** A minority opinion this common gets a sentence of its own in the summary. */
const HEARD_MINORITY = 0.2;

export function summarizeReviews(input: readonly ReviewText[]): GeneratedSummary {
  const { summary, themes, language } = summarizeWithSources(input);
  return { summary, themes, language };
}

/** The summary and the reviews its sentences are copied from (themes only count mentions: they quote nothing). */
export function summarizeWithSources(input: readonly ReviewText[]): GeneratorOutput {
  if (input.length === 0) throw new GenerationError('no_text', 'There are no published reviews to summarize.');
  // Input order must not matter: the same reviews give the same summary.
  const reviews = [...input].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const analyzed = reviews.map((review, index) => ({
    review,
    index,
    language: reviewLanguage(review.language, review.title, review.body),
  }));
  const language = dominantLanguage(analyzed.map((review) => review.language));
  const text = summaryText(analyzed, language);
  const sourceReviewIds = [...new Set(text.sources.map((index) => analyzed[index]!.review.id))].sort();
  return { summary: text.summary, themes: themes(analyzed), language, sourceReviewIds };
}

function themes(reviews: readonly AnalyzedReview[]): Theme[] {
  const tally = new Map<string, { count: number; positive: number; negative: number }>();
  for (const { review, language } of reviews) {
    const text = `${review.title}\n${review.body}`.toLowerCase();
    for (const mention of findThemes(text, language)) {
      const entry = tally.get(mention.label) ?? { count: 0, positive: 0, negative: 0 };
      entry.count += 1;
      const judged = mentionPolarity(text, {
        indices: mention.indices,
        language,
        rating: review.rating,
        cue: mention.cue,
      });
      if (judged > 0) entry.positive += 1;
      if (judged < 0) entry.negative += 1;
      tally.set(mention.label, entry);
    }
  }
  const order = THEME_LEXICON.map((theme) => theme.label);
  return [...tally]
    .filter(([, entry]) => entry.count >= themeMinimum(reviews.length))
    .sort(([a, x], [b, y]) => y.count - x.count || order.indexOf(a) - order.indexOf(b))
    .slice(0, MAX_THEMES)
    .map(([label, entry]) => ({
      label,
      sentiment: themeSentiment(entry.positive, entry.negative),
      reviewCount: entry.count,
    }));
}

function themeSentiment(positive: number, negative: number): ThemeSentiment {
  const judged = positive + negative;
  if (judged === 0) return 'mixed';
  if (positive / judged >= CLEAR_MAJORITY) return 'positive';
  if (negative / judged >= CLEAR_MAJORITY) return 'negative';
  return 'mixed';
}

type SentenceCandidate = Candidate & { polarity: number };

const TERMINATED = /[.!?…。](?:["'”’»)\]]*)$/u;
const STARTS_WELL = /^["'“„«(]?[\p{Lu}\p{N}]/u;
const SHOUTING = /[!?]{2,}|https?:\/\/|www\.|@/iu;

/** A sentence that reads well on its own: a full sentence of reasonable length, not shouted, no links. */
function readsAlone(sentence: string, wordCount: number): boolean {
  if (wordCount < 5 || wordCount > 35 || sentence.length > 250) return false;
  if (!TERMINATED.test(sentence) || !STARTS_WELL.test(sentence) || SHOUTING.test(sentence)) return false;
  const letters = sentence.replace(/[^\p{L}]/gu, '');
  const upper = letters.replace(/[^\p{Lu}]/gu, '');
  return upper.length <= letters.length / 2;
}

function candidates(reviews: readonly AnalyzedReview[], language: string, strict: boolean): SentenceCandidate[] {
  const stop = stopwords(language);
  const seen = new Set<string>();
  const found: SentenceCandidate[] = [];
  for (const { review, index, language: own } of reviews) {
    if (language !== 'und' && own !== null && own !== language) continue;
    const texts = strict ? [review.body] : [review.body, review.title];
    for (const text of texts) {
      for (const sentence of sentences(text, language)) {
        const all = words(sentence);
        if (strict ? !readsAlone(sentence, all.length) : all.length === 0) continue;
        const key = all.join(' ');
        if (seen.has(key)) continue;
        seen.add(key);
        const terms = all.filter((word) => word.length > 1 && !stop.has(word) && !/^\d+$/.test(word));
        if (strict && terms.length < 2) continue;
        const judged = Math.sign(polarity(sentence, own ?? language)) || ratingSign(review.rating);
        found.push({ text: sentence, review: index, terms: terms.length ? terms : all, polarity: judged });
      }
    }
  }
  return found;
}

/**
 * Two or three sentences taken word for word from the reviews in the summary's language: the most central ones
 * (see select.ts), with one sentence for the praise or the complaints when at least a fifth of the reviews say so
 * and no pick does. Praise reads first, complaints last. `sources` are the indexes of the reviews they come from.
 */
function summaryText(reviews: readonly AnalyzedReview[], language: string): { summary: string; sources: number[] } {
  const strict = candidates(reviews, language, true);
  if (strict.length === 0) {
    // Only fragments ("Great!", "Love it") or titles: the single most central one, as written.
    const loose = rankByCentrality(candidates(reviews, language, false));
    if (loose.length === 0) throw new GenerationError('no_text', 'The published reviews have no text to summarize.');
    return { summary: loose[0]!.candidate.text, sources: [loose[0]!.candidate.review] };
  }
  const ranked = rankByCentrality(strict);
  const count = reviews.length >= 8 ? 3 : 2;
  const picks = pickRepresentative(ranked, count);
  const share = (wanted: number) =>
    reviews.filter((review) => ratingSign(review.review.rating) === wanted).length / reviews.length;
  const polarityOf = (item: Ranked) => (item.candidate as SentenceCandidate).polarity;
  for (const wanted of [-1, 1]) {
    if (share(wanted) < HEARD_MINORITY || picks.some((pick) => polarityOf(pick) === wanted)) continue;
    const voice = ranked.find(
      (item) => polarityOf(item) === wanted && !picks.some((pick) => pick.candidate.review === item.candidate.review),
    );
    if (!voice) continue;
    // Replace the least central pick whose view is still voiced by another pick.
    const replaceable = [...picks]
      .reverse()
      .find(
        (pick) => picks.filter((other) => polarityOf(other) === polarityOf(pick)).length > 1 || polarityOf(pick) === 0,
      );
    if (picks.length < count || !replaceable) picks.push(voice);
    else picks[picks.indexOf(replaceable)] = voice;
  }
  const ordered = [...picks.filter((pick) => polarityOf(pick) >= 0), ...picks.filter((pick) => polarityOf(pick) < 0)];
  return {
    summary: ordered.map((pick) => pick.candidate.text).join(' '),
    sources: ordered.map((pick) => pick.candidate.review),
  };
}
