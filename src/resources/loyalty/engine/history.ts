import { sql, type Transaction } from 'kysely';
import type { DB } from '../../../db/schema.js';
import { recordEvents } from '../../../events/outbox.js';
import type { EventToRecord } from '../../../core/event-to-record.js';
import { ApiError, validationError } from '../../../core/errors.js';
import { checkImportSize, refuseDuplicates, strictFailure, type Skipped } from '../../../resource-kit/imports.js';
import { resolveCustomers } from '../../../resource-kit/references.js';
import { applyPoints } from './ledger.js';
import { resolveProgram } from './programs.js';
import type { LoyaltyHistoryBody, LoyaltyHistoryRow } from './schemas.js';
import { lockMemberships } from './locks.js';
import { toTransaction, type TransactionRow } from '../../../records/loyalty/transaction.js';

const SIGN: Record<LoyaltyHistoryRow['kind'], 'positive' | 'negative' | 'either'> = {
  earned: 'positive',
  spent: 'negative',
  expired: 'negative',
  adjusted: 'either',
};

/**
 * POST /loyalty-history, one transaction: each row becomes one ledger entry through applyPoints (so balances,
 * FIFO consumption of credits, lifetime points and tier upgrades follow exactly as if it had happened live), with
 * the row's createdAt, applied in createdAt order (ties in request order). A row's key makes it idempotent: a key
 * already imported for the member is skipped. Missing members are skipped (strict: 422); a debit the balance
 * cannot cover at that point of the history fails the whole import (409 naming the row). Members who left may
 * still receive their history.
 */
export async function importHistory(trx: Transaction<DB>, organizationId: string, body: LoyaltyHistoryBody) {
  checkImportSize(body.data);
  const now = Date.now();
  body.data.forEach((row, index) => checkRow(row, index, now));
  const keyed = body.data.map((row, index) => ({ row, index })).filter(({ row }) => row.key !== undefined);
  refuseDuplicates(
    keyed.map(({ row }) => `${memberRef(row)} ${row.key}`),
    'key',
    { noun: 'history entry' },
  );

  const members = await resolveMembers(trx, organizationId, body.data);
  const skipped: Skipped[] = [];
  const order = body.data
    .map((row, index) => ({ row, index, createdAt: new Date(row.createdAt) }))
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.index - b.index);
  // Applied in createdAt order, so members are reached in any order: lock them all first, in id order.
  await lockMemberships(
    trx,
    organizationId,
    [...members.values()].filter((member): member is string => typeof member === 'string'),
  );
  const written: TransactionRow[] = [];
  const events: EventToRecord[] = [];
  for (const { row, index, createdAt } of order) {
    const membershipId = members.get(index);
    if (typeof membershipId !== 'string') {
      const miss = { index, message: membershipId?.message ?? 'The member does not exist in this organization.' };
      if (body.strict) throw strictFailure(miss);
      skipped.push(miss);
      continue;
    }
    const applied = await applyPoints(trx, {
      organizationId,
      membershipId,
      points: row.points,
      kind: row.kind,
      reason: row.reason ?? null,
      source: { eventName: row.eventName ?? null, key: row.key === undefined ? null : `history:${row.key}` },
      ...(row.expiresAt !== undefined ? { expiresAt: row.expiresAt === null ? null : new Date(row.expiresAt) } : {}),
      createdAt,
      metadata: row.metadata ?? {},
      allowLeft: true,
    }).catch((error: unknown) => {
      if (error instanceof ApiError && error.code === 'CONFLICT') {
        throw new ApiError(
          'CONFLICT',
          `Row ${index} (createdAt ${createdAt.toISOString()}): ${error.message} Nothing was imported.`,
          [{ path: `body.data[${index}].points`, message: error.message }],
        );
      }
      throw error;
    });
    if (!applied) {
      skipped.push({ index, message: `Already imported (key "${row.key}").` });
      continue;
    }
    written.push(applied.transaction);
    events.push(...applied.events);
  }
  await recordEvents(trx, events);
  skipped.sort((a, b) => a.index - b.index);
  return { data: written.map(toTransaction), skipped };
}

const memberRef = (row: LoyaltyHistoryRow) =>
  row.loyaltyMembershipId?.toLowerCase() ?? `${row.customer?.toLowerCase()} ${row.loyaltyProgramId ?? ''}`;

function checkRow(row: LoyaltyHistoryRow, index: number, now: number): void {
  const path = `body.data[${index}]`;
  const fail = (field: string, message: string) => {
    throw validationError(`Invalid request: ${path}.${field} ${message}.`, [{ path: `${path}.${field}`, message }]);
  };
  if ((row.loyaltyMembershipId === undefined) === (row.customer === undefined)) {
    fail(
      row.customer === undefined ? 'loyaltyMembershipId' : 'customer',
      row.customer === undefined ? 'is required (or customer)' : 'must not be sent with loyaltyMembershipId',
    );
  }
  if (row.loyaltyMembershipId !== undefined && row.loyaltyProgramId !== undefined)
    fail('loyaltyProgramId', 'goes with customer, not loyaltyMembershipId');
  const sign = SIGN[row.kind];
  if (row.points === 0) fail('points', 'must not be 0');
  if (sign === 'positive' && row.points < 0) fail('points', `must be positive for kind ${row.kind}`);
  if (sign === 'negative' && row.points > 0) fail('points', `must be negative for kind ${row.kind}`);
  if (row.expiresAt !== undefined && row.points < 0) fail('expiresAt', 'applies to credits (positive points) only');
  if (new Date(row.createdAt).getTime() > now) fail('createdAt', 'must not be in the future');
}

/** Each row's membership id, or why there is none; customers and memberships in a query each. */
async function resolveMembers(trx: Transaction<DB>, organizationId: string, rows: readonly LoyaltyHistoryRow[]) {
  const result = new Map<number, string | { message: string }>();
  const byId = rows.flatMap((row) => (row.loyaltyMembershipId ? [row.loyaltyMembershipId.toLowerCase()] : []));
  const found = byId.length
    ? new Set(
        (
          await trx
            .selectFrom('loyalty_memberships')
            .select('id')
            .where('organization_id', '=', organizationId)
            .where('id', 'in', [...new Set(byId)])
            .execute()
        ).map((row) => row.id),
      )
    : new Set<string>();
  const customers = await resolveCustomers(trx, organizationId, [
    ...new Set(rows.flatMap((row) => (row.customer ? [row.customer] : []))),
  ]);
  const programs = new Map<string, string>();
  for (const [index, row] of rows.entries()) {
    if (row.customer === undefined) continue;
    const key = row.loyaltyProgramId?.toLowerCase() ?? '';
    if (!programs.has(key))
      programs.set(
        key,
        (
          await resolveProgram(
            trx,
            organizationId,
            row.loyaltyProgramId?.toLowerCase(),
            `body.data[${index}].loyaltyProgramId`,
          )
        ).id,
      );
  }
  const pairs = rows.flatMap((row) => {
    const customerId = row.customer === undefined ? undefined : customers.get(row.customer);
    return customerId ? [{ customerId, programId: programs.get(row.loyaltyProgramId?.toLowerCase() ?? '')! }] : [];
  });
  const { rows: memberships } = pairs.length
    ? await sql<{ id: string; customer_id: string; loyalty_program_id: string }>`
        select m.id, m.customer_id, m.loyalty_program_id from loyalty_memberships m
        join unnest(${pairs.map((pair) => pair.customerId)}::uuid[], ${pairs.map((pair) => pair.programId)}::uuid[]) as p(customer_id, program_id)
          on m.customer_id = p.customer_id and m.loyalty_program_id = p.program_id
        where m.organization_id = ${organizationId}::uuid`.execute(trx)
    : { rows: [] };
  const memberOf = new Map(memberships.map((row) => [`${row.customer_id}/${row.loyalty_program_id}`, row.id]));
  rows.forEach((row, index) => {
    if (row.loyaltyMembershipId !== undefined) {
      const id = row.loyaltyMembershipId.toLowerCase();
      result.set(
        index,
        found.has(id)
          ? id
          : { message: `Loyalty membership "${row.loyaltyMembershipId}" does not exist in this organization.` },
      );
      return;
    }
    const customerId = customers.get(row.customer!);
    if (!customerId)
      return void result.set(index, { message: `Customer "${row.customer}" does not exist in this organization.` });
    const id = memberOf.get(`${customerId}/${programs.get(row.loyaltyProgramId?.toLowerCase() ?? '')}`);
    result.set(index, id ?? { message: `Customer "${row.customer}" is not a member of the loyalty program.` });
  });
  return result;
}
