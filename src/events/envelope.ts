/**
 * The delivery body (service.md Events "Envelope"): { event, timestamp, idempotencyKey, data }, in that order, with
 * `data` spliced in as the record's serialized text so it is byte-for-byte what the API returns for the record.
 * Recorded events compose the same text in SQL (outbox.ts); this is for envelopes made in Node (the test ping).
 */
export function composeEnvelope(event: string, timestamp: Date, idempotencyKey: string, dataJson: string): string {
  return `{"event":${JSON.stringify(event)},"timestamp":"${timestamp.toISOString()}","idempotencyKey":${JSON.stringify(idempotencyKey)},"data":${dataJson}}`;
}
