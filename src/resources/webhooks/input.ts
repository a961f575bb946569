import { isKnownEventName } from '../../events/catalog.js';
import type { SecretBox } from '../../events/secret-box.js';
import { checkWebhookUrlSyntax, resolveWebhookHost, type WebhookUrlPolicy } from '../../events/webhook-url.js';
import { ApiError, validationError, type ErrorDetail } from '../../http/errors.js';
import type { WebhookEndpointChanges } from './queries.js';
import type { WebhookFields } from './schemas.js';

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
function checkEvents(events: readonly string[], path: string): string[] {
  const unknown = events.flatMap((name, index) => (isKnownEventName(name) ? [] : [{ name, index }]));
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

const noSecretKey = () =>
  new ApiError(
    'SERVICE_UNAVAILABLE',
    'Webhook secrets cannot be stored: the server runs without PATRON_SECRET_KEY. Ask the operator to set it, or send the request without hmacSecret.',
  );

/**
 * Turns validated body fields into the row changes: URL and events checked, secret sealed. Only the fields sent
 * appear; `secretCiphertext` is null when the secret is to be removed.
 */
export async function toChanges(
  fields: WebhookFields,
  path: string,
  policy: WebhookUrlPolicy,
  box: SecretBox | null,
): Promise<WebhookEndpointChanges> {
  // Cheap checks first, so a bad event name is reported without waiting for DNS.
  const events = fields.events !== undefined ? checkEvents(fields.events, path) : undefined;
  if (fields.hmacSecret && !box) throw noSecretKey();
  if (fields.url !== undefined) await checkUrl(fields.url, path, policy);
  return {
    url: fields.url,
    events,
    isActive: fields.isActive,
    secretCiphertext:
      fields.hmacSecret === undefined ? undefined : fields.hmacSecret === null ? null : box!.seal(fields.hmacSecret),
  };
}
