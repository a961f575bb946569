/**
 * Picks the most representative sentences: each candidate becomes a TF-IDF vector (content words, stopwords out),
 * the centroid of all of them stands for "what reviewers keep saying", and candidates are ranked by cosine
 * similarity to it. Maximal marginal relevance then trades a little of that score for variety, so the picks do not
 * repeat one point. Linear in the number of sentences but for a fixed shortlist.
 */
export interface Candidate {
  text: string;
  /** Which review it comes from (the picks come from different reviews). */
  review: number;
  /** Its content words, lowercased. */
  terms: readonly string[];
}

type Vector = Map<string, number>;

const SHORTLIST = 60;
const LAMBDA = 0.7;
/** Above this similarity to a pick, a candidate says the same thing again. */
const DUPLICATE = 0.75;

function vectorize(terms: readonly string[], idf: ReadonlyMap<string, number>): Vector {
  const vector: Vector = new Map();
  for (const term of terms) vector.set(term, (vector.get(term) ?? 0) + (idf.get(term) ?? 0));
  let norm = 0;
  for (const value of vector.values()) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm > 0) for (const [term, value] of vector) vector.set(term, value / norm);
  return vector;
}

function dot(a: Vector, b: Vector): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let sum = 0;
  for (const [term, value] of small) {
    const other = large.get(term);
    if (other !== undefined) sum += value * other;
  }
  return sum;
}

export interface Ranked {
  candidate: Candidate;
  index: number;
  score: number;
  vector: Vector;
}

/** Every candidate with its similarity to the centroid, best first (ties: earlier candidate first). */
export function rankByCentrality(candidates: readonly Candidate[]): Ranked[] {
  const documentFrequency = new Map<string, number>();
  for (const candidate of candidates)
    for (const term of new Set(candidate.terms)) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  const idf = new Map<string, number>();
  for (const [term, frequency] of documentFrequency)
    idf.set(term, Math.log((1 + candidates.length) / (1 + frequency)) + 1);
  const vectors = candidates.map((candidate) => vectorize(candidate.terms, idf));
  const centroid: Vector = new Map();
  for (const vector of vectors)
    for (const [term, value] of vector) centroid.set(term, (centroid.get(term) ?? 0) + value);
  const normalizedCentroid: Vector = new Map();
  let norm = 0;
  for (const value of centroid.values()) norm += value * value;
  norm = Math.sqrt(norm) || 1;
  for (const [term, value] of centroid) normalizedCentroid.set(term, value / norm);
  return candidates
    .map((candidate, index) => ({
      candidate,
      index,
      score: dot(vectors[index]!, normalizedCentroid),
      vector: vectors[index]!,
    }))
    .sort((a, b) => b.score - a.score || a.index - b.index);
}

/** Up to `count` varied, central sentences from different reviews, in the order they were picked. */
export function pickRepresentative(ranked: readonly Ranked[], count: number): Ranked[] {
  const shortlist = ranked.slice(0, SHORTLIST);
  const picks: Ranked[] = [];
  while (picks.length < count) {
    let best: Ranked | undefined;
    let bestValue = -Infinity;
    for (const item of shortlist) {
      if (picks.includes(item) || picks.some((pick) => pick.candidate.review === item.candidate.review)) continue;
      const redundancy = Math.max(0, ...picks.map((pick) => dot(pick.vector, item.vector)));
      if (redundancy > DUPLICATE) continue;
      const value = LAMBDA * item.score - (1 - LAMBDA) * redundancy;
      if (value > bestValue) [best, bestValue] = [item, value];
    }
    if (!best) break;
    picks.push(best);
  }
  return picks;
}
