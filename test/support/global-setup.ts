/**
 * Once per `vitest run`, before any test file (vitest.config.ts's globalSetup):
 * 1. builds the server (`tsc -p tsconfig.build.json`, not the dashboard) when dist/ is missing or older than src/,
 *    so that the CLI's process tests run the build, as users do (test/support/processes.ts);
 * 2. migrates one database, which every test then copies instead of migrating its own (test/support/database.ts):
 *    on the embedded engine a data dir (copied for the CLI's children) and its dump (loaded by each in-memory
 *    database), kept in dist/test-database/ until the migrations change; on PostgreSQL (DATABASE_URL) a template
 *    database made for the run (each test's database is created from it) and dropped after it.
 * Migrating from nothing stays proven: test/db/migrate-from-nothing.test.ts, and `serve`'s first start in
 * test/cli/serve.test.ts.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely } from 'kysely';
import type { TestProject } from 'vitest/node';
import { migrateToLatest, openDatabase } from '../../src/db/engine.js';
import { PGliteDialect } from '../../src/db/pglite-dialect.js';
import type { DB } from '../../src/db/schema.js';
import { adminQuery, postgresUrl, withDatabaseName, type MigratedDatabase } from './database.js';
import { BUILT_CLI, ROOT } from './processes.js';

declare module 'vitest' {
  export interface ProvidedContext {
    migratedDatabase: MigratedDatabase | undefined;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await buildWhenStale();
  const migrated = postgresUrl ? await migratePostgresTemplate(postgresUrl) : await migrateEmbedded();
  project.provide('migratedDatabase', migrated.database);
  return migrated.teardown;
}

/** The newest modification time of a file under `dir`. */
async function newestIn(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    newest = Math.max(newest, (await stat(join(entry.parentPath, entry.name))).mtimeMs);
  }
  return newest;
}

/** What the last build here was made from: the newest modification time under src/ when it started. */
const BUILT_FROM = join(ROOT, 'dist/.built-from-sources');

async function buildWhenStale(): Promise<void> {
  const sources = await newestIn(join(ROOT, 'src'));
  const built = await stat(join(ROOT, BUILT_CLI)).catch(() => undefined);
  const builtFrom = Number(await readFile(BUILT_FROM, 'utf8').catch(() => '0'));
  if (built && builtFrom >= sources) return;
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  // tsc deletes nothing: a migration whose source is gone must not stay in dist/ (src/db/migrations/index.ts).
  await promisify(execFile)(process.execPath, [join(ROOT, 'scripts/prune-stale-build.mjs')], { cwd: ROOT });
  try {
    await promisify(execFile)(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT });
  } catch (error) {
    // tsc writes the build even with type errors; the process tests then run it, and `npm run typecheck` reports them.
    const output = (error as { stdout?: string }).stdout ?? String(error);
    if (!(await stat(join(ROOT, BUILT_CLI)).catch(() => undefined))) throw new Error(`The build failed:\n${output}`);
    process.stderr.write(`tsc -p tsconfig.build.json reported errors; the tests run the build anyway:\n${output}\n`);
  }
  // A source saved while tsc ran is newer than this, so the next run builds again.
  await writeFile(BUILT_FROM, String(sources));
}

/**
 * What the embedded database's migrated state depends on: the migrations and the PGlite release. Its copy is kept in
 * dist/ between runs under this key, so that a run of one test file migrates nothing.
 */
async function embeddedKey(): Promise<string> {
  const hash = createHash('sha256');
  const migrations = join(ROOT, 'src/db/migrations');
  for (const name of (await readdir(migrations)).sort())
    hash.update(name).update(await readFile(join(migrations, name)));
  hash.update(await readFile(join(ROOT, 'node_modules/@electric-sql/pglite/package.json')));
  return hash.digest('hex').slice(0, 16);
}

async function migrateEmbedded(): Promise<{ database: MigratedDatabase; teardown: () => Promise<void> }> {
  const kept = join(ROOT, 'dist/test-database', await embeddedKey());
  const database: MigratedDatabase = { engine: 'pglite', dataDir: join(kept, 'data'), dump: join(kept, 'pgdata.tar') };
  if (await stat(database.dump).catch(() => undefined)) return { database, teardown: async () => {} };
  await mkdir(dirname(kept), { recursive: true });
  // Made aside and renamed into place, so that a run beside this one never reads a half-made copy.
  const making = await mkdtemp(join(dirname(kept), 'making-'));
  // The engine's layout (src/db/engine.ts): the data dir holds pgdata/.
  await mkdir(join(making, 'data/pgdata'), { recursive: true });
  const pglite = await PGlite.create(join(making, 'data/pgdata'), { extensions: { pg_trgm, btree_gin } });
  try {
    await migrateToLatest(new Kysely<DB>({ dialect: new PGliteDialect(pglite) }));
    await writeFile(join(making, 'pgdata.tar'), Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer()));
  } finally {
    await pglite.close();
  }
  // Another run may have kept its copy first: then this one is not needed.
  await rename(making, kept).catch(() => rm(making, { recursive: true, force: true }));
  return { database, teardown: async () => {} };
}

async function migratePostgresTemplate(
  url: string,
): Promise<{ database: MigratedDatabase; teardown: () => Promise<void> }> {
  const template = `patron_template_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database ${template}`);
  // Closed before any test copies it: PostgreSQL copies a template nobody is connected to.
  const database = await openDatabase({ databaseUrl: withDatabaseName(url, template), dataDir: 'memory://' });
  try {
    await migrateToLatest(database.db);
  } finally {
    await database.close();
  }
  return {
    database: { engine: 'postgres', template },
    teardown: () => adminQuery(`drop database if exists ${template} with (force)`),
  };
}
