import type { DocumentedExamples } from '../core/types.js';
import { OPERATION_EXAMPLES } from './examples.js';
// Generated data, checked by test/contract/examples.test.ts; the build copies it to dist/data beside dist/src.
import storedResponses from '../../data/demo-responses.json' with { type: 'json' };

export { DEMO, DEMO_ANCHOR, DEMO_REDEEMABLE_CODE } from './ids.js';
export { HISTORY_DAYS } from './history.js';
export { DEMO_OWNER_PASSWORD } from './examples.js';
export { DEMO_RECEIVER_URL, seedDemoWorld, type DemoWorldServices } from './world.js';

/** The examples the API document shows (docs/api.md#documented-examples-and-the-demo-world). */
export const DOCUMENTED_EXAMPLES: DocumentedExamples = {
  requests: OPERATION_EXAMPLES,
  responses: storedResponses.responses,
};
