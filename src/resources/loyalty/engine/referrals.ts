import { sql, type Transaction } from 'kysely';
import { uuidv7 } from '../../../util/ids.js';
import { plainArrayLiteral } from '../../../db/arrays.js';
import { PREPARE } from '../../../db/prepared.js';
import type { DB } from '../../../db/schema.js';
import { SQL_UUID_V7 } from '../../../events/outbox.js';
import type { EventToRecord } from '../../../core/event-to-record.js';
import { conflict, unprocessable } from '../../../core/errors.js';
import type { MembershipRow } from '../../../records/loyalty/membership.js';
import { referralEvent, type ReferralRow } from '../../../records/loyalty/referral.js';

/**
 * The member was referred by the owner of `code`: a pending referral (referral.updated) and the membership's
 * referred_by link. A customer is referred once: the same referrer again changes nothing (no event), another one
 * is 409. An unknown code, or the member's own, is 422.
 */
export async function recordReferral(
  trx: Transaction<DB>,
  organizationId: string,
  member: MembershipRow,
  code: string,
  path: string,
): Promise<{ referral: ReferralRow; events: EventToRecord[] }> {
  const referrer = await trx
    .selectFrom('loyalty_memberships')
    .select(['id', 'customer_id'])
    .where('organization_id', '=', organizationId)
    .where('referral_code', '=', code.trim().toUpperCase())
    .executeTakeFirst();
  if (!referrer)
    throw unprocessable(`${path} is no member's referral code in this organization.`, [
      { path, message: 'no such referral code' },
    ]);
  if (referrer.customer_id === member.customer_id) {
    throw unprocessable(`${path} is the member's own referral code; a customer cannot refer themselves.`, [
      { path, message: "is the member's own code" },
    ]);
  }
  const { rows } = await sql<ReferralRow>`
    insert into referrals (organization_id, id, referrer_membership_id, referred_membership_id, referred_customer_id)
    values (${organizationId}::uuid, ${uuidv7()}::uuid, ${referrer.id}::uuid, ${member.id}::uuid, ${member.customer_id}::uuid)
    on conflict (organization_id, referred_customer_id) where referred_customer_id is not null do nothing
    returning *`.execute(trx);
  if (rows[0]) {
    await trx
      .updateTable('loyalty_memberships')
      .set({ referred_by_membership_id: referrer.id })
      .where('organization_id', '=', organizationId)
      .where('id', '=', member.id)
      .execute();
    return { referral: rows[0], events: [referralEvent(organizationId, rows[0])] };
  }
  const existing = await trx
    .selectFrom('referrals')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('referred_customer_id', '=', member.customer_id)
    .executeTakeFirstOrThrow();
  if (existing.referrer_membership_id !== referrer.id)
    throw conflict('The customer has already been referred by another member.');
  return { referral: existing, events: [] };
}

/**
 * The referred customers' first earning orders attribute their pending referrals (referral.updated): `firstOrders`
 * maps a customer id to their earliest new order. Keyed by customer, which the referrals' unique index leads with.
 */
export async function attributeReferrals(
  trx: Transaction<DB>,
  organizationId: string,
  firstOrders: ReadonlyMap<string, string>,
): Promise<EventToRecord[]> {
  if (firstOrders.size === 0) return [];
  // One probe of referrals_pending_idx, prepared, spares planning the update when nothing is pending.
  const { rows: pending } = await sql<{ found: boolean }>`${PREPARE}
    select exists (select 1 from referrals where organization_id = ${organizationId}::uuid and status = 'pending') as found`.execute(
    trx,
  );
  if (!pending[0]!.found) return [];
  // The referrer's feed gets a referralAttributed entry in the same statement (docs/api.md#member-activity-feed).
  const { rows } = await sql<ReferralRow>`${PREPARE}
    with attributed as (
      update referrals r set status = 'attributed', order_id = f.order_id, attributed_at = now(), updated_at = now()
      from unnest(${plainArrayLiteral([...firstOrders.keys()])}::uuid[], ${plainArrayLiteral([...firstOrders.values()])}::uuid[]) as f(customer_id, order_id)
      where r.organization_id = ${organizationId}::uuid and r.referred_customer_id = f.customer_id and r.status = 'pending'
      returning r.*
    ),
    feed as (
      insert into loyalty_activity (organization_id, id, loyalty_membership_id, customer_id, type, data, created_at)
      select ${organizationId}::uuid, ${SQL_UUID_V7}, m.id, m.customer_id, 'referralAttributed',
        jsonb_build_object('referralId', a.id, 'referredMembershipId', a.referred_membership_id, 'orderId', a.order_id),
        a.attributed_at
      from attributed a join loyalty_memberships m on m.organization_id = a.organization_id and m.id = a.referrer_membership_id
    )
    select * from attributed`.execute(trx);
  return rows.map((row) => referralEvent(organizationId, row));
}
