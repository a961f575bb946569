import { createHmac } from 'node:crypto';

/**
 * The signature headers of one delivery (service.md Events rule 4; docs/api.md#delivery-headers-and-signatures). Both
 * HMACs are keyed with the UTF-8 bytes of the endpoint's hmacSecret and computed over the exact bytes sent.
 * `webhook-id` and `webhook-timestamp` go on every delivery, signed or not, so receivers can deduplicate and reject
 * stale replays either way. The dispatcher passes the key as bytes, made once per window.
 */
export function deliveryHeaders(
  secret: string | Buffer | null,
  delivery: { idempotencyKey: string; timestampSeconds: number; body: Buffer },
): Record<string, string> {
  const { idempotencyKey, timestampSeconds, body } = delivery;
  const headers: Record<string, string> = {
    'webhook-id': idempotencyKey,
    'webhook-timestamp': String(timestampSeconds),
  };
  if (secret === null) return headers;
  const key = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
  headers['x-webhook-signature'] = `sha256=${createHmac('sha256', key).update(body).digest('hex')}`;
  // Standard Webhooks: base64 HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<body>".
  const standard = createHmac('sha256', key)
    .update(`${idempotencyKey}.${timestampSeconds}.`)
    .update(body)
    .digest('base64');
  headers['webhook-signature'] = `v1,${standard}`;
  return headers;
}
