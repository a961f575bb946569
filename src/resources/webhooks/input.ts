import type { SecretBox } from '../../core/secret-box.js';
import type { EventCatalog } from '../../core/types.js';
import {
  generateStandardSecret,
  STANDARD_SECRET_MAX_BYTES,
  STANDARD_SECRET_MIN_BYTES,
  STANDARD_SECRET_PREFIX,
  standardSecretKey,
} from '../../events/signing.js';
import { checkWebhookUrlSyntax, resolveWebhookHost, type WebhookUrlPolicy } from '../../events/webhook-url.js';
import { ApiError, validationError, type ErrorDetail } from '../../core/errors.js';
import type { WebhookEndpointChanges } from './queries.js';
import type { WebhookFields } from './schemas.js';
import { invalidVersion, isKnownVersion } from '../../versions/index.js';

const fieldError = (path: string, message: string) =>
  validationError(`Invalid request: ${path} ${message}.`, [{ path, message }]);

/**
 * The URL rules at create and update (docs/api.md#webhook-url-rules-and-ssrf): the URL's form first, then where its
 * host resolves (SSRF). The same host is checked again at send time, since DNS can change in between.
 */
async function checkUrl(url: string, path: string, policy: WebhookUrlPolicy): Promise<void> {
  const reason = checkWebhookUrlSyntax(url, policy);
  if (reason) throw fieldError(`${path}.url`, reason);
  const resolved = await resolveWebhookHost(new URL(url).hostname, policy);
  if (!resolved.ok) throw fieldError(`${path}.url`, `is refused: ${resolved.reason}`);
}

/** Exact catalog names only; every unknown one is named. Duplicates collapse, keeping the first position. */
function checkEvents(events: readonly string[], path: string, catalog: EventCatalog): string[] {
  const unknown = events.flatMap((name, index) => (catalog.isKnown(name) ? [] : [{ name, index }]));
  if (unknown.length > 0) {
    const names = [...new Set(unknown.map(({ name }) => JSON.stringify(name)))];
    const details: ErrorDetail[] = unknown.map(({ name, index }) => ({
      path: `${path}.events[${index}]`,
      message: `${JSON.stringify(name)} is not a known event name`,
    }));
    throw validationError(
      `Invalid request: unknown event name${names.length > 1 ? 's' : ''} ${names.join(', ')} in ${path}.events; GET /v1/webhook-events lists the names an endpoint can subscribe to.`,
      details,
    );
  }
  return [...new Set(events)];
}

export const noSecretKey = (alternative = ', or send the request without hmacSecret or generateSecret') =>
  new ApiError(
    'SERVICE_UNAVAILABLE',
    `Webhook secrets cannot be stored: the server runs without PATRON_SECRET_KEY. Ask the operator to set it${alternative}.`,
  );

/**
 * The secret the request sets, if any (docs/api.md#endpoint-records-and-secrets): the one sent, checked when it claims
 * the Standard Webhooks form, or one generated for generateSecret. Undefined keeps the stored secret, null removes it.
 */
function secretOf(fields: WebhookFields, path: string): string | null | undefined {
  if (fields.generateSecret === true) {
    if (fields.hmacSecret !== undefined) {
      throw validationError(`Invalid request: send either ${path}.hmacSecret or ${path}.generateSecret, not both.`, [
        { path: `${path}.hmacSecret`, message: 'cannot be sent with generateSecret: true' },
        { path: `${path}.generateSecret`, message: 'cannot be true with hmacSecret' },
      ]);
    }
    return generateStandardSecret();
  }
  const secret = fields.hmacSecret;
  if (typeof secret === 'string' && secret.startsWith(STANDARD_SECRET_PREFIX) && !standardSecretKey(secret)) {
    throw fieldError(
      `${path}.hmacSecret`,
      `starts with ${STANDARD_SECRET_PREFIX} but is not a Standard Webhooks secret: ${STANDARD_SECRET_PREFIX} must be followed by the padded base64 of ${STANDARD_SECRET_MIN_BYTES} to ${STANDARD_SECRET_MAX_BYTES} bytes`,
    );
  }
  return secret;
}

/** What a body's fields are checked against: the URL rules, the secret box (null without a key), the event names. */
export interface ChangeRules {
  policy: WebhookUrlPolicy;
  box: SecretBox | null;
  catalog: EventCatalog;
}

/**
 * Turns validated body fields into the row changes: URL and events checked, secret checked (or generated) and
 * sealed. Only the fields sent appear; `secretCiphertext` is null when the secret is to be removed, and
 * `generatedSecret` is the secret to answer once when the server generated it.
 */
export async function toChanges(
  fields: WebhookFields,
  path: string,
  { policy, box, catalog }: ChangeRules,
): Promise<WebhookEndpointChanges & { generatedSecret?: string }> {
  // Cheap checks first, so a bad event name or secret is reported without waiting for DNS.
  const events = fields.events !== undefined ? checkEvents(fields.events, path, catalog) : undefined;
  if (typeof fields.apiVersion === 'string' && !isKnownVersion(fields.apiVersion)) {
    throw invalidVersion(fields.apiVersion, `${path}.apiVersion`);
  }
  const secret = secretOf(fields, path);
  if (secret && !box) throw noSecretKey();
  if (fields.url !== undefined) await checkUrl(fields.url, path, policy);
  return {
    url: fields.url,
    events,
    isActive: fields.isActive,
    apiVersion: fields.apiVersion,
    secretCiphertext: secret === undefined ? undefined : secret === null ? null : box!.seal(secret),
    ...(fields.generateSecret === true ? { generatedSecret: secret! } : {}),
  };
}
