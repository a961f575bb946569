import { sql, type Kysely } from 'kysely';

/**
 * Dashboard accounts: users, their sessions, one-time sign-in links and the failed sign-ins that throttle an email
 * (docs/api.md#dashboard-sessions).
 *
 * - Users, sessions and links are tenant tables, keyed by organization. Two lookups cannot know the organization
 *   before they find the row, so they get indexes that do not lead with it: a user by email (sign-in names no
 *   organization, so an email is unique across the deployment, compared case-insensitively) and a session or a link
 *   by the hash of its token (like api_keys_key_hash_idx, not unique: 256-bit hashes do not collide).
 * - Only SHA-256 hashes of session and link tokens are stored, so a copy of the database signs nobody in.
 * - Failed sign-ins are counted per email whether or not a user has it (so a 429 tells nothing about which emails
 *   exist): that table belongs to no organization. Rows older than the throttling window are deleted as new ones are
 *   written; deleting an organization deletes its users' rows too (src/db/organization-delete.ts).
 */
const STATEMENTS = [
  sql`create table users (
    organization_id uuid not null references organizations (id) on delete cascade,
    id uuid not null,
    email text not null,
    name text,
    role text not null check (role in ('owner', 'admin', 'viewer')),
    password_hash text,
    created_at timestamptz not null default now(),
    last_signed_in_at timestamptz,
    primary key (organization_id, id))`,
  sql`create unique index users_email_key on users (lower(email))`,
  sql`create table sessions (
    organization_id uuid not null,
    id uuid not null,
    user_id uuid not null,
    token_hash text not null,
    csrf_token text not null,
    created_at timestamptz not null default now(),
    last_used_at timestamptz not null default now(),
    expires_at timestamptz not null,
    primary key (organization_id, id),
    foreign key (organization_id, user_id) references users (organization_id, id) on delete cascade)`,
  sql`create index sessions_token_hash_idx on sessions (token_hash)`,
  sql`create index sessions_user_idx on sessions (organization_id, user_id)`,
  sql`create table sign_in_links (
    organization_id uuid not null,
    id uuid not null,
    user_id uuid not null,
    token_hash text not null,
    created_at timestamptz not null default now(),
    expires_at timestamptz not null,
    used_at timestamptz,
    primary key (organization_id, id),
    foreign key (organization_id, user_id) references users (organization_id, id) on delete cascade)`,
  sql`create index sign_in_links_token_hash_idx on sign_in_links (token_hash)`,
  sql`create index sign_in_links_user_idx on sign_in_links (organization_id, user_id)`,
  sql`create table sign_in_failures (
    email text not null,
    id uuid not null,
    failed_at timestamptz not null default now(),
    primary key (email, id))`,
  sql`create index sign_in_failures_failed_at_idx on sign_in_failures (failed_at)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of STATEMENTS) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['sign_in_failures', 'sign_in_links', 'sessions', 'users']) {
    await sql`drop table ${sql.id(table)}`.execute(db);
  }
}
