import type { ReviewSummaryGeneratorConfig } from '../../../config/index.js';
import { EXTRACTIVE_IDENTITY } from './extractive/identity.js';
import { createOpenAiGenerator } from './openai.js';
import type { SummaryGenerator } from './types.js';

export type { ReviewText, SummaryGenerator } from './types.js';
export { GenerationError } from './types.js';

/** The generator the configuration chooses (REVIEW_SUMMARY_GENERATOR, docs/api.md#summary-generators). */
export function createSummaryGenerator(config: ReviewSummaryGeneratorConfig): SummaryGenerator {
  return config.kind === 'openai' ? createOpenAiGenerator(config) : lazyExtractiveGenerator();
}

/**
 * The built-in generator, loaded on its first summary. Its language detector and word lists hold about 9 MB of heap;
 * a process that writes no summary (one started with --no-jobs, say) never loads them, and every full collection of
 * its heap is that much smaller (docs/api.md#running-the-server).
 */
function lazyExtractiveGenerator(): SummaryGenerator {
  let loaded: Promise<SummaryGenerator> | undefined;
  return {
    ...EXTRACTIVE_IDENTITY,
    generate: async (reviews) => {
      loaded ??= import('./extractive/index.js').then((module) => module.createExtractiveGenerator());
      return (await loaded).generate(reviews);
    },
  };
}
