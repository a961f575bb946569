import { sql, type Kysely } from 'kysely';

/**
 * Store data mirrored from a connected store: sites, customers, products and variants, orders and items, tags,
 * import provenance, and the reviews table products need for their counts and deletion rules.
 * Every table leads its keys with organization_id; searchable text has trigram indexes (docs/api.md#search).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create extension if not exists pg_trgm`.execute(db);
  const statements = [
    sql`create table sites (
      organization_id uuid not null references organizations(id) on delete cascade,
      id uuid not null,
      name text not null,
      domain text not null,
      platform text not null,
      currency_code text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, id))`,
    sql`create unique index sites_domain_key on sites (organization_id, lower(domain))`,
    sql`create index sites_created_idx on sites (organization_id, created_at, id)`,

    sql`create table customers (
      organization_id uuid not null references organizations(id) on delete cascade,
      id uuid not null,
      email text not null,
      phone text,
      first_name text,
      last_name text,
      country text,
      birthday text,
      metadata jsonb not null default '{}',
      notes text,
      email_opt_out boolean not null default false,
      email_opt_out_at timestamptz,
      email_opt_out_source text check (email_opt_out_source in ('customer', 'merchant', 'import', 'platform')),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, id))`,
    sql`create unique index customers_email_key on customers (organization_id, lower(email))`,
    sql`create index customers_created_idx on customers (organization_id, created_at, id)`,
    sql`create index customers_email_trgm on customers using gin (email gin_trgm_ops)`,
    sql`create index customers_first_name_trgm on customers using gin (first_name gin_trgm_ops)`,
    sql`create index customers_last_name_trgm on customers using gin (last_name gin_trgm_ops)`,
    sql`create index customers_phone_trgm on customers using gin (phone gin_trgm_ops)`,

    sql`create table products (
      organization_id uuid not null references organizations(id) on delete cascade,
      id uuid not null,
      slug text not null,
      title text not null default '',
      description text not null default '',
      image_url text not null default '',
      url text not null default '',
      metadata jsonb not null default '{}',
      notes text not null default '',
      wishlists_count integer not null default 0,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, id))`,
    sql`create unique index products_slug_key on products (organization_id, slug)`,
    sql`create index products_created_idx on products (organization_id, created_at, id)`,
    sql`create index products_title_idx on products (organization_id, title, id)`,
    sql`create index products_wishlists_idx on products (organization_id, wishlists_count, id)`,
    sql`create index products_title_trgm on products using gin (title gin_trgm_ops)`,
    sql`create index products_slug_trgm on products using gin (slug gin_trgm_ops)`,

    sql`create table product_variants (
      organization_id uuid not null,
      id uuid not null,
      product_id uuid not null,
      slug text not null,
      title text not null default '',
      image_url text not null default '',
      price_cents bigint not null default 0,
      currency_code text not null default 'USD',
      available boolean not null default true,
      metadata jsonb not null default '{}',
      position integer not null default 0,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, id),
      foreign key (organization_id, product_id) references products (organization_id, id) on delete cascade)`,
    sql`create unique index product_variants_slug_key on product_variants (organization_id, product_id, slug)`,

    sql`create table product_sites (
      organization_id uuid not null,
      product_id uuid not null,
      site_id uuid not null,
      primary key (organization_id, product_id, site_id),
      foreign key (organization_id, product_id) references products (organization_id, id) on delete cascade,
      foreign key (organization_id, site_id) references sites (organization_id, id) on delete cascade)`,
    sql`create index product_sites_site_idx on product_sites (organization_id, site_id)`,

    sql`create table tags (
      organization_id uuid not null references organizations(id) on delete cascade,
      id uuid not null,
      kind text not null check (kind in ('customer', 'order', 'product')),
      name text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, id))`,
    sql`create unique index tags_name_key on tags (organization_id, kind, name)`,

    sql`create table orders (
      organization_id uuid not null,
      id uuid not null,
      site_id uuid not null,
      customer_id uuid not null,
      remote_id text not null,
      number text not null,
      total_cents bigint not null default 0,
      subtotal_cents bigint not null default 0,
      shipping_cents bigint not null default 0,
      tax_cents bigint not null default 0,
      currency_code text not null,
      shipped_at timestamptz,
      delivered_at timestamptz,
      cancelled_at timestamptz,
      metadata jsonb not null default '{}',
      notes text not null default '',
      earn_loyalty boolean not null default true,
      discount_codes text[] not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, id),
      foreign key (organization_id, site_id) references sites (organization_id, id),
      foreign key (organization_id, customer_id) references customers (organization_id, id))`,
    sql`create unique index orders_remote_id_key on orders (organization_id, remote_id)`,
    sql`create index orders_created_idx on orders (organization_id, created_at, id)`,
    sql`create index orders_number_idx on orders (organization_id, number, id)`,
    sql`create index orders_total_idx on orders (organization_id, total_cents, id)`,
    sql`create index orders_customer_idx on orders (organization_id, customer_id)`,
    sql`create index orders_site_idx on orders (organization_id, site_id)`,
    sql`create index orders_number_trgm on orders using gin (number gin_trgm_ops)`,
    sql`create index orders_remote_id_trgm on orders using gin (remote_id gin_trgm_ops)`,

    // Items keep the product and variant ids they were sold with: history outlives a deleted product.
    sql`create table order_items (
      organization_id uuid not null,
      id uuid not null,
      order_id uuid not null,
      product_id uuid not null,
      product_variant_id uuid not null,
      quantity integer not null check (quantity >= 1),
      unit_price_cents bigint not null,
      position integer not null default 0,
      primary key (organization_id, id),
      foreign key (organization_id, order_id) references orders (organization_id, id) on delete cascade)`,
    sql`create index order_items_order_idx on order_items (organization_id, order_id, position)`,
    sql`create index order_items_product_idx on order_items (organization_id, product_id)`,
    sql`create index order_items_variant_idx on order_items (organization_id, product_variant_id)`,

    ...['customer', 'order', 'product'].flatMap((kind) => {
      const table = sql.raw(`${kind}_tags`);
      const owner = sql.raw(`${kind}s`);
      const column = sql.raw(`${kind}_id`);
      return [
        sql`create table ${table} (
          organization_id uuid not null,
          ${column} uuid not null,
          tag_id uuid not null,
          primary key (organization_id, ${column}, tag_id),
          foreign key (organization_id, ${column}) references ${owner} (organization_id, id) on delete cascade,
          foreign key (organization_id, tag_id) references tags (organization_id, id) on delete cascade)`,
        sql`create index ${sql.raw(`${kind}_tags_tag_idx`)} on ${table} (organization_id, tag_id)`,
      ];
    }),

    // Provenance of imported records, for include=importJob: one row per record per import request.
    sql`create table import_job_records (
      organization_id uuid not null references organizations(id) on delete cascade,
      import_job_id uuid not null,
      record_id uuid not null,
      type text not null,
      action text not null check (action in ('created', 'updated')),
      row integer not null,
      created_at timestamptz not null default now(),
      primary key (organization_id, record_id, import_job_id))`,

    // Reviews arrive with the reviews issue; products need the table now for reviewsCount and deletion.
    sql`create table reviews (
      organization_id uuid not null references organizations(id) on delete cascade,
      id uuid not null,
      product_id uuid,
      customer_id uuid,
      rating integer not null check (rating between 1 and 5),
      title text not null default '',
      body text not null default '',
      published boolean not null default false,
      verified_buyer boolean not null default false,
      flagged boolean not null default false,
      language text,
      answers jsonb not null default '[]',
      metadata jsonb not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, id))`,
    sql`create index reviews_product_idx on reviews (organization_id, product_id, published)`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'reviews',
    'import_job_records',
    'customer_tags',
    'order_tags',
    'product_tags',
    'order_items',
    'orders',
    'tags',
    'product_sites',
    'product_variants',
    'products',
    'customers',
    'sites',
  ]) {
    await sql`drop table if exists ${sql.table(table)}`.execute(db);
  }
}
