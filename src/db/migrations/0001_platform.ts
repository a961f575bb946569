import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .addColumn('api_requests_per_minute', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(600)
        .check(sql`api_requests_per_minute >= 10`),
    )
    .addColumn('loyalty_events_per_minute', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(120)
        .check(sql`loyalty_events_per_minute >= 1`),
    )
    .addColumn('loyalty_stamps_per_minute', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(120)
        .check(sql`loyalty_stamps_per_minute >= 1`),
    )
    .addColumn('cascade_delete_reviews', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('review_summary_min_reviews', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(5)
        .check(sql`review_summary_min_reviews >= 1`),
    )
    .addColumn('expiring_soon_days', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(7)
        .check(sql`expiring_soon_days >= 1`),
    )
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('organization_id', 'uuid', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('id', 'uuid', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('permissions', sql`text[]`, (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz')
    .addPrimaryKeyConstraint('api_keys_pkey', ['organization_id', 'id'])
    .execute();
  // Authentication finds a key before it knows the organization, so this one lookup index cannot lead with
  // organization_id. It is deliberately not unique: 256-bit hashes do not collide, and sharding stays possible.
  await db.schema.createIndex('api_keys_key_hash_idx').on('api_keys').column('key_hash').execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('organization_id', 'uuid', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('in_progress', 'completed')`))
    .addColumn('status_code', 'integer')
    .addColumn('content_type', 'text')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pkey', ['organization_id', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_expires_at_idx').on('idempotency_keys').column('expires_at').execute();

  await db.schema
    .createTable('events')
    .addColumn('organization_id', 'uuid', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('id', 'uuid', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('position', 'bigint', (c) => c.notNull().generatedAlwaysAsIdentity())
    .addPrimaryKeyConstraint('events_pkey', ['organization_id', 'id'])
    .execute();
  await db.schema.createIndex('events_position_idx').on('events').column('position').execute();
  await db.schema
    .createIndex('events_organization_created_idx')
    .on('events')
    .columns(['organization_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['events', 'idempotency_keys', 'api_keys', 'organizations']) {
    await db.schema.dropTable(table).execute();
  }
}
