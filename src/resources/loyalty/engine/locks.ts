import { sql, type Transaction } from 'kysely';
import { plainArrayLiteral } from '../../../db/arrays.js';
import type { DB } from '../../../db/schema.js';

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
