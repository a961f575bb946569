/**
 * The parents whose deletion reaches into other resources' rows (docs/architecture.md#declared-cascades): each a
 * constant that the parent's service and its children's edges both import, so an edge cannot name a parent that
 * does not exist. `ownTables` are the parent folder's own tables that refer to it, left to their foreign keys.
 */
import type { CascadeParent } from '../core/cascades.js';

export const CUSTOMER = {
  name: 'customer',
  table: 'customers',
  ownTables: ['customer_tags'],
} as const satisfies CascadeParent;

export const PRODUCT = {
  name: 'product',
  table: 'products',
  ownTables: ['product_variants', 'product_sites', 'product_tags'],
} as const satisfies CascadeParent;

export const ORDER = {
  name: 'order',
  table: 'orders',
  ownTables: ['order_items', 'order_tags'],
} as const satisfies CascadeParent;

/** A loyalty program: every table that refers to it is loyalty's own (its tiers, rules and memberships). */
export const PROGRAM = {
  name: 'program',
  table: 'loyalty_programs',
  ownTables: ['loyalty_tiers', 'loyalty_rules', 'loyalty_memberships'],
} as const satisfies CascadeParent;

export const SITE = {
  name: 'site',
  table: 'sites',
  ownTables: [],
} as const satisfies CascadeParent;

/** Every parent, for the test that holds each foreign key to a parent's table to a declared edge. */
export const CASCADE_PARENTS: readonly CascadeParent[] = [CUSTOMER, PRODUCT, ORDER, PROGRAM, SITE];
