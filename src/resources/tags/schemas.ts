import Type, { type Static } from 'typebox';
import type { TagKind } from '../../db/schema.js';

/**
 * Rename: the same rules as a tag name anywhere else (docs/api.md#metadata-notes-and-tags): trimmed, 1..100
 * characters, case-sensitive.
 */
export const TagPatch = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100, description: 'The new name (trimmed, 1..100 characters).' }) },
  { additionalProperties: false },
);
export type TagPatch = Static<typeof TagPatch>;

/** Everything that differs between the three tag lists: the path, the permission and the records tagged. */
export interface TagKindInfo {
  kind: TagKind;
  /** Path under /v1, e.g. `/product-tags`. */
  path: string;
  /** Permission prefix: products, orders, customers. */
  permission: string;
  /** The tagged records, plural, for messages and summaries. */
  records: string;
  /** Operation id stem, e.g. `ProductTag`. */
  name: string;
}

export const TAG_KINDS: readonly TagKindInfo[] = [
  { kind: 'product', path: '/product-tags', permission: 'products', records: 'products', name: 'ProductTag' },
  { kind: 'order', path: '/order-tags', permission: 'orders', records: 'orders', name: 'OrderTag' },
  { kind: 'customer', path: '/customer-tags', permission: 'customers', records: 'customers', name: 'CustomerTag' },
];
