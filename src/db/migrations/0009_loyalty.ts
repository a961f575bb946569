import { sql, type Kysely } from 'kysely';

/**
 * The loyalty domain (service.md "Loyalty reward"): programs, tiers and rules (configuration), memberships with their
 * points ledger and the member activity feed (docs/api.md#loyalty-programs-tiers-rules-and-memberships); rewards
 * (docs/api.md#loyalty-rewards); stamp cards, referrals and the job table of the overnight runner
 * (docs/api.md#loyalty-earning-and-jobs).
 *
 * Design notes the services rely on:
 * - A membership's points_balance changes only through one conditional UPDATE (`… + d >= 0 returning`), which also
 *   locks the membership row until commit; every ledger write of a member is serialized on that row.
 * - Ledger credits (earned, positive adjusted) carry `remaining`: the part not yet spent or expired. Debits consume
 *   credits soonest-expiring first, so sum(remaining) = points_balance and points expiry knows what is left per credit.
 * - Rules are never hard-deleted while anything may point at them (deleted_at), so a reward keeps its loyaltyRuleId
 *   and include=rule after the rule is removed from configuration.
 * - Rewards carry customer_id (a membership never changes customer) so the customer.* filters of GET
 *   /loyalty-rewards join customers directly and the per-customer index serves them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`create table loyalty_programs (
      organization_id uuid not null references organizations(id) on delete cascade,
      id uuid not null,
      name text not null,
      points_name text not null default 'points',
      default_reward_expiry jsonb not null default '{"type":"never"}',
      points_expiry_days integer check (points_expiry_days between 1 and 3650),
      tier_window text not null default 'lifetime' check (tier_window in ('lifetime', 'rolling')),
      tier_window_months integer check (tier_window_months between 1 and 120),
      metadata jsonb not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, id),
      check ((tier_window = 'rolling') = (tier_window_months is not null)))`,
    sql`create index loyalty_programs_created_idx on loyalty_programs (organization_id, created_at, id)`,

    sql`create table loyalty_tiers (
      organization_id uuid not null,
      id uuid not null,
      loyalty_program_id uuid not null,
      name text not null,
      threshold_points bigint not null check (threshold_points between 0 and 9007199254740991),
      position integer not null default 0,
      metadata jsonb not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, id),
      foreign key (organization_id, loyalty_program_id) references loyalty_programs (organization_id, id) on delete cascade)`,
    sql`create unique index loyalty_tiers_threshold_key on loyalty_tiers (organization_id, loyalty_program_id, threshold_points)`,
    sql`create index loyalty_tiers_created_idx on loyalty_tiers (organization_id, created_at, id)`,
    sql`create index loyalty_tiers_position_idx on loyalty_tiers (organization_id, position, id)`,

    sql`create table loyalty_rules (
      organization_id uuid not null,
      id uuid not null,
      loyalty_program_id uuid not null,
      section text not null check (section in ('rules', 'rewards', 'offers', 'stampCards')),
      name text not null,
      config jsonb not null,
      is_active boolean not null default true,
      metadata jsonb not null default '{}',
      deleted_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, id),
      foreign key (organization_id, loyalty_program_id) references loyalty_programs (organization_id, id) on delete cascade)`,
    sql`create index loyalty_rules_created_idx on loyalty_rules (organization_id, created_at, id) where deleted_at is null`,
    sql`create index loyalty_rules_name_idx on loyalty_rules (organization_id, name, id) where deleted_at is null`,
    // Earning looks up a program's live rules of one section on every event.
    sql`create index loyalty_rules_section_idx on loyalty_rules (organization_id, loyalty_program_id, section)
      where deleted_at is null and is_active`,

    sql`create table loyalty_memberships (
      organization_id uuid not null,
      id uuid not null,
      customer_id uuid not null,
      loyalty_program_id uuid not null,
      loyalty_tier_id uuid,
      tier_assigned_manually boolean not null default false,
      tier_attained_at timestamptz,
      tier_review_at timestamptz,
      left_at timestamptz,
      referral_code text not null,
      referred_by_membership_id uuid,
      points_balance bigint not null default 0 check (points_balance between 0 and 9007199254740991),
      lifetime_points bigint not null default 0 check (lifetime_points between 0 and 9007199254740991),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, id),
      foreign key (organization_id, customer_id) references customers (organization_id, id) on delete cascade,
      foreign key (organization_id, loyalty_program_id) references loyalty_programs (organization_id, id),
      foreign key (organization_id, loyalty_tier_id) references loyalty_tiers (organization_id, id),
      foreign key (organization_id, referred_by_membership_id) references loyalty_memberships (organization_id, id)
        on delete set null (referred_by_membership_id),
      check (tier_assigned_manually = false or loyalty_tier_id is not null))`,
    sql`create unique index loyalty_memberships_customer_key on loyalty_memberships (organization_id, loyalty_program_id, customer_id)`,
    sql`create unique index loyalty_memberships_referral_code_key on loyalty_memberships (organization_id, referral_code)`,
    sql`create index loyalty_memberships_created_idx on loyalty_memberships (organization_id, created_at, id)`,
    sql`create index loyalty_memberships_by_customer_idx on loyalty_memberships (organization_id, customer_id)`,
    sql`create index loyalty_memberships_tier_idx on loyalty_memberships (organization_id, loyalty_tier_id) where loyalty_tier_id is not null`,
    sql`create index loyalty_memberships_referred_by_idx on loyalty_memberships (organization_id, referred_by_membership_id)
      where referred_by_membership_id is not null`,
    // The nightly review of rolling-window tiers.
    sql`create index loyalty_memberships_review_idx on loyalty_memberships (organization_id, tier_review_at) where tier_review_at is not null`,

    sql`create table loyalty_transactions (
      organization_id uuid not null,
      id uuid not null,
      loyalty_membership_id uuid not null,
      customer_id uuid not null,
      kind text not null check (kind in ('earned', 'spent', 'adjusted', 'expired')),
      points bigint not null check (points <> 0 and abs(points) <= 9007199254740991),
      balance_after bigint not null check (balance_after >= 0),
      reason text,
      loyalty_rule_id uuid,
      loyalty_reward_id uuid,
      order_id uuid,
      event_name text,
      source_key text,
      expires_at timestamptz,
      remaining bigint check (remaining >= 0),
      expiring_soon_sent_at timestamptz,
      metadata jsonb not null default '{}',
      created_at timestamptz not null default now(),
      primary key (organization_id, id),
      foreign key (organization_id, loyalty_membership_id) references loyalty_memberships (organization_id, id) on delete cascade,
      check (kind = 'adjusted' or (kind = 'earned') = (points > 0)),
      check ((points > 0) = (remaining is not null)),
      check (remaining is null or remaining <= points))`,
    sql`create index loyalty_transactions_created_idx on loyalty_transactions (organization_id, created_at, id)`,
    sql`create index loyalty_transactions_membership_idx on loyalty_transactions (organization_id, loyalty_membership_id, created_at, id)`,
    sql`create index loyalty_transactions_customer_idx on loyalty_transactions (organization_id, customer_id, created_at, id)`,
    // Credits a debit can still consume, in consumption order; also what points expiry walks.
    sql`create index loyalty_transactions_open_idx on loyalty_transactions (organization_id, loyalty_membership_id, expires_at, created_at, id)
      where remaining > 0`,
    sql`create index loyalty_transactions_due_idx on loyalty_transactions (organization_id, expires_at)
      where remaining > 0 and expires_at is not null`,
    // Earning is idempotent per source (e.g. one order and rule): the same credit is never written twice.
    sql`create unique index loyalty_transactions_source_key on loyalty_transactions (organization_id, loyalty_membership_id, source_key)
      where source_key is not null`,

    sql`create table stamp_cards (
      organization_id uuid not null,
      id uuid not null,
      loyalty_membership_id uuid not null,
      loyalty_rule_id uuid not null,
      stamps integer not null default 0 check (stamps >= 0),
      stamps_required integer not null check (stamps_required >= 1),
      completed_at timestamptz,
      loyalty_reward_id uuid,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, id),
      foreign key (organization_id, loyalty_membership_id) references loyalty_memberships (organization_id, id) on delete cascade,
      foreign key (organization_id, loyalty_rule_id) references loyalty_rules (organization_id, id),
      check (stamps <= stamps_required))`,
    // At most one card being filled per member and stamp-card rule.
    sql`create unique index stamp_cards_open_key on stamp_cards (organization_id, loyalty_membership_id, loyalty_rule_id)
      where completed_at is null`,
    sql`create index stamp_cards_created_idx on stamp_cards (organization_id, created_at, id)`,
    sql`create index stamp_cards_membership_idx on stamp_cards (organization_id, loyalty_membership_id)`,

    sql`create table loyalty_rewards (
      organization_id uuid not null,
      id uuid not null,
      loyalty_membership_id uuid not null,
      customer_id uuid not null,
      loyalty_rule_id uuid,
      stamp_card_id uuid,
      loyalty_transaction_id uuid,
      reward jsonb not null,
      status text not null default 'pending' check (status in ('pending', 'redeemed', 'expired', 'revoked')),
      code text,
      redeemed_at timestamptz,
      expires_at timestamptz,
      revoked_at timestamptz,
      metadata jsonb not null default '{}',
      fulfillment jsonb,
      rule_snapshot jsonb,
      reason text,
      order_id uuid,
      expiring_soon_sent_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, id),
      foreign key (organization_id, loyalty_membership_id) references loyalty_memberships (organization_id, id) on delete cascade,
      foreign key (organization_id, customer_id) references customers (organization_id, id) on delete cascade,
      foreign key (organization_id, loyalty_rule_id) references loyalty_rules (organization_id, id),
      foreign key (organization_id, stamp_card_id) references stamp_cards (organization_id, id),
      foreign key (organization_id, loyalty_transaction_id) references loyalty_transactions (organization_id, id),
      check ((status = 'redeemed') = (redeemed_at is not null)),
      check ((status = 'revoked') = (revoked_at is not null)))`,
    sql`create unique index loyalty_rewards_code_key on loyalty_rewards (organization_id, code)`,
    sql`create index loyalty_rewards_created_idx on loyalty_rewards (organization_id, created_at, id)`,
    sql`create index loyalty_rewards_redeemed_idx on loyalty_rewards (organization_id, redeemed_at, id)`,
    sql`create index loyalty_rewards_expires_idx on loyalty_rewards (organization_id, expires_at, id)`,
    sql`create index loyalty_rewards_membership_idx on loyalty_rewards (organization_id, loyalty_membership_id, created_at, id)`,
    sql`create index loyalty_rewards_customer_idx on loyalty_rewards (organization_id, customer_id, created_at, id)`,
    sql`create index loyalty_rewards_rule_idx on loyalty_rewards (organization_id, loyalty_rule_id) where loyalty_rule_id is not null`,
    sql`create index loyalty_rewards_stamp_card_idx on loyalty_rewards (organization_id, stamp_card_id) where stamp_card_id is not null`,
    sql`create index loyalty_rewards_transaction_idx on loyalty_rewards (organization_id, loyalty_transaction_id)
      where loyalty_transaction_id is not null`,
    // The nightly expiry and expiring-soon scans touch only pending rewards with a date.
    sql`create index loyalty_rewards_due_idx on loyalty_rewards (organization_id, expires_at)
      where status = 'pending' and expires_at is not null`,
    sql`create index loyalty_rewards_code_trgm on loyalty_rewards using gin (organization_id, lower(code) gin_trgm_ops)`,

    // The member's activity feed: what is not a points movement (a reward issued, redeemed, revoked or expired, a tier
    // change, joining or leaving), with the reason given (docs/api.md#loyalty-activity). Points movements are the
    // ledger itself.
    sql`create table loyalty_activity (
      organization_id uuid not null,
      id uuid not null,
      loyalty_membership_id uuid not null,
      customer_id uuid not null,
      type text not null,
      reason text,
      loyalty_reward_id uuid,
      loyalty_transaction_id uuid,
      loyalty_tier_id uuid,
      data jsonb not null default '{}',
      created_at timestamptz not null default now(),
      primary key (organization_id, id),
      foreign key (organization_id, loyalty_membership_id) references loyalty_memberships (organization_id, id) on delete cascade)`,
    sql`create index loyalty_activity_membership_idx on loyalty_activity (organization_id, loyalty_membership_id, created_at, id)`,
    sql`create index loyalty_activity_created_idx on loyalty_activity (organization_id, created_at, id)`,

    sql`create table referrals (
      organization_id uuid not null,
      id uuid not null,
      referrer_membership_id uuid not null,
      referred_membership_id uuid,
      referred_customer_id uuid,
      status text not null default 'pending' check (status in ('pending', 'attributed')),
      order_id uuid,
      attributed_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, id),
      foreign key (organization_id, referrer_membership_id) references loyalty_memberships (organization_id, id) on delete cascade,
      foreign key (organization_id, referred_membership_id) references loyalty_memberships (organization_id, id)
        on delete set null (referred_membership_id),
      foreign key (organization_id, referred_customer_id) references customers (organization_id, id) on delete cascade)`,
    // A customer is referred at most once per organization.
    sql`create unique index referrals_referred_customer_key on referrals (organization_id, referred_customer_id)
      where referred_customer_id is not null`,
    sql`create index referrals_referrer_idx on referrals (organization_id, referrer_membership_id, created_at, id)`,

    // Scheduled and queued work of the overnight runner: one row per (organization, job, run key such as the local
    // date), so a night's run happens once however many processes race to claim it.
    sql`create table jobs (
      organization_id uuid not null references organizations(id) on delete cascade,
      id uuid not null,
      name text not null,
      run_key text not null,
      status text not null default 'queued' check (status in ('queued', 'running', 'succeeded', 'failed')),
      run_after timestamptz not null default now(),
      claimed_by text,
      lease_expires_at timestamptz,
      attempts integer not null default 0,
      last_error text,
      result jsonb,
      started_at timestamptz,
      finished_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (organization_id, id))`,
    sql`create unique index jobs_run_key on jobs (organization_id, name, run_key)`,
    // Claims cross organizations: the runner picks any due job (SKIP LOCKED), so these do not lead with one.
    sql`create index jobs_due_idx on jobs (run_after) where status = 'queued'`,
    sql`create index jobs_lease_idx on jobs (lease_expires_at) where status = 'running'`,

    // Every organization starts with one program (docs/api.md#the-default-loyalty-program); new ones get it from
    // createOrganization.
    sql`insert into loyalty_programs (organization_id, id, name)
      select id, gen_random_uuid(), 'Loyalty program' from organizations`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'jobs',
    'referrals',
    'loyalty_activity',
    'loyalty_rewards',
    'stamp_cards',
    'loyalty_transactions',
    'loyalty_memberships',
    'loyalty_rules',
    'loyalty_tiers',
    'loyalty_programs',
  ]) {
    await sql`drop table if exists ${sql.ref(table)}`.execute(db);
  }
}
