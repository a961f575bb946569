import { sql, type Kysely } from 'kysely';

/*
 * "Forgot password" (docs/api.md#forgotten-passwords):
 * - password_reset_requests: one row per request of POST /v1/session/password-reset, known email or not, by normalised
 *   email and client address, so that the per-email and per-address limits hold in every process. Global, like
 *   sign_in_failures: a request names no organization until its email is looked up.
 * - sign_in_links.for_password_reset: the link was mailed by "forgot password".
 * - sessions.password_reset_until: a session signed in with such a link (or with any link, by a user who has no
 *   password) may set a new password without the current one until then (an hour after the sign-in), once.
 * - mail.kind takes passwordReset.
 */

const KINDS = ['surveyRequest', 'rewardIssued', 'rewardExpiringSoon', 'pointsExpiringSoon', 'reviewReplied'];

const kindCheck = (kinds: readonly string[]) =>
  sql`alter table mail add constraint mail_kind_check check (kind in (${sql.join(kinds.map((kind) => sql.lit(kind)))})) not valid`;

export async function up(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`create table password_reset_requests (
      email text not null,
      id uuid not null,
      ip text not null,
      requested_at timestamptz not null default now(),
      primary key (email, id))`,
    sql`create index password_reset_requests_ip_idx on password_reset_requests (ip, requested_at)`,
    sql`create index password_reset_requests_requested_at_idx on password_reset_requests (requested_at)`,
    sql`alter table sign_in_links add column for_password_reset boolean not null default false`,
    sql`alter table sessions add column password_reset_until timestamptz`,
    sql`alter table mail drop constraint mail_kind_check`,
    kindCheck([...KINDS, 'passwordReset']),
    sql`alter table mail validate constraint mail_kind_check`,
  ];
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const statements = [
    sql`delete from mail where kind = 'passwordReset'`,
    sql`alter table mail drop constraint mail_kind_check`,
    kindCheck(KINDS),
    sql`alter table mail validate constraint mail_kind_check`,
    sql`alter table sessions drop column password_reset_until`,
    sql`alter table sign_in_links drop column for_password_reset`,
    sql`drop table password_reset_requests`,
  ];
  for (const statement of statements) await statement.execute(db);
}
