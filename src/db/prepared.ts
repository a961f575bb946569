import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { DB } from './schema.js';

/**
 * A query built and compiled once per database handle, then run with fresh parameters. For the statements every
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
        throw new Error(`prepared(): every compiled parameter must be one of the distinct placeholders: ${compiled.sql}`);
      }
      entry = { compiled, slots };
      compiledFor.set(db, entry);
    }
    const { compiled, slots } = entry;
    return (await db.executeQuery<Row>({ ...compiled, parameters: slots.map((slot) => args[slot]) })).rows;
  };
}
