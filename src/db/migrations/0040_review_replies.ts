import { sql, type Kysely } from 'kysely';

/**
 * Review replies (docs/api.md#review-replies): the merchant's one public answer to a review, and the mail kind that
 * tells the reviewer about it.
 *
 * - The reply lives on the review's own row rather than in a table of its own: a review has at most one, and every
 *   read of a review (GET, the list, exports, the events of every review write, the rows imports and cascades
 *   return) selects the review's columns already, so each carries its reply without a join or a second query. The
 *   columns are nullable and without defaults, so adding them rewrites nothing.
 * - A reply is whole or absent (one check), and its author is a key or a dashboard user, named as the audit log names
 *   them (type, id, label).
 * - The checks are added NOT VALID and validated afterwards: validation reads the table without blocking writes.
 * - mail.kind takes reviewReplied.
 */
const REPLY_COLUMNS = [
  'reply_body',
  'reply_created_at',
  'reply_updated_at',
  'reply_author_type',
  'reply_author_id',
  'reply_author_label',
];
const KINDS = ['surveyRequest', 'rewardIssued', 'rewardExpiringSoon', 'pointsExpiringSoon'];

const kindCheck = (kinds: readonly string[]) =>
  sql`alter table mail add constraint mail_kind_check check (kind in (${sql.join(kinds.map((kind) => sql.lit(kind)))})) not valid`;

export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`alter table reviews
      add column reply_body text,
      add column reply_created_at timestamptz,
      add column reply_updated_at timestamptz,
      add column reply_author_type text,
      add column reply_author_id text,
      add column reply_author_label text`,
    sql`alter table reviews add constraint reviews_reply_whole check (
      num_nulls(${sql.join(REPLY_COLUMNS.map((column) => sql.ref(column)))}) in (0, ${sql.lit(REPLY_COLUMNS.length)})) not valid`,
    sql`alter table reviews add constraint reviews_reply_author_type_check
      check (reply_author_type in ('apiKey', 'user')) not valid`,
    sql`alter table reviews validate constraint reviews_reply_whole`,
    sql`alter table reviews validate constraint reviews_reply_author_type_check`,
    sql`alter table mail drop constraint mail_kind_check`,
    kindCheck([...KINDS, 'reviewReplied']),
    sql`alter table mail validate constraint mail_kind_check`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`delete from mail where kind = 'reviewReplied'`,
    sql`alter table mail drop constraint mail_kind_check`,
    kindCheck(KINDS),
    sql`alter table mail validate constraint mail_kind_check`,
    sql`alter table reviews drop constraint reviews_reply_author_type_check`,
    sql`alter table reviews drop constraint reviews_reply_whole`,
    sql`alter table reviews ${sql.join(
      REPLY_COLUMNS.map((column) => sql`drop column ${sql.ref(column)}`),
      sql`, `,
    )}`,
  ];
  for (const statement of statements) await statement.execute(db);
}
