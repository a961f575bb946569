// The loyalty-rewards dataset of issue 5, on top of the store dataset (bench/datasets/store-dataset.ts).
//
//   node --import tsx bench/datasets/loyalty-dataset.ts            reuse the rewards when they are all there
//   node --import tsx bench/datasets/loyalty-dataset.ts --fresh    delete the bench organizations' loyalty rows and generate again
//
// In patron_bench_store (generated first when missing), set-based, for "Bench store 01".."Bench store 49" (50 is
//   the import benches' organization, which add and remove loyalty rows there): each organization's default program
//   (created when missing); every customer (196,000) joins it; 5 `rewards`-section rules per organization
//   ("Reward rule 1".."Reward rule 5"); 1,000,000 rewards dealt round robin (5 or 6 per member, ~20,400 per
//   organization), created over the last 365 days, ids UUIDv7
//   of their creation time, codes in the D18 form (unique: a bijection of the row number onto the 31^12 codes).
//   Status mix: 10 % pending and already due (expiresAt in the past: what the nightly expiry takes, 100,000),
//   50 % pending and not due (half never expire), 25 % redeemed, 10 % expired, 5 % revoked. 40 % carry one of the
//   organization's rules (with a ruleSnapshot); every reward has manual fulfillment. Reward types are mixed evenly.
//   No activity-feed rows and no ledger entries: the reward benchmarks do not read them.
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { CODE_ALPHABET } from '../../src/resources/loyalty/engine/codes.js';
import { MANUAL_NOTE } from '../../src/resources/loyalty/engine/rewards/fulfillment.js';
import {
  bulkLoad,
  CUSTOMERS_PER_ORG,
  ensureDataset,
  ORGANIZATIONS as ORGANIZATION_COUNT,
  type DatasetInfo,
} from './store-dataset.js';
import { databaseUrl, log, table } from '../support/harness.js';

export const RULES_PER_ORG = 5;
export const DUE_SHARE = 0.1;
const CODE_SPACE = 31n ** 12n;
/** Coprime with 31, so n ↦ n × MULTIPLIER mod 31^12 is a bijection: distinct rows get distinct codes. */
const MULTIPLIER = 9_007_199_254_740_881n;

/** The store dataset's organizations but the last: "Bench store 50" belongs to the import benches, which add and remove rows there. */
const ORGANIZATIONS = `select id from organizations where name like 'Bench store %' and name <> 'Bench store 50'`;
const SCOPE = `organization_id in (${ORGANIZATIONS})`;
export const REWARDS = 1_000_000;

export interface LoyaltyDatasetInfo extends DatasetInfo {
  loyalty: Record<string, number>;
  loyaltyGeneratedSeconds: number | null;
}

async function loyaltyCounts(client: pg.Client): Promise<Record<string, number>> {
  const { rows } = await client.query<Record<string, string>>(`select
    (select count(*) from loyalty_memberships where ${SCOPE}) as memberships,
    (select count(*) from loyalty_rules where ${SCOPE}) as rules,
    (select count(*) from loyalty_rewards where ${SCOPE}) as rewards,
    (select count(*) from loyalty_rewards where ${SCOPE} and status = 'pending' and expires_at <= now()) as due`);
  return Object.fromEntries(Object.entries(rows[0]!).map(([name, value]) => [name, Number(value)]));
}

function steps(): [string, string][] {
  const now = `timestamptz '${new Date().toISOString()}'`;
  const uuid7 = `create function pg_temp.uuid7(ts timestamptz) returns uuid language sql volatile as $$
    select (lpad(to_hex(floor(extract(epoch from ts) * 1000)::bigint), 12, '0') || '7' || substr(md5(random()::text), 1, 3)
      || substr('89ab', 1 + floor(random() * 4)::int, 1) || substr(md5(random()::text), 1, 15))::uuid $$`;
  // The n-th code: n × MULTIPLIER mod 31^12 (computed by the caller) written in base 31 over the D18 alphabet,
  // grouped XXXX-XXXX-XXXX. One expression, so PostgreSQL inlines it.
  const digit = (i: number) => `substr('${CODE_ALPHABET}', (x / ${31n ** BigInt(i)}::bigint % 31)::int + 1, 1)`;
  const group = (from: number) => [0, 1, 2, 3].map((k) => digit(11 - from - k)).join(' || ');
  const code = `create function pg_temp.code(x bigint) returns text language sql immutable as $$
    select ${group(0)} || '-' || ${group(4)} || '-' || ${group(8)} $$`;
  const manual = (status: string) =>
    `'${JSON.stringify({ mode: 'manual', status, platformDiscountId: null, platformDiscountGid: null, shop: null, note: MANUAL_NOTE })}'::jsonb`;
  return [
    ['functions', `${uuid7}; ${code}`],
    [
      // Every organization has its default program (D34); the store dataset's were inserted without one.
      'programs',
      `insert into loyalty_programs (organization_id, id, name)
         select o.id, pg_temp.uuid7(o.created_at), 'Loyalty program' from organizations o
         where o.id in (${ORGANIZATIONS}) and not exists (select 1 from loyalty_programs p where p.organization_id = o.id)`,
    ],
    [
      'rules',
      `create temp table b_rules as
         select p.organization_id, p.id as program_id, g as ord, pg_temp.uuid7(${now} - interval '400 days') as id,
                jsonb_build_object('pointsCost', 100 * g, 'reward', jsonb_build_object('type', 'amountCoupon', 'amountCents', 500 * g,
                  'productFilter', null, 'minimumOrderTotalCents', null)) as config
         from loyalty_programs p cross join generate_series(1, ${RULES_PER_ORG}) g
         where p.${SCOPE};
       insert into loyalty_rules (organization_id, id, loyalty_program_id, section, name, config, created_at, updated_at)
         select organization_id, id, program_id, 'rewards', 'Reward rule ' || ord, config, ${now} - interval '400 days', ${now} - interval '400 days'
         from b_rules`,
    ],
    [
      'memberships',
      `insert into loyalty_memberships (organization_id, id, customer_id, loyalty_program_id, referral_code, created_at, updated_at)
         select c.organization_id, pg_temp.uuid7(c.created_at), c.id, p.id, upper(substr(md5(c.id::text), 1, 10)), c.created_at, c.created_at
         from customers c
         join loyalty_programs p on p.organization_id = c.organization_id
         where c.${SCOPE}`,
    ],
    [
      'rewards',
      `insert into loyalty_rewards (organization_id, id, loyalty_membership_id, customer_id, loyalty_rule_id, reward, status, code,
                                    redeemed_at, expires_at, revoked_at, fulfillment, rule_snapshot, created_at, updated_at)
         select s.organization_id, pg_temp.uuid7(s.created_at), s.membership_id, s.customer_id, r.id,
                case s.kind
                  when 0 then jsonb_build_object('type', 'amountCoupon', 'amountCents', 500, 'productFilter', null, 'minimumOrderTotalCents', null)
                  when 1 then jsonb_build_object('type', 'percentageCoupon', 'percentageDiscount', 10, 'productFilter', null, 'minimumOrderTotalCents', 2000)
                  when 2 then jsonb_build_object('type', 'freeShipping', 'maximumValueCents', null)
                  else jsonb_build_object('type', 'giftCard', 'amountCents', 2500, 'expirySeconds', null) end,
                s.status, pg_temp.code(((s.n::numeric * ${MULTIPLIER}) % ${CODE_SPACE})::bigint),
                case when s.status = 'redeemed' then s.created_at + (${now} - s.created_at) * s.r2 end,
                case when s.status = 'pending' and s.r < ${DUE_SHARE} then ${now} - s.r2 * interval '30 days'
                     when s.status = 'pending' and s.r2 < 0.5 then ${now} + s.r2 * interval '360 days'
                     when s.status = 'expired' then s.created_at + (${now} - s.created_at) * s.r2 end,
                case when s.status = 'revoked' then s.created_at + (${now} - s.created_at) * s.r2 end,
                case when s.status = 'pending' then ${manual('active')} else ${manual('deactivated')} end,
                case when r.id is not null then jsonb_build_object('id', r.id, 'name', 'Reward rule ' || r.ord, 'section', 'rewards', 'config', r.config) end,
                s.created_at,
                greatest(s.created_at, coalesce(case when s.status <> 'pending' then s.created_at + (${now} - s.created_at) * s.r2 end, s.created_at))
         from (select m.organization_id, m.id as membership_id, m.customer_id, x.r, x.r2, x.kind, x.rule_ord, x.created_at, x.n,
                      case when x.r < 0.6 then 'pending' when x.r < 0.85 then 'redeemed' when x.r < 0.95 then 'expired' else 'revoked' end as status
               -- Round robin: reward n goes to member (n - 1) mod members + 1, so 1,000,000 spread 5 or 6 to a member.
               from (select g as n, random() as r, random() as r2, floor(random() * 4)::int as kind,
                            case when random() < 0.4 then 1 + floor(random() * ${RULES_PER_ORG})::int end as rule_ord,
                            ${now} - random() * interval '365 days' as created_at,
                            (g - 1) % (select count(*) from loyalty_memberships where ${SCOPE}) + 1 as member_ord
                     from generate_series(1, ${REWARDS}) g) x
               join (select organization_id, id, customer_id, row_number() over (order by organization_id, id) as ord
                     from loyalty_memberships where ${SCOPE}) m on m.ord = x.member_ord) s
         left join b_rules r on r.organization_id = s.organization_id and r.ord = s.rule_ord
         order by s.created_at`,
    ],
  ];
}

async function generate(client: pg.Client): Promise<number> {
  const started = performance.now();
  const clearing = [
    'loyalty_activity',
    'loyalty_rewards',
    'stamp_cards',
    'loyalty_transactions',
    'referrals',
    'loyalty_memberships',
    'loyalty_rules',
  ].map((tableName): [string, string] => [`cleared ${tableName}`, `delete from ${tableName} where ${SCOPE}`]);
  await bulkLoad(client, [...clearing, ...steps()]);
  const t0 = performance.now();
  for (const tableName of ['loyalty_rules', 'loyalty_memberships', 'loyalty_rewards'])
    await client.query(`vacuum (analyze) ${tableName}`);
  log(`  vacuum (analyze): ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return (performance.now() - started) / 1000;
}

/** The store dataset, then the loyalty rows (generated when missing, incomplete or `fresh`). */
export async function ensureLoyaltyDataset(options: { fresh?: boolean } = {}): Promise<LoyaltyDatasetInfo> {
  const store = await ensureDataset();
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  try {
    const expected = { memberships: (ORGANIZATION_COUNT - 1) * CUSTOMERS_PER_ORG, rewards: REWARDS };
    let counts = await loyaltyCounts(client);
    let generatedSeconds: number | null = null;
    if (options.fresh || counts.memberships !== expected.memberships || counts.rewards !== expected.rewards) {
      log(
        options.fresh
          ? 'generating the loyalty rows'
          : `loyalty rows incomplete (${JSON.stringify(counts)}): generating them`,
      );
      generatedSeconds = await generate(client);
      log(`generated in ${generatedSeconds.toFixed(1)} s`);
      counts = await loyaltyCounts(client);
    } else {
      log('reusing the loyalty rows (pass --fresh to generate them again)');
    }
    return { ...store, loyalty: counts, loyaltyGeneratedSeconds: generatedSeconds };
  } finally {
    await client.end();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const info = await ensureLoyaltyDataset({ fresh: process.argv.includes('--fresh') });
  console.log(
    table(
      ['table', 'rows'],
      Object.entries(info.loyalty).map(([name, n]) => [name, n.toLocaleString('en-US')]),
    ),
  );
}
