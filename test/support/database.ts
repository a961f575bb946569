import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { migrateToLatest, openDatabase, type Database } from '../../src/db/engine.js';

export interface TestDatabase {
  database: Database;
  /** postgres:// URL of this test's own database, when running on PostgreSQL. */
  url: string | undefined;
  drop(): Promise<void>;
}

/** The PostgreSQL server under test, when DATABASE_URL is set; otherwise tests run on embedded PGlite. */
export const postgresUrl = process.env.DATABASE_URL || undefined;
export const redisUrl = process.env.REDIS_URL || undefined;

/**
 * The database test/support/global-setup.ts migrated once for the run: an embedded data dir and its dump, or a
 * PostgreSQL template database. Undefined in a run without that setup (the hardening and browser suites), where each
 * test migrates its own.
 */
export type MigratedDatabase =
  | {
      engine: 'pglite';
      /** a migrated data dir, to copy */ dataDir: string;
      /** its dumpDataDir tarball */ dump: string;
    }
  | { engine: 'postgres'; /** a migrated database nobody connects to */ template: string };

function migratedDatabase(): MigratedDatabase | undefined {
  return inject('migratedDatabase');
}

export function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** Read once per test process: each in-memory database of the process starts from it. */
let migratedDump: Promise<Blob> | undefined;

/** A fresh, migrated database of its own: PGlite in memory, or a new database on the PostgreSQL server. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const migrated = migratedDatabase();
  if (!postgresUrl) {
    if (migrated?.engine === 'pglite') {
      migratedDump ??= readFile(migrated.dump).then((bytes) => new Blob([bytes]));
      const database = await openDatabase({ dataDir: 'memory://', loadDataDir: await migratedDump });
      return { database, url: undefined, drop: () => database.close() };
    }
    const database = await openDatabase({ dataDir: 'memory://' });
    await migrateToLatest(database.db);
    return { database, url: undefined, drop: () => database.close() };
  }
  const name = `patron_test_${randomBytes(6).toString('hex')}`;
  const template = migrated?.engine === 'postgres' ? migrated.template : undefined;
  await adminQuery(template ? `create database ${name} template ${template}` : `create database ${name}`);
  const url = withDatabaseName(postgresUrl, name);
  const database = await openDatabase({ databaseUrl: url, dataDir: 'memory://' });
  if (!template) await migrateToLatest(database.db);
  return {
    database,
    url,
    drop: async () => {
      await database.close();
      await adminQuery(`drop database if exists ${name} with (force)`);
    },
  };
}

/**
 * A new temporary directory for a CLI child's PATRON_DATA_DIR, holding an already migrated embedded database when
 * the run migrated one (else empty: the child's first command migrates it).
 */
export async function migratedDataDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const migrated = migratedDatabase();
  if (migrated?.engine === 'pglite')
    await cp(join(migrated.dataDir, 'pgdata'), join(dir, 'pgdata'), { recursive: true });
  return dir;
}

export async function adminQuery(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
