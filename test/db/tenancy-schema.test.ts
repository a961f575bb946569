import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

/** Tables that are not owned by one organization. Adding one here is an architecture decision, not a fix. */
// server_processes: the API processes alive, each serving every organization.
// sign_in_failures: failed sign-ins by email, known or not, so that throttling says nothing about which emails exist.
// password_reset_requests: "forgot password" requests by email and address, known or not, for the same reason.
const GLOBAL_TABLES = new Set([
  'organizations',
  'server_processes',
  'sign_in_failures',
  'password_reset_requests',
  'kysely_migration',
  'kysely_migration_lock',
]);
/**
 * Unique indexes of tenant tables that span organizations. Each is an architecture decision, not a fix.
 * users.users_email_key: signing in names no organization, so an email names one user across the deployment.
 */
const DEPLOYMENT_UNIQUE_INDEXES = new Set(['users.users_email_key']);
/**
 * Foreign keys that do not lead with organization_id. Each is an architecture decision, not a fix.
 * organizations.organizations_live_organization_id_fkey: a test twin is an organization of its own, which names the
 * live organization it belongs to (docs/api.md#test-mode); organizations is no tenant table.
 */
const CROSS_ORGANIZATION_FOREIGN_KEYS = new Set(['organizations.organizations_live_organization_id_fkey']);

let test: TestDatabase;
beforeAll(async () => {
  test = await createTestDatabase();
});
afterAll(() => test.drop());

describe('tenancy is structural (every migration is held to it)', () => {
  it('gives every table but the global ones an organization_id leading its primary key and unique indexes', async () => {
    const { rows } = await sql<{ table: string; index: string; primary: boolean; first: string | null }>`
      select c.relname as table, ic.relname as index, i.indisprimary as primary,
             (select attname from pg_attribute where attrelid = c.oid and attnum = i.indkey[0]) as first
      from pg_index i
      join pg_class c on c.oid = i.indrelid
      join pg_class ic on ic.oid = i.indexrelid
      join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind in ('r', 'p') and (i.indisunique or i.indisprimary)`.execute(
      test.database.db,
    );
    const { rows: tables } = await sql<{ table: string }>`
      select table_name as table from information_schema.tables
      where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(test.database.db);

    const tenantTables = tables.map((t) => t.table).filter((name) => !GLOBAL_TABLES.has(name));
    expect(tenantTables.length).toBeGreaterThan(0);
    for (const table of tenantTables) {
      const primary = rows.find((row) => row.table === table && row.primary);
      expect(primary?.first, `${table} primary key`).toBe('organization_id');
    }
    const offenders = rows
      .filter((row) => !GLOBAL_TABLES.has(row.table) && row.first !== 'organization_id')
      .filter((row) => !DEPLOYMENT_UNIQUE_INDEXES.has(`${row.table}.${row.index}`))
      .map((row) => `${row.table}.${row.index}`);
    expect(offenders).toEqual([]);
  });

  it('leads every foreign key between tenant tables with organization_id', async () => {
    const { rows } = await sql<{ name: string; table: string; first: string }>`
      select con.conname as name, c.relname as table,
             (select attname from pg_attribute where attrelid = c.oid and attnum = con.conkey[1]) as first
      from pg_constraint con
      join pg_class c on c.oid = con.conrelid
      join pg_namespace n on n.oid = c.relnamespace
      where con.contype = 'f' and n.nspname = current_schema()`.execute(test.database.db);
    expect(rows.length).toBeGreaterThan(0);
    expect(
      rows
        .filter((row) => row.first !== 'organization_id')
        .map((row) => `${row.table}.${row.name}`)
        .filter((name) => !CROSS_ORGANIZATION_FOREIGN_KEYS.has(name)),
    ).toEqual([]);
  });
});
