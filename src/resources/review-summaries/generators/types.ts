import type { GeneratedSummary } from '../schemas.js';

/** A published review as a generator reads it. */
export interface ReviewText {
  id: string;
  rating: number;
  title: string;
  body: string;
  /** The language tag stored on the review, when the store sent one. */
  language: string | null;
  createdAt: Date;
}

/**
 * What a generator writes: the summary's fields (checked against GeneratedSummary before anything is replaced)
 * and the ids of the reviews its text draws on, among those it was given. Not part of the API response: stored
 * beside the summary, so that a summary whose source review is withdrawn (unpublished, flagged, deleted, moved)
 * is regenerated at once. A generator that cannot tell which reviews it used (a model may paraphrase any) reports
 * every review it read.
 */
export type GeneratorOutput = GeneratedSummary & { sourceReviewIds: string[] };

/**
 * Writes a product's summary from its published reviews. Implementations: the built-in extractive one (no
 * network) and an OpenAI-compatible chat API, chosen by configuration (REVIEW_SUMMARY_GENERATOR).
 */
export interface SummaryGenerator {
  /** For logs and metrics: builtin or openai. */
  readonly kind: 'builtin' | 'openai';
  /** Stored on each summary: which model wrote it. */
  readonly modelId: string;
  /** Stored on each summary: the version of the method or prompt, bumped when its output would change. */
  readonly promptVersion: number;
  /** The most reviews one generation reads (the newest ones); undefined reads them all. */
  readonly maxReviews?: number | undefined;
  /** The most characters (titles and bodies) those reviews may hold together; undefined for no bound. */
  readonly maxCharacters?: number | undefined;
  generate(reviews: readonly ReviewText[]): Promise<GeneratorOutput>;
}

export type GenerationFailure = 'http_error' | 'timeout' | 'network_error' | 'invalid_output' | 'no_text';

/** A generation that produced nothing usable; `reason` labels the failure metric. */
export class GenerationError extends Error {
  constructor(
    readonly reason: GenerationFailure,
    message: string,
  ) {
    super(message);
    this.name = 'GenerationError';
  }
}
