// The FLOOR for GET /v1/organization: a bare node:http server doing the same per-request work as Patron with
// nothing else: parse the Bearer header, SHA-256 it, look the key up (same SQL as findKey in src/http/auth.ts),
// read the organization by id (same SQL as findOrganization), write the same JSON shape.
// Started as a child by bench/organization.ts; reads DATABASE_URL and PORT (and optionally HOST) from env.
//   DATABASE_URL=postgres://… PORT=4000 node --import tsx bench/support/organization-floor.ts
import { createHash } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import pg from 'pg';

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const KEY_PATTERN = /^sk_[0-9A-Za-z]{32,128}$/;
const POOL_SIZE = 10; // the same as openPostgres() in src/db/engine.ts

// The SQL Kysely compiles for findKey() and findOrganization() (checked with .compile() when this was written).
const FIND_KEY_SQL =
  'select "k"."id" as "keyId", "k"."organization_id" as "organizationId", "k"."permissions", ' +
  '"o"."api_requests_per_minute", "o"."loyalty_events_per_minute", "o"."loyalty_stamps_per_minute" ' +
  'from "api_keys" as "k" inner join "organizations" as "o" on "o"."id" = "k"."organization_id" ' +
  'where "k"."key_hash" = $1 and "k"."revoked_at" is null';
const FIND_ORGANIZATION_SQL = 'select * from "organizations" where "id" = $1';

interface KeyRow {
  keyId: string;
  organizationId: string;
  permissions: string[];
}
interface OrganizationRow {
  id: string;
  name: string;
  timezone: string;
  api_requests_per_minute: number;
  loyalty_events_per_minute: number;
  loyalty_stamps_per_minute: number;
  cascade_delete_reviews: boolean;
  review_summary_min_reviews: number;
  expiring_soon_days: number;
}

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL is required');
const port = Number(process.env.PORT ?? 3001);
const host = process.env.HOST ?? '127.0.0.1';

const pool = new pg.Pool({ connectionString: databaseUrl, max: POOL_SIZE, connectionTimeoutMillis: 5_000 });
pool.on('error', () => {});

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

const fail = (res: ServerResponse, status: number, code: string, message: string) =>
  send(res, status, { error: { code, message } });

async function getOrganization(authorization: string | undefined, res: ServerResponse): Promise<void> {
  const key = authorization ? BEARER.exec(authorization)?.[1] : undefined;
  if (!key || !KEY_PATTERN.test(key))
    return fail(res, 401, 'UNAUTHORIZED', 'Missing or malformed Authorization header.');
  const hash = createHash('sha256').update(key).digest('hex');
  // Named (prepared once per connection), as Patron prepares its per-request statements. pg asks the server to
  // describe the rows of every run; Patron asks only on a statement's first run on a connection (src/db/prepared.ts),
  // a cut of its own that the floor is not given.
  const keyRow = (await pool.query<KeyRow>({ name: 'find-key', text: FIND_KEY_SQL, values: [hash] })).rows[0];
  if (!keyRow) return fail(res, 401, 'UNAUTHORIZED', 'The API key is unknown or has been revoked.');
  const row = (
    await pool.query<OrganizationRow>({
      name: 'find-organization',
      text: FIND_ORGANIZATION_SQL,
      values: [keyRow.organizationId],
    })
  ).rows[0];
  if (!row) return fail(res, 404, 'NOT_FOUND', 'The organization was not found.');
  send(res, 200, {
    id: row.id,
    name: row.name,
    timezone: row.timezone,
    plan: {
      apiRequestsPerMinute: row.api_requests_per_minute,
      loyaltyEventsPerMinute: row.loyalty_events_per_minute,
      loyaltyStampsPerMinute: row.loyalty_stamps_per_minute,
    },
    settings: {
      cascadeDeleteReviews: row.cascade_delete_reviews,
      reviewSummaryMinReviews: row.review_summary_min_reviews,
      expiringSoonDays: row.expiring_soon_days,
    },
  });
}

const server = createServer((req, res) => {
  const path = req.url?.split('?')[0];
  if (req.method === 'GET' && path === '/v1/organization') {
    getOrganization(req.headers.authorization, res).catch(() => {
      if (!res.headersSent) fail(res, 503, 'SERVICE_UNAVAILABLE', 'The database is unavailable.');
      else res.destroy();
    });
  } else if (req.method === 'GET' && path === '/readyz') {
    pool.query('select 1').then(
      () => send(res, 200, { status: 'ready', database: 'postgres' }),
      () => fail(res, 503, 'SERVICE_UNAVAILABLE', 'The database is not reachable.'),
    );
  } else {
    fail(res, 404, 'NOT_FOUND', 'No such route.');
  }
});

// Same keep-alive behaviour as Fastify's default (72 s), so connections are reused the same way.
server.keepAliveTimeout = 72_000;

let closing = false;
const shutdown = () => {
  if (closing) return;
  closing = true;
  server.close(() => void pool.end().then(() => process.exit(0)));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 5_000).unref();
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

server.listen(port, host, () => process.stdout.write(`floor listening on http://${host}:${port}\n`));
