/**
 * The client for browsers (`@patron/client/browser`): everything of the package but webhook verification, which needs
 * node:crypto and belongs on the server that receives webhooks. The dashboard imports this, in session mode:
 * `createPatronClient({ baseUrl: window.location.origin, session: { csrfToken } })`.
 */
export {
  createPatronClient,
  type CallInit,
  type ListItemOf,
  type ListPath,
  type Method,
  type OperationOf,
  type PageOf,
  type PaginateInit,
  type PathsOf,
  type PatronClient,
  type PatronClientOptions,
  type RequestBodyOf,
  type ResponseDataOf,
  type ResponseOf,
  type SessionAuth,
} from './client.js';
export { PatronError, type ErrorDetail, type ErrorEnvelope } from './errors.js';
export { DEFAULT_RETRY, type RetryEvent, type RetryOptions } from './retry.js';
export type {
  VerifyWebhookOptions,
  WebhookEvent,
  WebhookEventName,
  WebhookEventOf,
  WebhookHeaders,
  WebhookTestEvent,
} from './webhooks.js';
export type { components, operations, paths } from './generated/schema.js';

import type { components } from './generated/schema.js';
/** The records of the API by name, e.g. `Schemas['Customer']`. */
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
