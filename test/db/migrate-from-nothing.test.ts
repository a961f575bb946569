/**
 * Every migration applies to an empty database, on the engine under test: the other tests start from a copy of a
 * database migrated once per run (test/support/global-setup.ts), so this is where migrating from nothing is proven
 * (and through the CLI, by `serve`'s first start in test/cli/serve.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase, type Database } from '../../src/db/engine.js';
import { migrationProvider } from '../../src/db/migrations/index.js';
import { adminQuery, postgresUrl, withDatabaseName } from '../support/database.js';

describe('migrating an empty database', () => {
  const name = `patron_empty_${randomBytes(6).toString('hex')}`;
  let database: Database | undefined;

  afterAll(async () => {
    await database?.close();
    if (postgresUrl) await adminQuery(`drop database if exists ${name} with (force)`);
  });

  it('applies every listed migration once, then finds the schema up to date', async () => {
    if (postgresUrl) await adminQuery(`create database ${name}`);
    database = postgresUrl
      ? await openDatabase({ databaseUrl: withDatabaseName(postgresUrl, name), dataDir: 'memory://' })
      : await openDatabase({ dataDir: 'memory://' });
    const listed = Object.keys(await migrationProvider.getMigrations());

    const applied = await migrateToLatest(database.db);
    expect([...applied].sort()).toEqual([...listed].sort());
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(database.db);
    expect(rows.map((row) => row.name).sort()).toEqual([...listed].sort());

    expect(await migrateToLatest(database.db)).toEqual([]);
  });
});
