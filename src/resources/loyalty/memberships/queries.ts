import { sql } from 'kysely';
import { constraintOf, isUniqueViolation } from '../../../db/errors.js';
import { referralCode } from '../engine/codes.js';
import type { Executor } from '../../../db/executor.js';
import type { MembershipRow } from '../../../records/loyalty/membership.js';
import { toCustomer, type CustomerRow } from '../../../records/customer.js';
import { pageReferences } from '../../../resource-kit/page-references.js';

/** A customer's memberships (every program, left or not): deleting the customer removes them by cascade. */
export const membershipsOfCustomer = (db: Executor, organizationId: string, customerId: string) =>
  db
    .selectFrom('loyalty_memberships')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('customer_id', '=', customerId)
    .orderBy('id')
    .execute();

export const findMembership = (db: Executor, organizationId: string, id: string) =>
  db
    .selectFrom('loyalty_memberships')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();

export const membershipsByIds = (db: Executor, organizationId: string, ids: readonly string[]) =>
  ids.length === 0
    ? Promise.resolve([] as MembershipRow[])
    : db
        .selectFrom('loyalty_memberships')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('id', 'in', [...ids])
        .execute();

export interface NewMembership {
  id: string;
  customerId: string;
  programId: string;
  tierId?: string | null;
  /** The program's rolling window in months, when it has one: a tier gets its first review then. */
  reviewMonths?: number | null;
}

/** Inserts memberships with fresh referral codes (a rare code clash is retried by withFreshReferralCodes). */
export async function insertMemberships(
  db: Executor,
  organizationId: string,
  rows: readonly NewMembership[],
): Promise<MembershipRow[]> {
  if (rows.length === 0) return [];
  const { rows: inserted } = await sql<MembershipRow>`
    insert into loyalty_memberships (organization_id, id, customer_id, loyalty_program_id, loyalty_tier_id, tier_attained_at,
      tier_review_at, referral_code)
    select ${organizationId}::uuid, r.id, r.customer_id, r.program_id, r.tier_id,
      case when r.tier_id is null then null else now() end,
      case when r.tier_id is null or r.review_months is null then null else now() + make_interval(months => r.review_months) end,
      r.code
    from unnest(${rows.map((row) => row.id)}::uuid[], ${rows.map((row) => row.customerId)}::uuid[],
      ${rows.map((row) => row.programId)}::uuid[], ${rows.map((row) => row.tierId ?? null)}::uuid[],
      ${rows.map((row) => row.reviewMonths ?? null)}::int[], ${rows.map(() => referralCode())}::text[])
      as r(id, customer_id, program_id, tier_id, review_months, code)
    returning *`.execute(db);
  return inserted;
}

const REFERRAL_CODE_INDEX = 'loyalty_memberships_referral_code_key';
const isReferralCodeClash = (error: unknown) =>
  isUniqueViolation(error) &&
  (constraintOf(error) === REFERRAL_CODE_INDEX || String((error as Error).message).includes(REFERRAL_CODE_INDEX));

/**
 * Runs a transaction that creates memberships again when a fresh referral code happened to be taken
 * (31^8 ≈ 8.5e11 codes: a clash is rare, but the unique index, not chance, is what keeps codes unique).
 */
export async function withFreshReferralCodes<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run();
    } catch (error) {
      if (!isReferralCodeClash(error) || attempt >= 5) throw error;
    }
  }
}

export const customerExists = async (db: Executor, organizationId: string, customerId: string) =>
  Boolean(
    await db
      .selectFrom('customers')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('id', '=', customerId)
      .executeTakeFirst(),
  );

export const deleteMembershipRow = (db: Executor, organizationId: string, id: string) =>
  db
    .deleteFrom('loyalty_memberships')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();

export const findTier = (db: Executor, organizationId: string, id: string) =>
  db
    .selectFrom('loyalty_tiers')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();

const customerOfMembership = pageReferences<CustomerRow>({
  from: 'loyalty_memberships',
  column: 'customer_id',
  to: 'customers',
});

/** The customer of each membership, one query for the page (include=customer). */
export const customersOfMemberships = (db: Executor, organizationId: string, membershipIds: readonly string[]) =>
  customerOfMembership(db, organizationId, membershipIds, toCustomer);
