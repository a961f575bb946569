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
} from './client.js';
export { PatronError, type ErrorDetail, type ErrorEnvelope } from './errors.js';
export { DEFAULT_RETRY, type RetryEvent, type RetryOptions } from './retry.js';
export {
  verifyWebhook,
  WebhookVerificationError,
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  type VerifyWebhookOptions,
  type WebhookHeaders,
} from './webhooks.js';
export type { components, operations, paths } from './generated/schema.js';

import type { components } from './generated/schema.js';
/** The records of the API by name, e.g. `Schemas['Customer']`. */
export type Schemas = components['schemas'];
