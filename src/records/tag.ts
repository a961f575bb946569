/** The tag record of products, orders and customers: its response shapes, columns, mapping and events. */
import type { Selectable } from 'kysely';
import Type, { type Static } from 'typebox';
import type { TagKind, TagsTable } from '../db/schema.js';
import type { EventToRecord } from '../core/event-to-record.js';
import { Timestamp, Uuid } from './common.js';
import { documentedComponent } from './documented.js';

/** A tag as its events carry it (customerTag.*, orderTag.*, productTag.*); documented as the component Tag. */
export const Tag = documentedComponent(
  'Tag',
  Type.Object(
    { id: Uuid, name: Type.String(), createdAt: Timestamp, updatedAt: Timestamp },
    { additionalProperties: false },
  ),
);
export type Tag = Static<typeof Tag>;

/** A tag record as the list and get endpoints show it: `count` only with include=count. */
export const TagRecord = Type.Object(
  {
    ...Tag.properties,
    count: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Records carrying the tag; only with include=count.' }),
    ),
  },
  { additionalProperties: false },
);
export type TagRecord = Static<typeof TagRecord>;

export type TagRow = Selectable<TagsTable>;

/** The columns toTag reads. */
export const TAG_COLUMNS = ['id', 'name', 'created_at', 'updated_at'] as const satisfies readonly (keyof TagRow)[];
export type TagFields = Pick<TagRow, (typeof TAG_COLUMNS)[number]>;

/** The one mapping from a tag row to its API shape (no extras). */
export const toTag = (row: TagFields): TagRecord => ({
  id: row.id,
  name: row.name,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

const EVENT_PREFIX: Record<TagKind, string> = { customer: 'customerTag', order: 'orderTag', product: 'productTag' };

export type TagEventAction = 'created' | 'updated' | 'deleted';

export const tagEventName = (kind: TagKind, action: TagEventAction) => `${EVENT_PREFIX[kind]}.${action}`;

export const tagEvent = (
  organizationId: string,
  kind: TagKind,
  action: TagEventAction,
  row: TagFields,
): EventToRecord => ({
  organizationId,
  name: tagEventName(kind, action),
  schema: Tag,
  record: toTag(row),
});
