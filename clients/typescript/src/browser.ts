/**
 * The client for browsers (`@patron/client/browser`): the main entry without webhook verification, whose HMAC needs
 * node:crypto and which only a receiver (a server) does. It imports nothing of webhooks.ts, not even its types, so a
 * browser build and its typecheck never meet node:crypto.
 */
export * from './client.js';
export { PatronError, type ErrorDetail, type ErrorEnvelope } from './errors.js';
export { DEFAULT_RETRY, type RetryEvent, type RetryOptions } from './retry.js';
export type { components, operations, paths } from './generated/schema.js';

import type { components } from './generated/schema.js';
/** The records of the API by name, e.g. `Schemas['Customer']` (as in the main entry). */
export type Schemas = components['schemas'];

/**
 * The config of a rule of section `S` (docs/api.md, "Rule sections and configs"). The document types a rule's config
 * as the union of the four, since which one applies depends on `section`; this picks the one for a section.
 */
export type RuleConfigOf<S extends Schemas['LoyaltyRule']['section']> = {
  rules: Schemas['EarningRuleConfig'];
  rewards: Schemas['ClaimableRuleConfig'];
  offers: Schemas['OfferRuleConfig'];
  stampCards: Schemas['StampCardRuleConfig'];
}[S];
