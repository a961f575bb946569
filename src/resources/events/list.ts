import type { ListDefinition } from '../../lists/types.js';

/**
 * What GET /events can filter and sort. Newest first is the id's order: event ids are UUID v7, drawn as the change
 * records its events (the last step of its transaction), so the primary key (organization_id, id) walks the list and
 * the type and objectId filters walk (organization_id, name, id) and (organization_id, object_id, id) in the same
 * order (migration 0036; docs/api.md#events-api says what a reader is promised).
 */
export const eventList: ListDefinition = {
  name: 'events',
  from: 'events e',
  alias: 'e',
  select: 'e.id',
  joins: {},
  relations: {},
  fields: {
    id: { type: 'uuid', column: 'e.id' },
    type: { type: 'string', column: 'e.name' },
    objectId: { type: 'uuid', column: 'e.object_id' },
    // To the millisecond, as the envelope's timestamp shows it: a bound copied from an event includes that event.
    createdAt: { type: 'timestamp', column: "date_trunc('milliseconds', e.created_at)" },
  },
  sorts: {
    createdAt: { column: 'e.id', type: 'string', nullable: false },
  },
  defaultSort: '-createdAt',
  includes: {},
};
