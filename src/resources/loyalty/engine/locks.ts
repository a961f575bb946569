import { sql, type Transaction } from 'kysely';
import { plainArrayLiteral } from '../../../db/arrays.js';
import type { DB } from '../../../db/schema.js';
import type { Executor } from '../../../db/executor.js';

/**
 * Locks memberships for update in id order and returns the ids it locked. Every writer that changes several
 * members' balances in one transaction locks them this way before its first write, so two such transactions queue
 * instead of deadlocking (test/hardening/lock-order.test.ts). `skipLocked` passes over rows another transaction
 * holds.
 */
export async function lockMemberships(
  trx: Transaction<DB>,
  organizationId: string,
  membershipIds: readonly string[],
  options: { skipLocked?: boolean } = {},
): Promise<string[]> {
  if (membershipIds.length === 0) return [];
  const { rows } = await sql<{ id: string }>`
    select id from loyalty_memberships
    where organization_id = ${organizationId}::uuid and id = any(${plainArrayLiteral([...new Set(membershipIds)].sort())}::uuid[])
    order by id for update ${options.skipLocked ? sql`skip locked` : sql``}`.execute(trx);
  return rows.map((row) => row.id);
}

/** One membership, locked for update until the transaction ends. */
export const lockMembership = (db: Executor, organizationId: string, id: string) =>
  db
    .selectFrom('loyalty_memberships')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();

/** A customer's membership of a program, locked for update until the transaction ends. */
export const lockMembershipOf = (db: Executor, organizationId: string, programId: string, customerId: string) =>
  db
    .selectFrom('loyalty_memberships')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('loyalty_program_id', '=', programId)
    .where('customer_id', '=', customerId)
    .forUpdate()
    .executeTakeFirst();
