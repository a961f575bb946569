import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { notFound, validationError } from '../../core/errors.js';
import type { EventCatalog } from '../../core/types.js';
import { listPage } from '../../lists/engine.js';
import { compileFilterParam } from '../../lists/filter.js';
import { renderEnvelope } from '../../versions/index.js';
import { eventList } from './list.js';
import { envelopeOf, findEventEnvelope } from './queries.js';
import { CREATED_AT_BOUNDS, type EventListQuery } from './schemas.js';

/** An answer already written as JSON text: the envelopes are composed by the database, byte for byte as sent. */
export interface JsonText {
  json: string;
}

/**
 * The events of an organization (docs/api.md#events-api): every event its changes recorded, read as the envelope a
 * delivery of it sends.
 */
export class EventService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly catalog: EventCatalog,
  ) {}

  /**
   * One page, newest first. The events' own parameters become conditions of the list engine's filter document,
   * ANDed with the caller's `filter` (checked first, so its errors name it), so the cursor is bound to them too.
   */
  async list(organizationId: string, query: EventListQuery, version: string): Promise<JsonText> {
    const { type, objectId, ...rest } = query;
    const params = { limit: rest.limit, cursor: rest.cursor, sort: rest.sort, filter: rest.filter };
    compileFilterParam(eventList, params.filter);
    const conditions: unknown[] = [];
    if (type !== undefined) conditions.push({ type: { $in: this.typesOf(type) } });
    if (objectId !== undefined) conditions.push({ objectId });
    for (const [name, operator] of Object.entries(CREATED_AT_BOUNDS)) {
      const value = rest[name as keyof typeof CREATED_AT_BOUNDS];
      if (value !== undefined) conditions.push({ createdAt: { [operator]: value } });
    }
    if (params.filter) conditions.push(JSON.parse(params.filter));
    const filter = conditions.length === 0 ? undefined : JSON.stringify({ $and: conditions });
    const page = await listPage<{ id: string; body: string }>(this.db, {
      list: eventList,
      organizationId,
      params: { ...params, filter },
      columns: sql`${envelopeOf(organizationId)} as body`,
    });
    return {
      json: `{"data":[${page.rows.map((row) => renderEnvelope(row.body, version)).join(',')}],"nextCursor":${JSON.stringify(page.nextCursor)}}`,
    };
  }

  /** At the caller's version: the same bytes a delivery to an endpoint on that version sends (docs/api.md#api-versions). */
  async get(organizationId: string, id: string, version: string): Promise<JsonText> {
    const { rows } = await findEventEnvelope(this.db, organizationId, id);
    if (!rows[0]) throw notFound('The event');
    return { json: renderEnvelope(rows[0].body, version) };
  }

  /**
   * The catalog's types a `type` parameter names: itself, or those starting with a prefix written `prefix.*`. A type
   * or prefix the catalog does not know is 400, not an empty page: it is almost always a typo.
   */
  private typesOf(type: string): string[] {
    const known = this.catalog.events.map((event) => event.name);
    if (type.endsWith('.*')) {
      const prefix = type.slice(0, -1);
      const matching = known.filter((name) => name.startsWith(prefix));
      if (matching.length > 0) return matching;
      throw validationError(`No event type starts with "${prefix}"; GET /v1/webhook-events lists them.`, [
        { path: 'query.type', message: `no event type starts with "${prefix}"` },
      ]);
    }
    if (this.catalog.isKnown(type)) return [type];
    throw validationError(
      `Unknown event type "${type}": use a type of GET /v1/webhook-events, or a prefix ending in .* (order.*).`,
      [{ path: 'query.type', message: 'is not an event type of the catalog, nor a prefix ending in .*' }],
    );
  }
}
