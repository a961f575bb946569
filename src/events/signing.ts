import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** The prefix of a Standard Webhooks secret: `whsec_` + the base64 of the key bytes. */
export const STANDARD_SECRET_PREFIX = 'whsec_';
/** The key sizes the Standard Webhooks specification recommends. */
export const STANDARD_SECRET_MIN_BYTES = 24;
export const STANDARD_SECRET_MAX_BYTES = 64;
/** What the server generates (generateSecret, rotate-secret): 32 random bytes, as long as SHA-256's output. */
const GENERATED_SECRET_BYTES = 32;

/** Padded base64 of the standard alphabet, the only form the receivers' libraries decode. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The key of a Standard Webhooks secret (docs/api.md#endpoint-records-and-secrets): the bytes its base64 decodes
 * to, or null when the secret is not `whsec_` + canonical padded base64 of 24 to 64 bytes. The check is the same at
 * input (where a `whsec_` secret of another form is refused) and at signing (where a secret stored before that check
 * and not of this form keeps being keyed with its UTF-8 bytes).
 */
export function standardSecretKey(secret: string): Buffer | null {
  if (!secret.startsWith(STANDARD_SECRET_PREFIX)) return null;
  const encoded = secret.slice(STANDARD_SECRET_PREFIX.length);
  if (!BASE64.test(encoded)) return null;
  const key = Buffer.from(encoded, 'base64');
  // Canonical only (no stray bits in the last character), so the bytes are the ones every decoder finds.
  if (key.toString('base64') !== encoded) return null;
  return key.length >= STANDARD_SECRET_MIN_BYTES && key.length <= STANDARD_SECRET_MAX_BYTES ? key : null;
}

/** A new Standard Webhooks secret: `whsec_` + base64 of 32 random bytes. */
export const generateStandardSecret = (): string =>
  STANDARD_SECRET_PREFIX + randomBytes(GENERATED_SECRET_BYTES).toString('base64');

/** The HMAC keys of an endpoint's signatures, made once per window (or per send by hand). */
export interface SigningKeys {
  /** X-Webhook-Signature: the UTF-8 bytes of the current secret, exactly as service.md says. */
  hex: Buffer;
  /** webhook-signature: one `v1,` signer per key, the current secret's first, then the previous one's. */
  standard: readonly Webhook[];
}

/**
 * The keys for an endpoint's current secret and, during the 24 h after a rotation, its previous one
 * (docs/api.md#delivery-headers-and-signatures). A Standard Webhooks secret keys webhook-signature with its decoded
 * bytes, any other secret with its UTF-8 bytes. Null when the endpoint has no secret (unsigned deliveries).
 */
export function signingKeys(secret: string | null, previous: string | null = null): SigningKeys | null {
  if (secret === null) return null;
  // The raw format takes the key bytes as given: the library's own decoding of a `whsec_` secret would accept forms
  // that standardSecretKey refuses, and a secret of another form is keyed with its UTF-8 bytes.
  const standard = (value: string) =>
    new Webhook(standardSecretKey(value) ?? Buffer.from(value, 'utf8'), { format: 'raw' });
  return {
    hex: Buffer.from(secret, 'utf8'),
    standard: previous === null ? [standard(secret)] : [standard(secret), standard(previous)],
  };
}

/**
 * The signature headers of one delivery (service.md Events rule 4; docs/api.md#delivery-headers-and-signatures),
 * computed over the exact bytes sent. `webhook-id` and `webhook-timestamp` go on every delivery, signed or not, so
 * receivers can deduplicate and reject stale replays either way. `webhook-signature` holds one signature per key,
 * space-separated, as the Standard Webhooks specification allows.
 */
export function deliveryHeaders(
  keys: SigningKeys | null,
  delivery: { idempotencyKey: string; timestampSeconds: number; body: Buffer },
): Record<string, string> {
  const { idempotencyKey, timestampSeconds, body } = delivery;
  const headers: Record<string, string> = {
    'webhook-id': idempotencyKey,
    'webhook-timestamp': String(timestampSeconds),
  };
  if (keys === null) return headers;
  headers['x-webhook-signature'] = `sha256=${createHmac('sha256', keys.hex).update(body).digest('hex')}`;
  // Standard Webhooks (base64 HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<body>"), signed by the
  // specification's own library. It signs the body as a string: Patron's bodies are JSON, so valid UTF-8, and the
  // string encodes back to the exact bytes sent.
  const sentAt = new Date(timestampSeconds * 1000);
  const text = body.toString('utf8');
  headers['webhook-signature'] = keys.standard.map((signer) => signer.sign(idempotencyKey, sentAt, text)).join(' ');
  return headers;
}
