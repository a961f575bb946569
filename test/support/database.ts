import { randomBytes } from 'node:crypto';
import pg from 'pg';
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

function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** A fresh, migrated database of its own: PGlite in memory, or a new database on the PostgreSQL server. */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (!postgresUrl) {
    const database = await openDatabase({ dataDir: 'memory://' });
    await migrateToLatest(database.db);
    return { database, url: undefined, drop: () => database.close() };
  }
  const name = `patron_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database ${name}`);
  const url = withDatabaseName(postgresUrl, name);
  const database = await openDatabase({ databaseUrl: url, dataDir: 'memory://' });
  await migrateToLatest(database.db);
  return {
    database,
    url,
    drop: async () => {
      await database.close();
      await adminQuery(`drop database if exists ${name} with (force)`);
    },
  };
}

async function adminQuery(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
