import { sql } from 'kysely';
import { preparedForIds } from '../../db/prepared.js';
import type { ListDefinition } from '../../lists/types.js';
import { latestImportJobs } from '../../resource-kit/imports.js';
import { tagNamesOf } from '../../resource-kit/tags.js';
import { countBy } from '../../resource-kit/counts.js';
import { variantsOf } from './queries.js';

const selectWishlistsCounts = preparedForIds((db, organizationId, productIds) =>
  db
    .selectFrom('product_wishlist_counts')
    .select(['product_id', 'wishlists_count'])
    .where('organization_id', '=', organizationId)
    .where('product_id', '=', productIds),
);

/** What GET /products can filter, sort, search and include (service.md Products table). */
export const productList: ListDefinition = {
  name: 'products',
  from: 'products p',
  alias: 'p',
  select: 'p.*',
  joins: {
    // A product without a row counts 0 (migration 0031, docs/api.md#wishlists).
    wishlistsCount:
      'left join product_wishlist_counts wc on wc.organization_id = p.organization_id and wc.product_id = p.id',
  },
  relations: {
    tags: {
      from: 'product_tags pt join tags t on t.organization_id = pt.organization_id and t.id = pt.tag_id',
      correlate: 'pt.organization_id = p.organization_id and pt.product_id = p.id',
    },
    variants: {
      from: 'product_variants v',
      correlate: 'v.organization_id = p.organization_id and v.product_id = p.id',
    },
  },
  fields: {
    id: { type: 'uuid', column: 'p.id' },
    slug: { type: 'string', column: 'p.slug' },
    title: { type: 'string', column: 'p.title' },
    metadata: { type: 'metadata', column: 'p.metadata' },
    createdAt: { type: 'timestamp', column: 'p.created_at' },
    'tags.name': { type: 'string', column: 't.name', many: 'tags' },
    'variants.id': { type: 'uuid', column: 'v.id', many: 'variants' },
    'variants.title': { type: 'string', column: 'v.title', many: 'variants' },
    'variants.slug': { type: 'string', column: 'v.slug', many: 'variants' },
    'variants.metadata': { type: 'metadata', column: 'v.metadata', many: 'variants' },
  },
  sorts: {
    title: { column: 'p.title', type: 'string', nullable: false },
    createdAt: { column: 'p.created_at', type: 'timestamp', nullable: false },
    wishlistsCount: {
      column: 'wc.wishlists_count',
      type: 'integer',
      nullable: false,
      join: 'wishlistsCount',
      zeroWhenAbsent: { idColumn: 'wc.product_id' },
    },
  },
  defaultSort: '-createdAt',
  search: (pattern) => sql`p.title ilike ${pattern} or p.slug ilike ${pattern}`,
  includes: {
    importJob: { load: ({ db, organizationId }, ids) => latestImportJobs(db, organizationId, ids), empty: () => null },
    reviewsCount: {
      load: ({ db, organizationId }, ids) =>
        countBy(db, organizationId, ids, { table: 'reviews', ownerColumn: 'product_id', published: true }),
      empty: () => 0,
    },
    wishlistsCount: {
      load: async ({ db, organizationId }, ids) => {
        const rows = await selectWishlistsCounts(db, organizationId, ids);
        return new Map(rows.map((row) => [row.product_id, row.wishlists_count]));
      },
      empty: () => 0,
    },
    variantsCount: {
      load: ({ db, organizationId }, ids) =>
        countBy(db, organizationId, ids, { table: 'product_variants', ownerColumn: 'product_id' }),
      empty: () => 0,
    },
    tags: { load: ({ db, organizationId }, ids) => tagNamesOf(db, organizationId, 'product', ids), empty: () => [] },
    variants: { load: ({ db, organizationId }, ids) => variantsOf(db, organizationId, ids), empty: () => [] },
  },
};
