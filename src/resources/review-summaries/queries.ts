import { sql, type Kysely, type RawBuilder } from 'kysely';
import { prepared } from '../../db/prepared.js';
import type { DB } from '../../db/schema.js';
import type { ReviewSummaryVersion } from './schemas.js';

/** A queued generation that has not finished after this long is taken to be lost (its process died for good). */
export const PENDING_EXPIRES_MS = 60 * 60 * 1000;

/** `withdrawn`: the current summary draws on a review that left what summaries read (see withdrawSources). */
export type PendingReason = 'threshold' | 'manual' | 'refresh' | 'withdrawn';

/** Published and not flagged for moderation: what a summary may read and quote (`r` is the reviews alias). */
const READABLE = sql`r.published and not r.flagged`;

/**
 * The reviews a summary is made from: published, not flagged for moderation, linked to the product. `r` must be
 * the reviews alias of the query.
 */
const summarizable = (organizationId: string) => sql`r.organization_id = ${organizationId}::uuid and ${READABLE}`;

/**
 * True when one of `ids` (a uuid[]: a version's source reviews) is no longer a readable review of the product of
 * the summary row aliased `s`: unpublished, flagged, deleted or moved to another product. Sources are a few ids
 * (up to 200 for a chat model), each one primary-key probe.
 */
const quotesWithdrawn = (ids: RawBuilder<unknown>) => sql<boolean>`exists (
  select 1 from unnest(${ids}) as source (id)
  where not exists (
    select 1 from reviews r
    where r.organization_id = s.organization_id and r.id = source.id and r.product_id = s.product_id and ${READABLE}))`;
const CURRENT_WITHDRAWN = quotesWithdrawn(sql`s.current_source_ids`);
const PREVIOUS_WITHDRAWN = quotesWithdrawn(sql`s.previous_source_ids`);

/**
 * A digest of everything a summary reads from a product's summarizable reviews (which ones, rating, language,
 * date, text). Equal digests mean a regeneration would read the same input. Aggregate over the alias `r`.
 */
const FINGERPRINT: RawBuilder<string> = sql<string>`coalesce(md5(string_agg(
  r.id::text || ':' || r.rating::text || ':' || coalesce(r.language, '') || ':' ||
  (extract(epoch from r.created_at) * 1000000)::bigint::text || ':' || md5(r.title || chr(31) || r.body),
  ',' order by r.id)), '')`;

export interface SummaryRecordRow {
  product_id: string;
  current: ReviewSummaryVersion | null;
  previous: ReviewSummaryVersion | null;
  suppressed_at: Date | null;
}

// Runs on every GET of a summary (the hot read), so it is built and compiled once.
const selectProductSummary = prepared(
  (db, organizationId: string, productId: string) =>
    db
      .selectFrom('products as p')
      .leftJoin('review_summaries as s', (join) =>
        join.onRef('s.organization_id', '=', 'p.organization_id').onRef('s.product_id', '=', 'p.id'),
      )
      .select(['p.id as product_id', 's.current', 's.previous', 's.suppressed_at'])
      .where('p.organization_id', '=', organizationId)
      .where('p.id', '=', productId),
  ['organization-id', 'product-id'],
);

/** The product (undefined when it is not this organization's) with its summary row's fields (null without one). */
export async function findProductSummary(
  db: Kysely<DB>,
  organizationId: string,
  productId: string,
): Promise<SummaryRecordRow | undefined> {
  return (await selectProductSummary(db, organizationId, productId))[0] as SummaryRecordRow | undefined;
}

/** The product's summary row (undefined without one), read inside a transaction that changed it. */
export async function summaryRecord(
  db: Kysely<DB>,
  organizationId: string,
  productId: string,
): Promise<SummaryRecordRow | undefined> {
  const { rows } = await sql<SummaryRecordRow>`
    select product_id, current, previous, suppressed_at from review_summaries
    where organization_id = ${organizationId}::uuid and product_id = ${productId}::uuid`.execute(db);
  return rows[0];
}

/**
 * Hides (keeping the first hiding time) or shows a written summary; undefined when there is none, or when it already is
 * hidden or shown as asked (nothing written: docs/api.md#writes-that-change-nothing).
 */
export async function setSuppressed(
  db: Kysely<DB>,
  organizationId: string,
  productId: string,
  { suppressed, now }: { suppressed: boolean; now: Date },
): Promise<SummaryRecordRow | undefined> {
  const { rows } = await sql<SummaryRecordRow>`
    update review_summaries
    set suppressed_at = ${suppressed ? sql`coalesce(suppressed_at, ${now}::timestamptz)` : sql`null`}, updated_at = ${now}::timestamptz
    where organization_id = ${organizationId}::uuid and product_id = ${productId}::uuid and current is not null
      and (suppressed_at is not null) <> ${suppressed}
    returning product_id, current, previous, suppressed_at`.execute(db);
  return rows[0];
}

/** Forgets `previous`; undefined when the product has no written summary. */
export async function forgetPrevious(
  db: Kysely<DB>,
  organizationId: string,
  productId: string,
  now: Date,
): Promise<SummaryRecordRow | undefined> {
  const { rows } = await sql<SummaryRecordRow>`
    update review_summaries
    set previous = null, previous_source_ids = null, updated_at = case when previous is null then updated_at else ${now}::timestamptz end
    where organization_id = ${organizationId}::uuid and product_id = ${productId}::uuid and current is not null
    returning product_id, current, previous, suppressed_at`.execute(db);
  return rows[0];
}

/**
 * Makes `previous` current again and discards the summary that replaced it; undefined when there is nothing to
 * revert to, or when `previous` quotes a review withdrawn since (publishedReviewsChanged drops such a `previous`;
 * this also keeps out one recorded before sources were, whose sources are a superset). The reviews the discarded
 * summary had read stay "seen" (summary_fingerprint is kept), so the overnight refresh does not regenerate it back
 * without a new review.
 */
export async function revertToPrevious(
  db: Kysely<DB>,
  organizationId: string,
  productId: string,
  now: Date,
): Promise<SummaryRecordRow | undefined> {
  const { rows } = await sql<SummaryRecordRow>`
    update review_summaries s
    set current = s.previous, current_source_ids = s.previous_source_ids, previous = null, previous_source_ids = null, updated_at = ${now}::timestamptz
    where s.organization_id = ${organizationId}::uuid and s.product_id = ${productId}::uuid and s.current is not null and s.previous is not null
      and not ${PREVIOUS_WITHDRAWN}
    returning s.product_id, s.current, s.previous, s.suppressed_at`.execute(db);
  return rows[0];
}

export interface ReviewStatsRow {
  product_id: string;
  /** Summarizable reviews now. */
  eligible: number;
  fingerprint: string;
  /** The organization's reviewSummaryMinReviews. */
  threshold: number;
  has_row: boolean;
  has_summary: boolean;
  /** A generation is queued or running (and not so old that it must have been lost). */
  pending: boolean;
  reviews_fingerprint: string | null;
  regenerate_requested_at: Date | null;
}

/**
 * Locks the summary rows of these products (in key order, so concurrent review changes never deadlock on them).
 * Run before reviewStats: under READ COMMITTED the next statement then sees every change committed by a
 * transaction that held the lock before us.
 */
export async function lockSummaries(
  db: Kysely<DB>,
  organizationId: string,
  productIds: readonly string[],
): Promise<void> {
  await sql`
    select 1 from review_summaries
    where organization_id = ${organizationId}::uuid and product_id = any(${[...productIds]}::uuid[])
    order by product_id
    for update`.execute(db);
}

/** Per product of this organization (unknown ids are left out): its summarizable reviews and its summary's state. */
export async function reviewStats(
  db: Kysely<DB>,
  organizationId: string,
  productIds: readonly string[],
  now: Date,
): Promise<ReviewStatsRow[]> {
  const { rows } = await sql<ReviewStatsRow>`
    select p.id as product_id,
      summarizable.eligible,
      summarizable.fingerprint,
      o.review_summary_min_reviews as threshold,
      s.product_id is not null as has_row,
      coalesce(s.current is not null, false) as has_summary,
      coalesce(s.pending_since > ${new Date(now.getTime() - PENDING_EXPIRES_MS)}::timestamptz, false) as pending,
      s.reviews_fingerprint,
      s.regenerate_requested_at
    from products p
    join organizations o on o.id = p.organization_id
    left join review_summaries s on s.organization_id = p.organization_id and s.product_id = p.id
    -- One pass over each product's reviews for both the count and the digest.
    cross join lateral (
      select count(*)::int as eligible, ${FINGERPRINT} as fingerprint
      from reviews r where ${summarizable(organizationId)} and r.product_id = p.id) summarizable
    where p.organization_id = ${organizationId}::uuid and p.id = any(${[...productIds]}::uuid[])
    order by p.id`.execute(db);
  return rows;
}

/** Records what the products' summarizable reviews look like now (rows that exist). */
export async function saveReviewsFingerprints(
  db: Kysely<DB>,
  organizationId: string,
  rows: readonly { productId: string; fingerprint: string }[],
  now: Date,
): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    update review_summaries s set reviews_fingerprint = u.fingerprint, updated_at = ${now}::timestamptz
    from unnest(${rows.map((row) => row.productId)}::uuid[], ${rows.map((row) => row.fingerprint)}::text[]) as u (product_id, fingerprint)
    where s.organization_id = ${organizationId}::uuid and s.product_id = u.product_id`.execute(db);
}

/**
 * Marks a first generation pending for products without a written summary nor a live pending one, creating their
 * rows; returns those it marked. A concurrent transaction that marked one first wins (the conflict re-checks it).
 */
export async function markFirstGenerations(
  db: Kysely<DB>,
  organizationId: string,
  rows: readonly { productId: string; fingerprint: string }[],
  now: Date,
): Promise<string[]> {
  if (rows.length === 0) return [];
  const { rows: marked } = await sql<{ product_id: string }>`
    insert into review_summaries as s (organization_id, product_id, pending_since, pending_reason, reviews_fingerprint, created_at, updated_at)
    select ${organizationId}::uuid, u.product_id, ${now}::timestamptz, 'threshold', u.fingerprint, ${now}::timestamptz, ${now}::timestamptz
    from unnest(${rows.map((row) => row.productId)}::uuid[], ${rows.map((row) => row.fingerprint)}::text[]) as u (product_id, fingerprint)
    on conflict (organization_id, product_id) do update
      set pending_since = excluded.pending_since, pending_reason = excluded.pending_reason,
        reviews_fingerprint = excluded.reviews_fingerprint, updated_at = excluded.updated_at
      where s.current is null and (s.pending_since is null or s.pending_since <= ${new Date(now.getTime() - PENDING_EXPIRES_MS)}::timestamptz)
    returning s.product_id`.execute(db);
  return marked.map((row) => row.product_id);
}

/**
 * The summaries of these products (rows locked by the caller, lockSummaries) that draw on a review no longer
 * readable for them, in one statement:
 * - `previous` quoting one is dropped, so a revert cannot bring the words back;
 * - `current` quoting one, with no readable review left, is removed (GET answers null again, as before a first
 *   summary; summary_fingerprint takes the reviews' digest, so the overnight refresh has nothing to retry);
 * - `current` quoting one, shown (not suppressed: automatic regeneration leaves hidden summaries alone, and showing one
 *   again runs this check; docs/api.md#withdrawn-reviews), with no generation pending, is marked pending with reason
 *   `withdrawn`; a pending generation reads the reviews when it runs (and writeGenerated refuses sources withdrawn
 *   meanwhile), so it is not doubled. Returns the products marked, to queue.
 */
export async function withdrawSources(
  db: Kysely<DB>,
  organizationId: string,
  productIds: readonly string[],
  now: Date,
): Promise<string[]> {
  if (productIds.length === 0) return [];
  const { rows } = await sql<{ product_id: string; queue: boolean }>`
    with state as (
      select s.product_id, ${CURRENT_WITHDRAWN} as current_withdrawn, ${PREVIOUS_WITHDRAWN} as previous_withdrawn,
        exists (select 1 from reviews r where ${summarizable(organizationId)} and r.product_id = s.product_id) as readable_left,
        s.suppressed_at is null and coalesce(s.pending_since <= ${new Date(now.getTime() - PENDING_EXPIRES_MS)}::timestamptz, true) as can_queue
      from review_summaries s
      where s.organization_id = ${organizationId}::uuid and s.product_id = any(${[...productIds]}::uuid[]) and s.current is not null
    ), decided as (
      select product_id, previous_withdrawn,
        current_withdrawn and not readable_left as remove,
        current_withdrawn and readable_left and can_queue as queue
      from state
    )
    update review_summaries s set
      current = case when d.remove then null else s.current end,
      current_source_ids = case when d.remove then null else s.current_source_ids end,
      previous = case when d.remove or d.previous_withdrawn then null else s.previous end,
      previous_source_ids = case when d.remove or d.previous_withdrawn then null else s.previous_source_ids end,
      summary_fingerprint = case when d.remove then s.reviews_fingerprint else s.summary_fingerprint end,
      pending_since = case when d.queue then ${now}::timestamptz else s.pending_since end,
      pending_reason = case when d.queue then 'withdrawn' else s.pending_reason end,
      updated_at = ${now}::timestamptz
    from decided d
    where s.organization_id = ${organizationId}::uuid and s.product_id = d.product_id and (d.remove or d.queue or d.previous_withdrawn)
    returning s.product_id, d.queue`.execute(db);
  return rows
    .filter((row) => row.queue)
    .map((row) => row.product_id)
    .sort();
}

/** Creates the product's summary row when missing (so it can be locked); the product must exist. */
export async function ensureSummaryRow(
  db: Kysely<DB>,
  organizationId: string,
  productId: string,
  now: Date,
): Promise<void> {
  await sql`
    insert into review_summaries (organization_id, product_id, created_at, updated_at)
    values (${organizationId}::uuid, ${productId}::uuid, ${now}::timestamptz, ${now}::timestamptz)
    on conflict (organization_id, product_id) do nothing`.execute(db);
}

/**
 * Marks a regeneration asked for by hand pending; it counts against the daily allowance
 * (docs/api.md#regenerating-a-summary).
 */
export async function markManualRegeneration(
  db: Kysely<DB>,
  organizationId: string,
  productId: string,
  now: Date,
): Promise<void> {
  await sql`
    update review_summaries
    set pending_since = ${now}::timestamptz, pending_reason = 'manual', regenerate_requested_at = ${now}::timestamptz, updated_at = ${now}::timestamptz
    where organization_id = ${organizationId}::uuid and product_id = ${productId}::uuid`.execute(db);
}

/**
 * The overnight refresh: marks pending every shown summary of the organization whose summarizable reviews changed
 * since it was generated (and failed first generations), and returns their products.
 */
export async function markStaleForRefresh(db: Kysely<DB>, organizationId: string, now: Date): Promise<string[]> {
  // Rows are locked in key order first, the order review changes lock them in (lockSummaries), so the two never deadlock.
  const { rows } = await sql<{ product_id: string }>`
    with stale as (
      select product_id from review_summaries
      where organization_id = ${organizationId}::uuid
        and suppressed_at is null and reviews_fingerprint is distinct from summary_fingerprint
        and (pending_since is null or pending_since <= ${new Date(now.getTime() - PENDING_EXPIRES_MS)}::timestamptz)
      order by product_id
      for update
    )
    update review_summaries s
    set pending_since = ${now}::timestamptz, pending_reason = 'refresh', updated_at = ${now}::timestamptz
    from stale
    where s.organization_id = ${organizationId}::uuid and s.product_id = stale.product_id
    returning s.product_id`.execute(db);
  return rows.map((row) => row.product_id).sort();
}

export interface PendingRow {
  pending_since: Date | null;
  pending_reason: PendingReason | null;
  threshold: number;
  /** The current summary draws on a review that is no longer readable (whatever the pending reason). */
  quotes_withdrawn: boolean;
}

export async function findPending(
  db: Kysely<DB>,
  organizationId: string,
  productId: string,
): Promise<PendingRow | undefined> {
  const { rows } = await sql<PendingRow>`
    select s.pending_since, s.pending_reason, o.review_summary_min_reviews as threshold, ${CURRENT_WITHDRAWN} as quotes_withdrawn
    from review_summaries s join organizations o on o.id = s.organization_id
    where s.organization_id = ${organizationId}::uuid and s.product_id = ${productId}::uuid`.execute(db);
  return rows[0];
}

export interface SummarizableReviewRow {
  id: string;
  rating: number;
  title: string;
  body: string;
  language: string | null;
  created_at: Date;
  fingerprint: string;
}

/** The product's summarizable reviews, oldest first, each carrying the fingerprint of the whole set (one snapshot). */
export async function summarizableReviews(
  db: Kysely<DB>,
  organizationId: string,
  productId: string,
): Promise<{ reviews: SummarizableReviewRow[]; fingerprint: string }> {
  const { rows } = await sql<SummarizableReviewRow>`
    with input as (
      select r.id, r.rating, r.title, r.body, r.language, r.created_at from reviews r
      where ${summarizable(organizationId)} and r.product_id = ${productId}::uuid
    ), digest as (select ${FINGERPRINT} as fingerprint from input r)
    select input.*, digest.fingerprint from digest left join input on true
    order by input.created_at, input.id`.execute(db);
  const fingerprint = rows[0]?.fingerprint ?? '';
  return { reviews: rows.filter((row) => row.id !== null), fingerprint };
}

/** `gone`: the row was deleted (with its product); `stale`: a source review was withdrawn while generating. */
export type WriteOutcome = 'written' | 'gone' | 'stale';

/**
 * Writes a generated summary with its source reviews: it goes live at once and the one it replaces becomes
 * `previous` (a first generation has none to keep), unless the replaced one quotes a withdrawn review (then
 * `previous` is null: a revert must not bring those words back). Suppression is untouched. Refused (`stale`) when
 * one of the new sources was withdrawn since the reviews were read: the caller generates again.
 */
export async function writeGenerated(
  db: Kysely<DB>,
  organizationId: string,
  productId: string,
  {
    version,
    sourceReviewIds,
    fingerprint,
    now,
  }: { version: ReviewSummaryVersion; sourceReviewIds: readonly string[]; fingerprint: string; now: Date },
): Promise<WriteOutcome> {
  return db.transaction().execute(async (trx) => {
    // Locked in a statement of its own: the next one sees every review change whose transaction held the row
    // (publishedReviewsChanged locks it before its change commits), so no withdrawal slips between check and write.
    await lockSummaries(trx, organizationId, [productId]);
    const sources = sql`${[...sourceReviewIds]}::uuid[]`;
    const { rows } = await sql<{ stale: boolean; replaced_withdrawn: boolean }>`
      select ${quotesWithdrawn(sources)} as stale, ${CURRENT_WITHDRAWN} as replaced_withdrawn
      from review_summaries s where s.organization_id = ${organizationId}::uuid and s.product_id = ${productId}::uuid`.execute(
      trx,
    );
    const state = rows[0];
    if (!state) return 'gone';
    if (state.stale) return 'stale';
    const keep = !state.replaced_withdrawn;
    await sql`
      update review_summaries
      set previous = ${keep ? sql`current` : sql`null`}, previous_source_ids = ${keep ? sql`current_source_ids` : sql`null`},
        current = ${JSON.stringify(version)}::jsonb, current_source_ids = ${sources}, summary_fingerprint = ${fingerprint},
        pending_since = null, pending_reason = null, updated_at = ${now}::timestamptz
      where organization_id = ${organizationId}::uuid and product_id = ${productId}::uuid`.execute(trx);
    return 'written';
  });
}

/**
 * Removes the current summary (and `previous`) when it quotes a withdrawn review and no clean one can replace it
 * now: no readable review is left, or its regeneration failed. GET then answers null as before a first summary.
 * `fingerprint` is what the summary counts as having seen: the reviews' digest when there is nothing to summarize,
 * null after a failure (so the next review change or the overnight refresh tries again). False when the summary
 * quotes no withdrawn review (or is gone).
 */
export async function removeWithdrawnSummary(
  db: Kysely<DB>,
  organizationId: string,
  productId: string,
  { fingerprint, now }: { fingerprint: string | null; now: Date },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await lockSummaries(trx, organizationId, [productId]);
    const result = await sql`
      update review_summaries s
      set current = null, current_source_ids = null, previous = null, previous_source_ids = null,
        summary_fingerprint = ${fingerprint}, updated_at = ${now}::timestamptz
      where s.organization_id = ${organizationId}::uuid and s.product_id = ${productId}::uuid and s.current is not null and ${CURRENT_WITHDRAWN}`.execute(
      trx,
    );
    return Number(result.numAffectedRows ?? 0) > 0;
  });
}

/**
 * Ends a pending generation without a new summary. A regeneration asked for by hand that did not happen gives the
 * daily allowance back (it counts regenerations, not attempts: docs/api.md#regenerating-a-summary).
 */
export async function clearPending(
  db: Kysely<DB>,
  organizationId: string,
  productId: string,
  now: Date,
): Promise<void> {
  await sql`
    update review_summaries
    set regenerate_requested_at = case when pending_reason = 'manual' then null else regenerate_requested_at end,
      pending_since = null, pending_reason = null, updated_at = ${now}::timestamptz
    where organization_id = ${organizationId}::uuid and product_id = ${productId}::uuid`.execute(db);
}
