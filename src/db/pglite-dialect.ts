import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { EmbeddedAnalyzer } from './embedded-analyze.js';
import { isPlainRead, type EmbeddedReadCache } from './embedded-cache.js';

/** What the embedded engine keeps beside the data, told about every statement the connection runs. */
export interface EmbeddedObservers {
  cache?: EmbeddedReadCache;
  analyzer?: EmbeddedAnalyzer;
}

/**
 * Kysely over PGlite. PGlite is a single Postgres backend, so the driver hands out its one connection to one
 * caller at a time: a transaction holds it until commit, and statements from other requests queue behind it
 * instead of interleaving into the open transaction.
 */
export class PGliteDialect implements Dialect {
  readonly driver: PGliteDriver;
  constructor(pglite: PGlite, observers: EmbeddedObservers = {}) {
    this.driver = new PGliteDriver(pglite, observers);
  }
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return this.driver;
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
}

export class PGliteDriver implements Driver {
  private readonly connection: PGliteConnection;
  private queue: Promise<void> = Promise.resolve();
  private waiting = 0;

  constructor(pglite: PGlite, observers: EmbeddedObservers = {}) {
    this.connection = new PGliteConnection(pglite, observers);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    this.waiting++;
    let release!: () => void;
    const previous = this.queue;
    this.queue = new Promise<void>((resolve) => (release = resolve));
    await previous;
    this.waiting--;
    this.connection.release = release;
    return this.connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const isolation = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    await connection.executeQuery(CompiledQuery.raw(`begin${isolation}`));
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }
  async releaseConnection(): Promise<void> {
    this.connection.endOfUse();
    this.connection.release();
  }
  async destroy(): Promise<void> {}

  /** Callers queued for the single connection, for the pool gauges. */
  get waitingCount(): number {
    return this.waiting;
  }
}

class PGliteConnection implements DatabaseConnection {
  release: () => void = () => {};
  /** Whether a statement since the connection was acquired may have changed a cached table. */
  private changedCachedTable = false;
  private readonly cache: EmbeddedReadCache | undefined;
  private readonly analyzer: EmbeddedAnalyzer | undefined;
  constructor(
    private readonly pglite: PGlite,
    observers: EmbeddedObservers,
  ) {
    this.cache = observers.cache;
    this.analyzer = observers.analyzer;
  }

  /**
   * Every statement passes here, so the cache sees every change (src/db/embedded-cache.ts): it is emptied before a
   * change runs, and again when the connection is handed back (after the commit or rollback of a transaction).
   */
  endOfUse(): void {
    if (!this.changedCachedTable) return;
    this.changedCachedTable = false;
    this.cache?.invalidate();
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    if (this.cache?.observeStatement(compiledQuery.sql)) this.changedCachedTable = true;
    const result = await this.pglite.query<R>(compiledQuery.sql, [...compiledQuery.parameters]);
    if (this.analyzer && result.affectedRows && !isPlainRead(compiledQuery.sql)) {
      this.analyzer.rowsChanged(result.affectedRows);
    }
    return {
      rows: result.rows,
      ...(result.affectedRows !== undefined ? { numAffectedRows: BigInt(result.affectedRows) } : {}),
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Streaming is not supported on the embedded database');
  }
}
