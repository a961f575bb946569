import { createHmac, timingSafeEqual } from 'node:crypto';
import type { components, webhooks } from './generated/schema.js';

/** Every event name an endpoint can subscribe to: the webhooks of the OpenAPI document. */
export type WebhookEventName = keyof webhooks;

/** The delivery body of one event: the envelope `{ id, event, timestamp, idempotencyKey, livemode, data }`, data typed. */
export type WebhookEventOf<N extends WebhookEventName> = NonNullable<webhooks[N]['post']>['requestBody'] extends
  { content: { 'application/json': infer Body } } | undefined
  ? Body
  : never;

/**
 * The ping of POST /webhooks/{id}/test (docs/api.md, "Resend and test ping"): sent to the endpoint tested whatever it
 * subscribes to, so not an event of the catalog; its data is the endpoint.
 */
export interface WebhookTestEvent {
  /** The ping's own id (it is no event of GET /events). */
  id: string;
  event: 'webhook.test';
  timestamp: string;
  idempotencyKey: string;
  livemode: boolean;
  data: components['schemas']['WebhookEndpoint'];
}

/** Any delivery body: a union told apart by `event`, so checking the name narrows `data` to its record. */
export type WebhookEvent = { [N in WebhookEventName]: WebhookEventOf<N> }[WebhookEventName] | WebhookTestEvent;

/** How far webhook-timestamp may be from the receiver's clock, either way, by default: five minutes. */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

/** A delivery's headers: a fetch `Headers`, or Node's `request.headers` (any letter case). */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

export interface VerifyWebhookOptions {
  /** The largest difference, in seconds, between webhook-timestamp and now. Default 300. */
  toleranceSeconds?: number;
  /** The receiver's clock, in milliseconds since the epoch (tests). Default Date.now. */
  now?: () => number;
}

export type WebhookVerificationReason =
  | 'unsigned'
  | 'missing-headers'
  | 'timestamp-malformed'
  | 'timestamp-out-of-tolerance'
  | 'signature-mismatch'
  | 'body-not-json';

/** A delivery that verifyWebhook refused: `reason` says which check failed. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

const STANDARD_PREFIX = 'whsec_';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Checks that a webhook delivery comes from Patron, with the endpoint's secret, and returns its parsed body (the
 * envelope `{ event, timestamp, idempotencyKey, data }` of docs/api.md#fan-out-and-payload).
 *
 * `rawBody` must be the bytes exactly as received (before any JSON parsing). `secret` is the endpoint's hmacSecret;
 * give several (the new and the previous one) to accept either while a rotation is under way.
 *
 * What it checks (docs/api.md#delivery-headers-and-signatures):
 *
 * 1. When the delivery carries `webhook-signature` (Standard Webhooks, every signed delivery does): `webhook-id` and
 *    `webhook-timestamp` must be present, the timestamp (Unix seconds) within `toleranceSeconds` of now, and at least
 *    one `v1,<base64>` entry of the space-separated list must equal the HMAC-SHA256 of
 *    `<webhook-id>.<webhook-timestamp>.<body>` under one of the secrets. The HMAC key of a `whsec_` secret (the prefix
 *    followed by canonical padded base64 of 24 to 64 bytes) is the bytes it decodes to; of any other secret, its UTF-8
 *    bytes. X-Webhook-Signature is not needed then: during a rotation it is keyed with the new secret only, while
 *    webhook-signature carries one entry per secret.
 * 2. Only when `webhook-signature` is absent: `X-Webhook-Signature: sha256=<hex>` must equal the HMAC-SHA256 of the
 *    body keyed with the UTF-8 bytes of one of the secrets. This form signs the body alone, so it cannot reject a
 *    replayed delivery; deduplicate on webhook-id (the event's idempotencyKey) for that.
 *
 * Signatures are compared in constant time (timingSafeEqual). Anything else throws WebhookVerificationError.
 *
 * The result is typed as a WebhookEvent: compare `event` to a name to narrow `data` to the record it carries. The
 * types say what Patron sends; the body is parsed, not checked against them.
 */
export function verifyWebhook<T = WebhookEvent>(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): T {
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0) throw new TypeError('verifyWebhook needs the endpoint secret');
  const standard = header(headers, 'webhook-signature');
  if (standard !== undefined) verifyStandard(body, headers, standard, secrets, options);
  else verifyHex(body, header(headers, 'x-webhook-signature'), secrets);
  try {
    return JSON.parse(body.toString('utf8')) as T;
  } catch {
    throw new WebhookVerificationError('body-not-json', 'The signed body is not JSON.');
  }
}

function verifyStandard(
  body: Buffer,
  headers: WebhookHeaders,
  signatures: string,
  secrets: readonly string[],
  options: VerifyWebhookOptions,
): void {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  if (id === undefined || timestamp === undefined) {
    throw new WebhookVerificationError('missing-headers', 'webhook-signature needs webhook-id and webhook-timestamp.');
  }
  if (!/^\d{1,15}$/.test(timestamp)) {
    throw new WebhookVerificationError('timestamp-malformed', 'webhook-timestamp is not Unix seconds.');
  }
  const tolerance = options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  const now = Math.floor((options.now ?? Date.now)() / 1000);
  if (Math.abs(now - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError(
      'timestamp-out-of-tolerance',
      `webhook-timestamp is more than ${tolerance} s from now: a replay, or a clock off.`,
    );
  }
  const given = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => Buffer.from(entry.slice(3), 'base64'));
  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), body]);
  for (const secret of secrets) {
    const expected = createHmac('sha256', standardKey(secret)).update(signed).digest();
    if (given.some((signature) => equal(signature, expected))) return;
  }
  throw new WebhookVerificationError('signature-mismatch', 'No webhook-signature entry matches the secret.');
}

function verifyHex(body: Buffer, header: string | undefined, secrets: readonly string[]): void {
  if (header === undefined) {
    throw new WebhookVerificationError(
      'unsigned',
      'The delivery has neither webhook-signature nor X-Webhook-Signature.',
    );
  }
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim());
  const given = match ? Buffer.from(match[1]!, 'hex') : undefined;
  for (const secret of secrets) {
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest();
    if (given && equal(given, expected)) return;
  }
  throw new WebhookVerificationError('signature-mismatch', 'X-Webhook-Signature does not match the secret.');
}

/** The Standard Webhooks key of a secret, as the server derives it (src/events/signing.ts). */
function standardKey(secret: string): Buffer {
  if (secret.startsWith(STANDARD_PREFIX)) {
    const encoded = secret.slice(STANDARD_PREFIX.length);
    if (BASE64.test(encoded)) {
      const key = Buffer.from(encoded, 'base64');
      if (key.toString('base64') === encoded && key.length >= 24 && key.length <= 64) return key;
    }
  }
  return Buffer.from(secret, 'utf8');
}

const equal = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

function header(headers: WebhookHeaders, name: string): string | undefined {
  let value: string | readonly string[] | null | undefined;
  if (typeof (headers as Headers).get === 'function') value = (headers as Headers).get(name);
  else {
    const record = headers as Record<string, string | readonly string[] | undefined>;
    value = record[name];
    if (value === undefined) {
      const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
      value = key === undefined ? undefined : record[key];
    }
  }
  if (value === null || value === undefined) return undefined;
  return typeof value === 'string' ? value : value.join(' ');
}
