import { sql } from 'kysely';
import type { AnalyticsSource } from '../types.js';
import { date, tagsDimension } from './common.js';
import { productList } from '../../products/index.js';

export const productsSource: AnalyticsSource = {
  resource: 'products',
  description: 'Catalog products. Filter: the document of GET /products.',
  list: productList,
  measures: {
    count: { kind: 'count', description: 'Number of products.' },
    reviewedCount: {
      kind: 'count',
      where: `exists (select 1 from reviews pr where pr.organization_id = p.organization_id and pr.product_id = p.id and pr.published)`,
      description: 'Products with at least one published review (reviewsCount above 0).',
    },
  },
  dimensions: {
    createdAt: date('p.created_at', 'When the product was created (in the store).', false),
    updatedAt: date('p.updated_at', 'When the product last changed.', false),
    'variants.currencyCode': {
      type: 'string',
      column: 'product_currencies.currency_code',
      nullable: true,
      many: {
        name: 'productCurrencies',
        join: (organizationId) => sql`left join (
          select distinct v.product_id, v.currency_code from product_variants v where v.organization_id = ${organizationId}
        ) product_currencies on product_currencies.product_id = p.id`,
      },
      description:
        "A currency the product's variants are priced in. A product counts once under each; one without variants under null.",
    },
    'tags.name': tagsDimension('product', 'p.id', 'product'),
  },
  metadata: {
    column: 'p.metadata',
    description: "The value of one key of the product's metadata; null where the key is absent.",
  },
};
