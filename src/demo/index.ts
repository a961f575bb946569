import type { DocumentedExamples } from '../core/types.js';
import { OPERATION_EXAMPLES } from './examples.js';
import { RESPONSE_EXAMPLES } from './responses.js';

export { DEMO, DEMO_REDEEMABLE_CODE } from './ids.js';
export { DEMO_RECEIVER_URL, seedDemoWorld, type DemoWorldServices } from './world.js';

/** The examples the API document shows (docs/api.md#documented-examples-and-the-demo-world). */
export const DOCUMENTED_EXAMPLES: DocumentedExamples = { requests: OPERATION_EXAMPLES, responses: RESPONSE_EXAMPLES };
