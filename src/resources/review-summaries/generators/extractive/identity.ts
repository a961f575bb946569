import type { SummaryGenerator } from '../types.js';

/** The built-in generator's name and version, apart from the generator so that naming it loads none of its data. */
export const EXTRACTIVE_MODEL_ID = 'patron-extractive';
/** Bump when a change to this folder changes what it writes for the same reviews. */
export const EXTRACTIVE_VERSION = 1;

/** What the built-in generator says of itself, whether it is loaded now or on its first summary. */
export const EXTRACTIVE_IDENTITY = {
  kind: 'builtin',
  modelId: EXTRACTIVE_MODEL_ID,
  promptVersion: EXTRACTIVE_VERSION,
} as const satisfies Pick<SummaryGenerator, 'kind' | 'modelId' | 'promptVersion'>;
