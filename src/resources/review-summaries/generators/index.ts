import type { ReviewSummaryGeneratorConfig } from '../../../config/index.js';
import { createExtractiveGenerator } from './extractive/index.js';
import { createOpenAiGenerator } from './openai.js';
import type { SummaryGenerator } from './types.js';

export type { ReviewText, SummaryGenerator } from './types.js';
export { GenerationError } from './types.js';

/** The generator the configuration chooses (REVIEW_SUMMARY_GENERATOR, docs/api.md#summary-generators). */
export function createSummaryGenerator(config: ReviewSummaryGeneratorConfig): SummaryGenerator {
  return config.kind === 'openai' ? createOpenAiGenerator(config) : createExtractiveGenerator();
}
