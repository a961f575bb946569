/**
 * The delivery body (service.md Events "Envelope", with the event's `id` and `livemode`, docs/api.md#events-api):
 * { id, event, timestamp, idempotencyKey, livemode, data }, in that order, with `data` spliced in as the record's
 * serialized text so it is byte-for-byte what the API returns for the record. Recorded events compose the same text
 * in SQL (webhook_envelope, migrations 0036 and 0038); this is for envelopes made in Node (the test ping, whose id is
 * its own). `livemode` is false for an organization's test twin (docs/api.md#test-mode).
 */
export function composeEnvelope(
  { event, timestamp, id, livemode }: { event: string; timestamp: Date; id: string; livemode: boolean },
  dataJson: string,
): string {
  return `{"id":${JSON.stringify(id)},"event":${JSON.stringify(event)},"timestamp":"${timestamp.toISOString()}","idempotencyKey":${JSON.stringify(id)},"livemode":${livemode},"data":${dataJson}}`;
}
