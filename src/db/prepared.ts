import { createHash } from 'node:crypto';
import { sql, type Compilable, type CompiledQuery, type Kysely } from 'kysely';
import type pg from 'pg';
import type { DB } from './schema.js';

/*
 * Server-side prepared statements for the statements hot paths run per request. PostgreSQL plans an unnamed statement
 * on every execution, and for a join over tables with many indexes planning costs several times the execution, as
 * loading a loyalty member (three tables) and the API key lookup showed
 * (docs/benchmarks.md#session-of-2026-11-21-07350900-utc-loyalty-issue-rate-order-import-prepared-statements). A
 * statement whose text begins with the marker is sent named after its text, so each connection parses and plans it
 * once. Only statements whose text comes from a fixed set may carry the marker (never one with a varying number of
 * parameters): every distinct text stays prepared on each pooled connection for the connection's life. PGlite ignores
 * the marker (a comment).
 */
const PREPARE_MARKER = '/* prepared */ ';

/** Put first in a sql`` template to have the statement prepared once per connection (see above). */
export const PREPARE = sql.raw(PREPARE_MARKER);

const statementNames = new Map<string, string>();
const statementName = (text: string) => {
  let name = statementNames.get(text);
  if (!name) statementNames.set(text, (name = `patron_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`));
  return name;
};

/** Sends the marked statements of a pooled pg connection as named (prepared) statements. */
export function prepareMarkedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((text: unknown, values?: unknown, callback?: unknown) => {
    if (typeof text === 'string' && text.startsWith(PREPARE_MARKER) && Array.isArray(values)) {
      return query({ name: statementName(text), text, values }, callback);
    }
    return query(text, values, callback);
  }) as typeof client.query;
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
    return (await db.executeQuery<Row>({ ...compiled, parameters: slots.map((slot) => args[slot]) })).rows;
  };
}
