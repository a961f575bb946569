import { sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * The member activity feed (docs/api.md#member-activity-feed): every change of a member's standing has an entry in
 * loyalty_activity, points movements included, so the feed is one table read by the list engine. An entry gains the
 * points it moved and the stamp card it concerns; the stamp entries written so far take the feed's kind name
 * (stampAdded). What happened before this migration is back-filled where the rows still tell it: every ledger entry,
 * every completed stamp card, every reward's issue and end, each membership's joining and leaving, every attributed
 * referral. Back-filled entries carry `data.backfilled`, so `down` can tell them from entries written as they
 * happened. Plain SQL both engines share.
 */

/** A UUID v7 for the moment `at`, so back-filled ids sort with their time like the ids written as things happen. */
const uuidV7At = (at: RawBuilder<unknown>) => sql`encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing
  substring(int8send(floor(extract(epoch from ${at}) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1), 'hex')::uuid`;

const BACKFILLED = sql`'{"backfilled": true}'::jsonb`;

export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`alter table loyalty_activity add column if not exists points bigint`,
    sql`alter table loyalty_activity add column if not exists stamp_card_id uuid`,
    // Stampings recorded so far named the cards they stamped in data; the first is the card the stamps went on.
    sql`update loyalty_activity set type = 'stampAdded', stamp_card_id = (data->'stampCardIds'->>0)::uuid
      where type = 'stamped'`,
    // Every ledger entry: the ledger keeps its kind, points, reason and time.
    sql`insert into loyalty_activity (organization_id, id, loyalty_membership_id, customer_id, type, reason, points,
        loyalty_transaction_id, loyalty_reward_id, data, created_at)
      select t.organization_id, ${uuidV7At(sql`t.created_at`)}, t.loyalty_membership_id, t.customer_id,
        case t.kind when 'earned' then 'pointsEarned' when 'spent' then 'pointsSpent' when 'adjusted' then 'pointsAdjusted'
          else 'pointsExpired' end,
        t.reason, t.points, t.id, t.loyalty_reward_id, ${BACKFILLED}, t.created_at
      from loyalty_transactions t
      where not exists (select 1 from loyalty_activity a where a.organization_id = t.organization_id
        and a.loyalty_transaction_id = t.id and a.type like 'points%')`,
    // Completed stamp cards keep when they completed and the reward they gave.
    sql`insert into loyalty_activity (organization_id, id, loyalty_membership_id, customer_id, type, loyalty_reward_id,
        stamp_card_id, data, created_at)
      select c.organization_id, ${uuidV7At(sql`c.completed_at`)}, c.loyalty_membership_id, m.customer_id, 'stampCardCompleted',
        c.loyalty_reward_id, c.id, ${BACKFILLED}, c.completed_at
      from stamp_cards c join loyalty_memberships m on m.organization_id = c.organization_id and m.id = c.loyalty_membership_id
      where c.completed_at is not null and not exists (select 1 from loyalty_activity a where a.organization_id = c.organization_id
        and a.stamp_card_id = c.id and a.type = 'stampCardCompleted')`,
    // Rewards: issued at creation with their reason; redeemed, revoked and expired when the reward says so.
    ...(
      [
        ['rewardIssued', 'r.created_at', 'true', 'r.reason'],
        ['rewardRedeemed', 'r.redeemed_at', `r.status = 'redeemed'`, 'null'],
        ['rewardRevoked', 'r.revoked_at', `r.status = 'revoked'`, 'null'],
        ['rewardExpired', 'coalesce(r.expires_at, r.updated_at)', `r.status = 'expired'`, 'null'],
      ] as const
    ).map(
      ([
        kind,
        at,
        when,
        reason,
      ]) => sql`insert into loyalty_activity (organization_id, id, loyalty_membership_id, customer_id, type,
          reason, loyalty_reward_id, loyalty_transaction_id, stamp_card_id, data, created_at)
        select r.organization_id, ${uuidV7At(sql.raw(at))}, r.loyalty_membership_id, r.customer_id, ${kind}, ${sql.raw(reason)},
          r.id, r.loyalty_transaction_id, r.stamp_card_id, ${BACKFILLED}, ${sql.raw(at)}
        from loyalty_rewards r
        where ${sql.raw(when)} and ${sql.raw(at)} is not null and not exists (select 1 from loyalty_activity a
          where a.organization_id = r.organization_id and a.loyalty_reward_id = r.id and a.type = ${kind})`,
    ),
    // Joining: a membership with no joined or rejoined entry joined when it was created.
    sql`insert into loyalty_activity (organization_id, id, loyalty_membership_id, customer_id, type, data, created_at)
      select m.organization_id, ${uuidV7At(sql`m.created_at`)}, m.id, m.customer_id, 'joined', ${BACKFILLED}, m.created_at
      from loyalty_memberships m
      where not exists (select 1 from loyalty_activity a where a.organization_id = m.organization_id
        and a.loyalty_membership_id = m.id and a.type in ('joined', 'rejoined'))`,
    // Leaving: a member who is away now left at leftAt.
    sql`insert into loyalty_activity (organization_id, id, loyalty_membership_id, customer_id, type, data, created_at)
      select m.organization_id, ${uuidV7At(sql`m.left_at`)}, m.id, m.customer_id, 'left', ${BACKFILLED}, m.left_at
      from loyalty_memberships m
      where m.left_at is not null and not exists (select 1 from loyalty_activity a where a.organization_id = m.organization_id
        and a.loyalty_membership_id = m.id and a.type = 'left')`,
    // Attributed referrals, on the referrer's feed.
    sql`insert into loyalty_activity (organization_id, id, loyalty_membership_id, customer_id, type, data, created_at)
      select r.organization_id, ${uuidV7At(sql`r.attributed_at`)}, m.id, m.customer_id, 'referralAttributed',
        jsonb_build_object('backfilled', true, 'referralId', r.id, 'referredMembershipId', r.referred_membership_id,
          'orderId', r.order_id),
        r.attributed_at
      from referrals r join loyalty_memberships m on m.organization_id = r.organization_id and m.id = r.referrer_membership_id
      where r.status = 'attributed' and r.attributed_at is not null and not exists (select 1 from loyalty_activity a
        where a.organization_id = r.organization_id and a.type = 'referralAttributed' and a.data->>'referralId' = r.id::text)`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`delete from loyalty_activity where data ? 'backfilled'
      or type in ('pointsEarned', 'pointsSpent', 'pointsAdjusted', 'pointsExpired', 'stampCardCompleted', 'referralAttributed')`,
    sql`update loyalty_activity set type = 'stamped' where type = 'stampAdded'`,
    sql`alter table loyalty_activity drop column if exists stamp_card_id`,
    sql`alter table loyalty_activity drop column if exists points`,
  ];
  for (const statement of statements) await statement.execute(db);
}
