import type { ColumnType, Generated } from 'kysely';

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;

/** The tenant root. Not a tenant table itself: its id is the organization_id every tenant row carries. */
export interface OrganizationsTable {
  id: string;
  name: string;
  timezone: string;
  api_requests_per_minute: Generated<number>;
  loyalty_events_per_minute: Generated<number>;
  loyalty_stamps_per_minute: Generated<number>;
  cascade_delete_reviews: Generated<boolean>;
  review_summary_min_reviews: Generated<number>;
  expiring_soon_days: Generated<number>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface ApiKeysTable {
  organization_id: string;
  id: string;
  name: string | null;
  /** The first characters of the key, shown in listings so an operator can tell keys apart. */
  prefix: string;
  /** Hex SHA-256 of the whole key; the key itself is never stored. */
  key_hash: string;
  permissions: string[];
  created_at: CreatedAt;
  revoked_at: Date | null;
}

export interface IdempotencyKeysTable {
  organization_id: string;
  key: string;
  fingerprint: string;
  state: 'in_progress' | 'completed';
  status_code: number | null;
  content_type: string | null;
  response_body: string | null;
  /** Rewritten when an expired or abandoned key is claimed again. */
  created_at: UpdatedAt;
  /** Rows older than this are treated as absent and swept. */
  expires_at: Date;
}

/** The outbox: written in the same transaction as the change that caused it. */
export interface EventsTable {
  organization_id: string;
  id: string;
  name: string;
  payload: ColumnType<unknown, string, never>;
  created_at: CreatedAt;
  /** Global insertion order, used by the dispatcher to keep per-endpoint order. */
  position: Generated<string>;
}

/** A jsonb column with a database default: optional on insert, written as JSON text or a value. */
type Json<T> = ColumnType<T, string | T | undefined, string | T>;
export type Metadata = Record<string, string>;

export interface SitesTable {
  organization_id: string;
  id: string;
  name: string;
  domain: string;
  platform: string;
  currency_code: string;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type EmailOptOutSource = 'customer' | 'merchant' | 'import' | 'platform';

export interface CustomersTable {
  organization_id: string;
  id: string;
  email: string;
  phone: string | null;
  first_name: string | null;
  last_name: string | null;
  country: string | null;
  birthday: string | null;
  metadata: Json<Metadata>;
  notes: string | null;
  email_opt_out: Generated<boolean>;
  email_opt_out_at: Date | null;
  email_opt_out_source: EmailOptOutSource | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface ProductsTable {
  organization_id: string;
  id: string;
  slug: string;
  title: Generated<string>;
  description: Generated<string>;
  image_url: Generated<string>;
  url: Generated<string>;
  metadata: Json<Metadata>;
  notes: Generated<string>;
  wishlists_count: Generated<number>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface ProductVariantsTable {
  organization_id: string;
  id: string;
  product_id: string;
  slug: string;
  title: Generated<string>;
  image_url: Generated<string>;
  price_cents: Generated<number>;
  currency_code: Generated<string>;
  available: Generated<boolean>;
  metadata: Json<Metadata>;
  position: Generated<number>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface ProductSitesTable {
  organization_id: string;
  product_id: string;
  site_id: string;
}

export type TagKind = 'customer' | 'order' | 'product';

export interface TagsTable {
  organization_id: string;
  id: string;
  kind: TagKind;
  name: string;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface OrdersTable {
  organization_id: string;
  id: string;
  site_id: string;
  customer_id: string;
  remote_id: string;
  number: string;
  total_cents: Generated<number>;
  subtotal_cents: Generated<number>;
  shipping_cents: Generated<number>;
  tax_cents: Generated<number>;
  currency_code: string;
  shipped_at: Date | null;
  delivered_at: Date | null;
  cancelled_at: Date | null;
  metadata: Json<Metadata>;
  notes: Generated<string>;
  earn_loyalty: Generated<boolean>;
  discount_codes: Generated<string[]>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface OrderItemsTable {
  organization_id: string;
  id: string;
  order_id: string;
  product_id: string;
  product_variant_id: string;
  quantity: number;
  unit_price_cents: number;
  position: Generated<number>;
}

export interface CustomerTagsTable {
  organization_id: string;
  customer_id: string;
  tag_id: string;
}
export interface OrderTagsTable {
  organization_id: string;
  order_id: string;
  tag_id: string;
}
export interface ProductTagsTable {
  organization_id: string;
  product_id: string;
  tag_id: string;
}

export interface ImportJobRecordsTable {
  organization_id: string;
  import_job_id: string;
  record_id: string;
  type: string;
  action: 'created' | 'updated';
  row: number;
  created_at: CreatedAt;
}

export interface ReviewsTable {
  organization_id: string;
  id: string;
  product_id: string | null;
  customer_id: string | null;
  rating: number;
  title: Generated<string>;
  body: Generated<string>;
  published: Generated<boolean>;
  verified_buyer: Generated<boolean>;
  flagged: Generated<boolean>;
  language: string | null;
  answers: Json<{ question: string; step: number }[]>;
  metadata: Json<Metadata>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** A subscriber to events (service.md "Webhook endpoint"). The secret is stored AES-256-GCM encrypted. */
export interface WebhookEndpointsTable {
  organization_id: string;
  id: string;
  url: string;
  is_active: Generated<boolean>;
  events: ColumnType<string[], string[] | undefined, string[]>;
  secret_ciphertext: string | null;
  /** The last delivery sequence handed out; bumped under the row lock so sequences follow commit order. */
  last_sequence: ColumnType<string, string | number | undefined, string | number>;
  /** The dispatcher holding this endpoint's queue, and until when. */
  lease_owner: string | null;
  lease_expires_at: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type DeliveryStatus = 'pending' | 'sending' | 'succeeded' | 'failed';

/** One POST of one event to one endpoint (service.md "Webhook delivery record"). */
export interface WebhookDeliveriesTable {
  organization_id: string;
  id: string;
  webhook_id: string;
  sequence: ColumnType<string, string | number, string | number>;
  event_id: string | null;
  event_name: string;
  idempotency_key: string;
  url: string;
  /** The envelope sent, as JSON text in the API's key order. */
  payload: ColumnType<unknown, string, string>;
  status: ColumnType<DeliveryStatus, DeliveryStatus | undefined, DeliveryStatus>;
  error: string | null;
  response_status: number | null;
  attempted_at: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface DB {
  organizations: OrganizationsTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
  sites: SitesTable;
  customers: CustomersTable;
  products: ProductsTable;
  product_variants: ProductVariantsTable;
  product_sites: ProductSitesTable;
  tags: TagsTable;
  orders: OrdersTable;
  order_items: OrderItemsTable;
  customer_tags: CustomerTagsTable;
  order_tags: OrderTagsTable;
  product_tags: ProductTagsTable;
  import_job_records: ImportJobRecordsTable;
  reviews: ReviewsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}
