import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import { prepareMarkedStatements, runPreparedOnPool } from './prepared.js';
import { parseTimestamptz, TIMESTAMPTZ_OID } from './timestamps.js';
import pg from 'pg';
import { AuditingDialect } from './audit.js';
import { EmbeddedAnalyzer } from './embedded-analyze.js';
import { attachEmbeddedCache, EmbeddedReadCache } from './embedded-cache.js';
import { migrationNames, migrationProvider } from './migrations/index.js';
import { PGliteDialect } from './pglite-dialect.js';
import { RetryingKysely } from './retry.js';
import type { DB } from './schema.js';

export type Engine = 'pglite' | 'postgres';

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

export interface Database {
  readonly engine: Engine;
  readonly db: Kysely<DB>;
  /** Throws when the database cannot answer. */
  ping(): Promise<void>;
  poolStats(): PoolStats;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres://… selects PostgreSQL; otherwise the embedded engine is used. */
  databaseUrl?: string | undefined;
  /** Where the embedded engine keeps its files; `memory://` keeps nothing. */
  dataDir: string;
  poolSize?: number;
  /** Embedded only: starts from this dump of a data dir (PGlite's dumpDataDir) instead of an empty one. */
  loadDataDir?: Blob;
}

// bigint columns (money up to 2^53-1, counts) come back as numbers, not strings, on both engines.
const INT8_OID = 20;
const parseInt8 = (value: string) => Number(value);

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, options.poolSize)
    : openPGlite(options.dataDir, options.loadDataDir);
}

async function openPostgres(connectionString: string, poolSize = 10): Promise<Database> {
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    connectionTimeoutMillis: 5_000,
    // No JIT: a list page that walks its index and probes a related table row by row (src/lists/related.ts) is costed
    // for every row it might walk, above jit_above_cost, and then spends longer compiling than running a query that
    // stops after a few hundred rows (finding 1.2 in
    // docs/journal/2026-11-21-store-data.md). Patron's queries are short
    // OLTP pages, where JIT never pays.
    options: '-c jit=off',
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID
          ? parseInt8
          : // timestamptz: a fast path for the UTC text every session of a UTC server writes (src/db/timestamps.ts).
            oid === TIMESTAMPTZ_OID && format !== 'binary'
            ? parseTimestamptz
            : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client losing its server must not crash the process; the next query reports the outage.
  pool.on('error', () => {});
  // pg-pool listens for a client's errors only while it is idle, yet pg also emits a lost connection as an 'error'
  // event on a client that is checked out (in a transaction, or between two queries): without a listener that
  // event kills the process. The query in flight fails with the error anyway, later ones fail as "not queryable",
  // and the pool discards the client when it is released.
  pool.on('connect', (client) => {
    client.on('error', () => {});
    prepareMarkedStatements(client);
  });
  // Every transaction's COMMIT carries the pending audit entry (src/db/audit.ts).
  const db = new RetryingKysely<DB>({ dialect: new AuditingDialect(new PostgresDialect({ pool })) });
  runPreparedOnPool(db, pool);
  return {
    engine: 'postgres',
    db,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => db.destroy(),
  };
}

async function openPGlite(dataDir: string, loadDataDir?: Blob): Promise<Database> {
  const inMemory = dataDir.startsWith('memory://');
  const location = inMemory ? dataDir : join(resolve(dataDir), 'pgdata');
  if (!inMemory) await mkdir(location, { recursive: true });
  const pglite = await PGlite.create(location, {
    parsers: { [INT8_OID]: parseInt8 },
    extensions: { pg_trgm, btree_gin },
    ...(loadDataDir ? { loadDataDir } : {}),
  });
  // The data is this process's alone (src/db/embedded-lock.ts), so keys and organizations can be cached exactly.
  const cache = new EmbeddedReadCache();
  // PGlite runs no autovacuum: this keeps the planner's statistics fresh instead (src/db/embedded-analyze.ts).
  const analyzer = new EmbeddedAnalyzer(async () => {
    await sql`analyze`.execute(db);
  });
  const dialect = new PGliteDialect(pglite, { cache, analyzer });
  const db = new Kysely<DB>({ dialect: new AuditingDialect(dialect) });
  attachEmbeddedCache(db, cache);
  return {
    engine: 'pglite',
    db,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    poolStats: () => {
      const waiting = dialect.driver.waitingCount;
      return { total: 1, idle: waiting === 0 ? 1 : 0, waiting };
    },
    close: async () => {
      await analyzer.close();
      await db.destroy();
      await pglite.close();
    },
  };
}

/** Brings the schema up to date; safe to run from several processes at once on PostgreSQL (Kysely takes a lock). */
export async function migrateToLatest(db: Kysely<DB>): Promise<string[]> {
  // Every start of a command runs this: on an up-to-date schema, two small reads answer instead of the Migrator's
  // catalog introspection and lock (a noticeable share of a CLI command's time on the embedded engine).
  if (await isUpToDate(db)) return [];
  // Migrations written in parallel can land out of name order (0007 after 0009 was applied somewhere); each one is
  // self-contained, so a missing earlier one is applied late instead of refusing to start.
  const migrator = new Migrator({ db, provider: migrationProvider, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

/** Whether exactly the listed migrations have been applied (anything else goes through the Migrator and its checks). */
async function isUpToDate(db: Kysely<DB>): Promise<boolean> {
  const table = await sql<{ exists: boolean }>`select to_regclass('kysely_migration') is not null as exists`.execute(
    db,
  );
  if (!table.rows[0]?.exists) return false;
  const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
  // The folder's file names only: importing every migration is the Migrator's work, when one is missing.
  const listed = await migrationNames();
  const appliedNames = new Set(applied.rows.map((row) => row.name));
  return appliedNames.size === listed.length && listed.every((name) => appliedNames.has(name));
}
