import { sql, type Kysely } from 'kysely';

/**
 * Every earning order import attributes the pending referrals of its customers. With this index, finding that an
 * organization has none pending (the common case) is one index probe, and the attribution itself reads only
 * pending rows; before, the import planned and ran an update over the customers' referrals every time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index referrals_pending_idx on referrals (organization_id, referred_customer_id) where status = 'pending'`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index referrals_pending_idx`.execute(db);
}
