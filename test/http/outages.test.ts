import { Writable } from 'node:stream';
import { sql } from 'kysely';
import Type from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { buildApp } from '../../src/http/app.js';
import type { PatronApp, ResourceModule } from '../../src/core/types.js';
import { MemoryRateLimiter } from '../../src/ratelimit/index.js';
import { organizationResource } from '../../src/resources/organization/index.js';
import { createTenant } from '../support/app.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

/**
 * The database itself raises each SQLSTATE (a DO block), so the error reaches the app exactly as the driver reports
 * one from a server that cannot serve: out of connections or disk, refusing connections, shutting down.
 */
const OUTAGES: Record<string, string> = {
  '53300': 'sorry, too many clients already',
  '53100': 'could not extend file: No space left on device',
  '55000': 'database "patron" is not currently accepting connections',
  '57P01': 'terminating connection due to administrator command',
  '57P03': 'the database system is starting up',
  '28P01': 'password authentication failed for user "patron"',
  '08006': 'connection failure',
};

const raising: ResourceModule = {
  name: 'outage-probe',
  routes(app, { db }) {
    app.get<{ Params: { code: string }; Querystring: { message?: string } }>(
      '/outage-probe/:code',
      {
        config: { permission: 'any', cost: 1 },
        schema: {
          querystring: Type.Object({ message: Type.Optional(Type.String()) }, { additionalProperties: false }),
        },
      },
      async (request) => {
        const code = request.params.code;
        const message = request.query.message ?? OUTAGES[code] ?? 'probe';
        if (!/^[0-9A-Z]{5}$/.test(code)) throw new Error('test probe: bad code');
        await sql
          .raw(
            `do $$ begin raise exception using errcode = '${code}', message = '${message.replace(/'/g, "''")}'; end $$`,
          )
          .execute(db);
        return { ok: true };
      },
    );
    app.get('/outage-probe-ok', { config: { permission: 'any', cost: 1 } }, async () => {
      await sql`select 1`.execute(db);
      return { ok: true };
    });
  },
};

let testDatabase: TestDatabase;
let app: PatronApp;
let key: string;
const logLines: { level: number; msg: string; cause?: { code?: string }; refused?: number }[] = [];

beforeAll(async () => {
  testDatabase = await createTestDatabase();
  const config = { ...loadConfig({}), logLevel: 'info' };
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
      callback();
    },
  });
  ({ app } = await buildApp({
    config,
    database: testDatabase.database,
    limiter: new MemoryRateLimiter(),
    resources: [organizationResource, raising],
    logger: { level: 'info', stream },
  }));
  ({ key } = await createTenant(testDatabase.database.db, { name: 'Outages' }));
});
afterAll(async () => {
  await app?.close();
  await testDatabase?.drop();
});

const get = (url: string) => app.inject({ url, headers: { authorization: `Bearer ${key}` } });

describe('a database that cannot serve', () => {
  it.each(Object.keys(OUTAGES))('answers SQLSTATE %s with 503 SERVICE_UNAVAILABLE and Retry-After', async (code) => {
    const response = await get(`/v1/outage-probe/${code}`);
    expect(response.statusCode, response.body).toBe(503);
    expect(response.json().error.code).toBe('SERVICE_UNAVAILABLE');
    expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('answers a query fault that shares SQLSTATE 55000 with the refused connection as an internal error', async () => {
    const message = encodeURIComponent('currval of sequence "s" is not yet defined in this session');
    const response = await get(`/v1/outage-probe/55000?message=${message}`);
    expect(response.statusCode).toBe(500);
    expect(response.json().error.code).toBe('INTERNAL_ERROR');
  });

  it('logs one line when an outage starts and one when it ends, whatever the number of refused requests', async () => {
    await get('/v1/outage-probe-ok');
    logLines.length = 0;
    for (let i = 0; i < 20; i++) expect((await get('/v1/outage-probe/53300')).statusCode).toBe(503);
    expect((await get('/v1/outage-probe-ok')).statusCode).toBe(200);
    const outageLines = logLines.filter((line) => /database (un)?available/.test(line.msg));
    expect(outageLines.map((line) => line.msg)).toEqual([
      'database unavailable: answering 503 with Retry-After until it serves again',
      'database available again after an outage',
    ]);
    expect(outageLines[0]?.cause?.code).toBe('53300');
    expect(outageLines[1]?.refused).toBe(20);
    expect(logLines.filter((line) => line.level >= 50)).toEqual([]);
  });
});
