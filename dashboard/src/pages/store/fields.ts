import type { FilterField } from '../../components/FilterBuilder';

/** GET /v1/products' filterable fields (its `x-filterable-fields`; src/resources/products/list.ts). */
export const PRODUCT_FIELDS: readonly FilterField[] = [
  { name: 'title', label: 'Title', type: 'string' },
  { name: 'slug', label: 'Slug', type: 'string' },
  { name: 'tags.name', label: 'Tag', type: 'string' },
  { name: 'createdAt', label: 'Created', type: 'timestamp' },
  { name: 'metadata', label: 'Metadata', type: 'metadata' },
  { name: 'variants.title', label: 'Variant title', type: 'string' },
  { name: 'variants.slug', label: 'Variant slug', type: 'string' },
  { name: 'variants.metadata', label: 'Variant metadata', type: 'metadata' },
  { name: 'id', label: 'Id', type: 'uuid' },
  { name: 'variants.id', label: 'Variant id', type: 'uuid' },
];

/** GET /v1/orders' filterable fields (its `x-filterable-fields`; src/resources/orders/list.ts). */
export const ORDER_FIELDS: readonly FilterField[] = [
  // Typed in major units of the organization's currency (sent in minor units): pair it with Currency when orders
  // are in several.
  { name: 'totalCents', label: 'Total', type: 'money', hint: 'e.g. 50.00' },
  { name: 'number', label: 'Number', type: 'string' },
  { name: 'customer.email', label: 'Customer email', type: 'string' },
  { name: 'customer.firstName', label: 'Customer first name', type: 'string' },
  { name: 'customer.lastName', label: 'Customer last name', type: 'string' },
  { name: 'tags.name', label: 'Tag', type: 'string' },
  { name: 'currencyCode', label: 'Currency', type: 'string' },
  { name: 'createdAt', label: 'Created', type: 'timestamp' },
  { name: 'shippedAt', label: 'Shipped', type: 'timestamp' },
  { name: 'deliveredAt', label: 'Delivered', type: 'timestamp' },
  { name: 'cancelledAt', label: 'Cancelled', type: 'timestamp' },
  { name: 'metadata', label: 'Metadata', type: 'metadata' },
  { name: 'customer.metadata', label: 'Customer metadata', type: 'metadata' },
  { name: 'customer.emailOptOut', label: 'Customer opted out of email', type: 'boolean' },
  {
    name: 'customer.emailOptOutSource',
    label: 'Customer opt-out source',
    type: 'enum',
    values: ['customer', 'merchant', 'import', 'platform'],
  },
  { name: 'customer.createdAt', label: 'Customer created', type: 'timestamp' },
  { name: 'customer.id', label: 'Customer id', type: 'uuid' },
  { name: 'items.productId', label: 'Item product id', type: 'uuid' },
  { name: 'items.productVariantId', label: 'Item variant id', type: 'uuid' },
  { name: 'id', label: 'Id', type: 'uuid' },
];
