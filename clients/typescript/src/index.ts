/**
 * The client for servers: everything of `@patron/client/browser` plus webhook verification (node:crypto). A page in a
 * browser imports `@patron/client/browser` instead, which never loads node-only modules.
 */
export * from './browser.js';
export {
  verifyWebhook,
  WebhookVerificationError,
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  type VerifyWebhookOptions,
  type WebhookEvent,
  type WebhookEventName,
  type WebhookEventOf,
  type WebhookHeaders,
  type WebhookTestEvent,
} from './webhooks.js';
