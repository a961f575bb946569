import { sql, type Kysely } from 'kysely';

/**
 * Which reviews a summary's words come from (docs/api.md#withdrawn-reviews): `current_source_ids` for `current`,
 * `previous_source_ids` for `previous`. A review that leaves what summaries read (unpublished, flagged, deleted,
 * moved to another product) while the summary draws on it has the summary regenerated at once, with the new
 * pending reason `withdrawn`, instead of at the overnight refresh.
 *
 * Summaries written before this migration did not record their sources, so they get a superset: every review
 * linked to the product that the summary could have read (its readable reviews when nothing changed since it was
 * generated, else all of them, and all of them for `previous`). A superset only ever regenerates (or drops
 * `previous`) more often than needed, never less.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`alter table review_summaries add column current_source_ids uuid[], add column previous_source_ids uuid[]`,
    sql`alter table review_summaries drop constraint review_summaries_pending_reason_check,
      add constraint review_summaries_pending_reason_check check (pending_reason in ('threshold', 'manual', 'refresh', 'withdrawn'))`,
    sql`update review_summaries s set
      current_source_ids = case when s.current is null then null else coalesce((
        select array_agg(r.id order by r.id) from reviews r
        where r.organization_id = s.organization_id and r.product_id = s.product_id
          and ((r.published and not r.flagged) or s.reviews_fingerprint is distinct from s.summary_fingerprint)), '{}') end,
      previous_source_ids = case when s.previous is null then null else coalesce((
        select array_agg(r.id order by r.id) from reviews r
        where r.organization_id = s.organization_id and r.product_id = s.product_id), '{}') end
      where s.current is not null or s.previous is not null`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`update review_summaries set pending_reason = 'refresh' where pending_reason = 'withdrawn'`,
    sql`alter table review_summaries drop constraint review_summaries_pending_reason_check,
      add constraint review_summaries_pending_reason_check check (pending_reason in ('threshold', 'manual', 'refresh'))`,
    sql`alter table review_summaries drop column if exists current_source_ids, drop column if exists previous_source_ids`,
  ];
  for (const statement of statements) await statement.execute(db);
}
