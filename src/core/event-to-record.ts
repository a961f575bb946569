import type { TSchema } from 'typebox';

/** A change's event before it is recorded: the outbox serializes `record` with `schema` (docs/api.md#events-and-the-outbox). */
export interface EventToRecord {
  organizationId: string;
  /** An event name from service.md's catalog, e.g. "order.updated". */
  name: string;
  /** The response schema of the record's API representation. */
  schema: TSchema;
  /** The record, in the shape the API returns it. */
  record: unknown;
}
