import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

/**
 * The tables whose rows the embedded engine's cache answers from: the API key lookup (a key joined to its
 * organization's plan) and the organization itself. A statement that may change one of them empties the cache.
 */
const CACHED_TABLES = /\b(api_keys|organizations)\b/i;

/** A statement that only reads: it begins with SELECT (after comments). WITH … may hold a DELETE or an UPDATE. */
const READ_ONLY = /^(?:\s|\/\*.*?\*\/|--[^\n]*\n)*select\b/is;

/** Whether a statement only reads (a plain SELECT): it changes nothing the cache or the statistics depend on. */
export const isPlainRead = (text: string): boolean => READ_ONLY.test(text);

/** Bounds memory when many distinct keys are presented: past this many entries the cache starts over. */
const MAX_ENTRIES = 10_000;

/**
 * An exact cache of the rows every request reads (the caller's key and organization), kept only on the embedded
 * engine: there the data belongs to this one process (src/db/embedded-lock.ts), so every change goes through the
 * PGlite connection, which calls `observeStatement` for each statement it runs. Invalidation is therefore structural,
 * not the duty of each write path: any statement other than a plain SELECT whose text names a cached table (a key
 * created or revoked through the API, the dashboard or the CLI, an organization updated or deleted, a migration)
 * empties the cache before it runs, and again when its transaction ends. A revoked key is refused on the very next
 * request (docs/api.md#embedded-database-and-cli). On PostgreSQL several processes share the database, so nothing is cached there.
 *
 * A read that began before a write must not store what it read after the write: each read notes the generation
 * when it starts and stores its row only if no invalidation happened meanwhile.
 */
export class EmbeddedReadCache {
  private generation = 0;
  private readonly entries = new Map<string, unknown>();

  /** Empties the cache; reads in flight will not store their rows. */
  invalidate(): void {
    this.generation++;
    this.entries.clear();
  }

  /** Whether a statement may change a cached table; if so the cache is emptied before it runs. */
  observeStatement(text: string): boolean {
    if (isPlainRead(text) || !CACHED_TABLES.test(text)) return false;
    this.invalidate();
    return true;
  }

  /** The cached value under `key`, or what `load` reads (stored unless undefined or a change happened meanwhile). */
  async read<T>(key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    if (this.entries.has(key)) return this.entries.get(key) as T;
    const generation = this.generation;
    const value = await load();
    if (value !== undefined && generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(key, value);
    }
    return value;
  }

  /** Entries held now (for tests that prove the cache is used). */
  get size(): number {
    return this.entries.size;
  }
}

const caches = new WeakMap<Kysely<DB>, EmbeddedReadCache>();

/** Ties a cache to the embedded engine's database handle (src/db/engine.ts). */
export function attachEmbeddedCache(db: Kysely<DB>, cache: EmbeddedReadCache): void {
  caches.set(db, cache);
}

/**
 * Reads through the embedded engine's cache when `db` is the embedded database handle; on PostgreSQL, or in a
 * transaction, reads every time.
 */
export function cachedRead<T>(db: Kysely<DB>, key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
  const cache = caches.get(db);
  return cache ? cache.read(key, load) : load();
}

/** The embedded engine's cache of a database handle, if any (tests). */
export const embeddedCacheOf = (db: Kysely<DB>): EmbeddedReadCache | undefined => caches.get(db);
