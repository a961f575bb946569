// One request through Patron's real routes, in a process of its own, with every statement it sends recorded
// (bench/support/harness.ts `capture` starts it; see there for why it is a process). The request arrives as JSON in
// argv[2]; the result goes to file descriptor 3 as one line of JSON.
import { createWriteStream } from 'node:fs';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { createRuntime } from '../../src/compose.js';
import { loadConfig } from '../../src/config/index.js';
import type { Database } from '../../src/db/engine.js';
import type { DB } from '../../src/db/schema.js';
import { databaseUrl, SECRET, type Captured } from './harness.js';

interface CaptureRequest {
  method: 'GET' | 'POST';
  path: string;
  key: string;
  body?: unknown;
  database: string;
}

async function capture({ method, path, key, body, database }: CaptureRequest) {
  const pool = new pg.Pool({
    connectionString: databaseUrl(database),
    max: 10,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === 20
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  pool.on('error', () => {});
  const statements: Captured[] = [];
  let recording = false;
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      if (recording && event.level === 'query') {
        statements.push({
          sql: event.query.sql,
          parameters: [...event.query.parameters],
          durationMs: event.queryDurationMillis,
        });
      }
    },
  });
  const engine: Database = {
    engine: 'postgres',
    db,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => db.destroy(),
  };
  const config = loadConfig({ DATABASE_URL: databaseUrl(database), PATRON_SECRET_KEY: SECRET, LOG_LEVEL: 'warn' });
  config.secretKey = SECRET;
  const runtime = await createRuntime(config, { database: engine, logger: false });
  try {
    await runtime.app.ready();
    recording = true;
    const t0 = performance.now();
    const response = await runtime.app.inject({
      method,
      url: path,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    const ms = performance.now() - t0;
    recording = false;
    return { status: response.statusCode, body: response.json(), statements, ms };
  } finally {
    await runtime.close();
    await engine.close();
  }
}

const result = await capture(JSON.parse(process.argv[2]!) as CaptureRequest);
const parent = createWriteStream('', { fd: 3 });
parent.end(JSON.stringify(result) + '\n', () => process.exit(0));
