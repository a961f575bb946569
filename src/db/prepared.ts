import { createHash } from 'node:crypto';
import { sql, type Compilable, type CompiledQuery, type Kysely, type RawBuilder } from 'kysely';
import { plainArrayLiteral } from './arrays.js';
import { isStalePreparedStatement } from './errors.js';
import pg from 'pg';
import type { DB } from './schema.js';

/*
 * Server-side prepared statements for the statements hot paths run per request. PostgreSQL plans an unnamed statement
 * on every execution, and for a join over tables with many indexes planning costs several times the execution, as
 * loading a loyalty member (three tables) and the API key lookup showed
 * (docs/journal/2026-11-21-loyalty-issue-rate-import-prepared.md). A
 * statement whose text begins with the marker is sent named after its text, so each connection parses it once and,
 * after its first executions, PostgreSQL may keep one generic plan for it (plan_cache_mode auto: it does so only when
 * the generic plan costs no more than the plans made for the actual parameters). List pages mark their statements
 * too, and their text varies with the filter's shape, so each connection keeps at most STATEMENTS_PER_CONNECTION of
 * them, the least recently used deallocated first. PGlite ignores the marker (a comment).
 */
const PREPARE_MARKER = '/* prepared */ ';

/** Put first in a sql`` template to have the statement prepared once per connection (see above). */
export const PREPARE = sql.raw(PREPARE_MARKER);

/**
 * Named statements one connection keeps. The fixed statements number a few dozen; the rest is room for the filter
 * shapes in use (a statement plan takes some kilobytes of the backend's memory, so 256 cost a few MB per connection).
 */
export const STATEMENTS_PER_CONNECTION = 256;

const statementNames = new Map<string, string>();
const statementName = (text: string) => {
  let name = statementNames.get(text);
  if (!name) {
    name = `patron_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    // The name cache is process-wide; the statements a long-lived process has seen are bounded the same way.
    if (statementNames.size >= STATEMENTS_PER_CONNECTION * 16) statementNames.clear();
    statementNames.set(text, name);
  }
  return name;
};

/** The pg connection's record of the statements it has parsed (pg skips the Parse of a name it holds). */
interface PgConnection {
  parsedStatements?: Record<string, string>;
  on?: (event: 'readyForQuery', listener: (message: { status?: string }) => void) => unknown;
  describe?: (message: unknown) => void;
  /** Set by a NamedStatement while it sends a run whose row shape it already knows (below). */
  describeSkipped?: boolean;
}

/** What pg makes of a RowDescription: the fields, a parser per field and the empty row each row is copied from. */
interface RowShape {
  fields: unknown;
  parsers: unknown;
  emptyRow: unknown;
}

/** The pg internals a NamedStatement reads and writes (pg 8: lib/query.js and lib/result.js). */
interface PgQueryInternals {
  name?: string;
  callback?: (error: Error | null, result: unknown) => void;
  _result: { fields: unknown; _parsers: unknown; _prebuiltEmptyResultObject: unknown };
  _accumulateRows: unknown;
  hasBeenParsed(connection: PgConnection): boolean;
}

/**
 * A run of a named statement. pg asks the server to describe the result of every run (a Describe message, answered
 * by a RowDescription that pg parses and turns into a parser per column, about 5 KB of garbage and 3 µs of Node CPU
 * a statement in a profile of GET /v1/organization), although a prepared statement's rows keep the shape they had at
 * its first run. So the first run on a connection keeps the shape pg made, and later runs skip the Describe and
 * start from that shape. A statement whose result type changed (a migration while serving) is refused by the server
 * as stale and prepared again, shape and all (see `deallocate` below).
 */
class NamedStatement extends pg.Query {
  constructor(
    text: string,
    values: unknown[],
    private readonly statementName: string,
    /**
     * The row shape each named statement has had on this connection, kept by its first run and read by later ones;
     * undefined where the connection cannot skip a Describe.
     */
    private readonly shapes: Map<string, RowShape> | undefined,
    callback: (error: Error | null, result: unknown) => void,
  ) {
    super(text, values);
    // Fields pg's typings leave out but pg reads when it sends the query and when it ends; should an upgrade stop
    // reading the name, the test of pg_prepared_statements fails (test/db/prepared-statements).
    const internals = this as unknown as PgQueryInternals;
    internals.name = statementName;
    internals.callback = callback;
  }

  prepare(connection: PgConnection): void {
    const internals = this as unknown as PgQueryInternals;
    const superPrepare = (pg.Query.prototype as unknown as { prepare(connection: PgConnection): void }).prepare;
    const shape = this.shapes?.get(this.statementName);
    if (shape === undefined || !internals.hasBeenParsed(connection)) {
      superPrepare.call(this, connection);
      return;
    }
    connection.describeSkipped = true;
    try {
      superPrepare.call(this, connection);
    } finally {
      connection.describeSkipped = false;
    }
    const result = internals._result;
    result.fields = shape.fields;
    result._parsers = shape.parsers;
    result._prebuiltEmptyResultObject = shape.emptyRow;
    // What pg's handleRowDescription would have set: a query with a callback collects its rows.
    internals._accumulateRows = true;
  }

  handleRowDescription(message: unknown): void {
    (pg.Query.prototype as unknown as { handleRowDescription(message: unknown): void }).handleRowDescription.call(
      this,
      message,
    );
    const result = (this as unknown as PgQueryInternals)._result;
    this.shapes?.set(this.statementName, {
      fields: result.fields,
      parsers: result._parsers,
      emptyRow: result._prebuiltEmptyResultObject,
    });
  }
}

/** Use counts stay small integers, which V8 stores in place without allocating (2^30 is below every limit). */
const MAX_SMALL_INTEGER = 2 ** 30;

/** Numbers the uses again from 1 in the same order; returns the last number given. */
function renumber(lastUse: Map<string, number>): number {
  const order = [...lastUse].sort((a, b) => a[1] - b[1]);
  order.forEach(([name], index) => lastUse.set(name, index + 1));
  return order.length;
}

/** Sends the marked statements of a pooled pg connection as named (prepared) statements, at most a bounded number. */
export function prepareMarkedStatements(client: pg.PoolClient, limit = STATEMENTS_PER_CONNECTION): void {
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  const connection = (client as unknown as { connection?: PgConnection }).connection;
  // The server's word after every statement: I idle, T in a transaction, E in a failed transaction.
  let transactionStatus = 'I';
  connection?.on?.('readyForQuery', (message) => {
    transactionStatus = message.status ?? transactionStatus;
  });
  /**
   * Only a statement the server has parsed is deallocated, so the DEALLOCATE cannot fail (and abort a transaction);
   * pg forgets it so that a later use parses it again. Queued before whatever the connection runs next.
   */
  const deallocate = (name: string) => {
    shapes.delete(name);
    const parsed = connection?.parsedStatements;
    if (parsed && parsed[name] !== undefined) {
      delete parsed[name];
      void query(`DEALLOCATE ${name}`).catch(() => {});
    }
  };
  // The row shape of each named statement this connection has run (NamedStatement above).
  const shapes = new Map<string, RowShape>();
  const describe = connection?.describe;
  if (connection && describe) {
    connection.describeSkipped = false;
    connection.describe = (message) => {
      if (!connection.describeSkipped) describe.call(connection, message);
    };
  }
  /**
   * Runs a named statement. pg copies a config object (`{ name, text, values }`) on every query, property by property
   * (about 1.5 µs a statement in a profile of GET /v1/organization); a Query made from the text alone is not copied.
   */
  const named = (name: string, text: string, values: unknown[]): Promise<unknown> =>
    new Promise((resolve, reject) => {
      query(
        new NamedStatement(text, values, name, describe ? shapes : undefined, (error, result) =>
          error ? reject(error) : resolve(result),
        ),
      );
    });
  // Each kept name's last use, by a count of this connection's uses. Recording a use overwrites a small integer in
  // place; a Set kept in recency order (delete, then add again) left a deleted slot at every use and rebuilt its
  // table every few requests, tables that outlived the young generation and brought on full collections sooner
  // (docs/journal/2026-11-29-garbage-collection-episodes.md#what-patron-promotes). The least recently used is looked
  // for only when a new name overflows the limit.
  const lastUse = new Map<string, number>();
  let uses = 0;
  const recordUse = (name: string): string | undefined => {
    if (uses >= MAX_SMALL_INTEGER) uses = renumber(lastUse);
    const known = lastUse.has(name);
    lastUse.set(name, ++uses);
    if (known || lastUse.size <= limit) return undefined;
    let oldest: string | undefined;
    let oldestUse = Infinity;
    for (const [kept, use] of lastUse) {
      if (use < oldestUse) {
        oldest = kept;
        oldestUse = use;
      }
    }
    lastUse.delete(oldest!);
    return oldest;
  };
  // Statements the server refused as stale inside a transaction, where nothing more could run: prepared again on
  // their next use.
  const stale = new Set<string>();
  client.query = ((text: unknown, values?: unknown, callback?: unknown) => {
    if (typeof text === 'string' && text.startsWith(PREPARE_MARKER) && Array.isArray(values)) {
      const name = statementName(text);
      const evicted = recordUse(name);
      if (evicted !== undefined) {
        stale.delete(evicted);
        deallocate(evicted);
      }
      if (stale.size > 0 && stale.delete(name)) deallocate(name);
      if (callback !== undefined) return query({ name, text, values }, callback);
      const outsideTransaction = transactionStatus === 'I';
      return named(name, text, values).catch((error: unknown) => {
        if (!isStalePreparedStatement(error)) throw error;
        // Outside a transaction the failed statement changed nothing: prepare it again and run it once more. Inside
        // one the transaction is aborted; the statement is prepared again on its next use, and src/db/retry.ts runs
        // the transaction again (docs/api.md#upgrades-while-serving).
        if (!outsideTransaction) {
          stale.add(name);
          throw error;
        }
        deallocate(name);
        return named(name, text, values);
      });
    }
    return query(text, values, callback);
  }) as typeof client.query;
}

/** The pool behind a PostgreSQL database handle, for statements that run outside a transaction (below). */
const poolOf = new WeakMap<Kysely<DB>, pg.Pool>();

/**
 * Lets `prepared` statements on this handle (not on a transaction of it) borrow a connection from the pool themselves.
 * Kysely's executor, connection provider and driver wrap every statement in four more async layers, about 4 µs of
 * Node CPU per statement (a profile of GET /v1/organization,
 * docs/journal/2026-11-29-faster-machine-layers-per-statement.md): for the statements every request runs that is a
 * few per cent of the whole request. What the statement does is unchanged: the same pooled connection, the same text
 * and parameters, the same rows.
 */
export function runPreparedOnPool(db: Kysely<DB>, pool: pg.Pool): void {
  poolOf.set(db, pool);
}

async function onPool<Row>(pool: pg.Pool, text: string, values: unknown[]): Promise<Row[]> {
  const client = await pool.connect();
  try {
    return (await client.query<Row & pg.QueryResultRow>(text, values)).rows;
  } finally {
    // As Kysely releases: pg-pool discards a client whose connection broke.
    client.release();
  }
}

/**
 * A query built and compiled once per database handle, then run with fresh parameters, prepared on the server. For the statements every
 * request runs (key lookup, the caller's organization), where building and compiling the Kysely query cost more
 * than the rest of the Node-side work. `placeholders` are distinct sample arguments: they locate each argument
 * among the compiled parameters, so the builder stays ordinary, typed Kysely code.
 */
export function prepared<Args extends readonly string[], Row>(
  build: (db: Kysely<DB>, ...args: Args) => Compilable<Row>,
  placeholders: Args,
): (db: Kysely<DB>, ...args: Args) => Promise<Row[]> {
  const compiledFor = new WeakMap<Kysely<DB>, { compiled: CompiledQuery<Row>; slots: number[] }>();
  return async (db, ...args) => {
    let entry = compiledFor.get(db);
    if (!entry) {
      const compiled = build(db, ...placeholders).compile();
      const slots = compiled.parameters.map((value) => placeholders.indexOf(value as string));
      if (slots.includes(-1) || new Set(placeholders).size !== placeholders.length) {
        throw new Error(
          `prepared(): every compiled parameter must be one of the distinct placeholders: ${compiled.sql}`,
        );
      }
      entry = { compiled: { ...compiled, sql: PREPARE_MARKER + compiled.sql }, slots };
      compiledFor.set(db, entry);
    }
    const { compiled, slots } = entry;
    const parameters = slots.map((slot) => args[slot]);
    const pool = poolOf.get(db);
    if (pool) return onPool<Row>(pool, compiled.sql, parameters);
    return (await db.executeQuery<Row>({ ...compiled, parameters })).rows;
  };
}

/** Sample arguments of preparedForIds: an organization id and an id list, distinct from each other. */
const ORGANIZATION_PLACEHOLDER = '00000000-0000-4000-8000-00000000000a';
const IDS_PLACEHOLDER = '{00000000-0000-4000-8000-00000000000b}';

/**
 * A statement over one organization and a set of record ids (an include's loader, a record looked up for a page),
 * compiled once per database handle and prepared on the server, as `prepared`: building and compiling a Kysely query
 * with joins costs tens of microseconds, on every page, for a text that never changes. `ids` stands for
 * `any(array(select unnest($n::uuid[])))`, one array parameter, so one statement serves every page size.
 *
 * The array goes through a subquery so that PostgreSQL plans it the same with or without the values: written as
 * `any($n::uuid[])`, a plan made for the values counts their elements, a page of fewer than ten rows then looks
 * cheaper to plan afresh than the generic plan, and the server re-plans the statement on every execution (about
 * 0.3 ms of its CPU per include on a short page). Behind the subquery both plans count ten, and after its first five
 * executions the server keeps the generic plan (docs/journal/2026-11-28-rewards-tail-access-log-first-start.md).
 */
export function preparedForIds<Row>(
  build: (db: Kysely<DB>, organizationId: string, ids: RawBuilder<string>) => Compilable<Row>,
): (db: Kysely<DB>, organizationId: string, ids: readonly string[]) => Promise<Row[]> {
  const run = prepared(
    (db, organizationId: string, idsLiteral: string) =>
      build(db, organizationId, sql<string>`any(array(select unnest(${idsLiteral}::uuid[])))`),
    [ORGANIZATION_PLACEHOLDER, IDS_PLACEHOLDER] as const,
  );
  return (db, organizationId, ids) => run(db, organizationId, plainArrayLiteral(ids));
}

/** A `sql` template as `prepared` and `preparedForIds` take it (a raw statement compiles against its database). */
export const compilable = <Row>(db: Kysely<DB>, statement: RawBuilder<Row>): Compilable<Row> => ({
  compile: () => statement.compile(db),
});
