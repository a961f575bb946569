// The FLOOR for GET /v1/orders?…&include=customer,items: a bare node:http + pg server that runs exactly the SQL Patron
// runs for that request and writes the same JSON, with nothing else (no framework, no validation, no filter
// compilation, no rate limit). Started as a child by bench/orders-list.ts.
//
//   DATABASE_URL=postgres://… PORT=4000 FLOOR_SPEC=bench/results/orders-floor-spec.json node --import tsx bench/support/orders-list-floor.ts
//
// FLOOR_SPEC is written by bench/orders-list.ts, which captures the statements Patron issues for the benchmarked
// request (Kysely query log, in process, through the real routes): the key lookup, the bounded count the list engine
// runs to choose the form of a to-many filter (src/lists/related.ts), the list query and one query per include. Each statement keeps Patron's SQL text verbatim; its parameters are a template: the key hash, the
// caller's organization, the page's order ids (as one array or one parameter per id), or a literal (the filter
// values and the limit). Per request the floor: parses the Bearer key, hashes it, runs the key lookup, runs the list
// query, runs the include queries in parallel (as Patron's loadIncludes does) with the ids of its own page, maps
// the rows to the API shape and JSON.stringify-s { data, nextCursor }.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import pg from 'pg';

export type ParamTemplate =
  { t: 'hash' } | { t: 'org' } | { t: 'ids' } | { t: 'id'; k: number } | { t: 'lit'; v: unknown };

export interface FloorStatement {
  sql: string;
  params: ParamTemplate[];
}

export interface FloorSpec {
  /** The request path (with query) this floor answers; any GET /v1/orders gets this answer. */
  path: string;
  /** Page size: the list query asks for limit + 1 rows. */
  limit: number;
  /** cursorBinding(sort, canonical filter, search) of src/lists/cursor.ts for this request. */
  binding: string;
  auth: FloorStatement;
  /** The list engine's bounded count of the filter's related rows, when the filter has a to-many condition. */
  plan?: FloorStatement;
  list: FloorStatement;
  includes: { customer?: FloorStatement; items?: FloorStatement };
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const KEY_PATTERN = /^sk_[0-9A-Za-z]{32,128}$/;
const POOL_SIZE = 10; // the same as openPostgres() in src/db/engine.ts
const INT8_OID = 20;

const databaseUrl = process.env.DATABASE_URL;
const specFile = process.env.FLOOR_SPEC;
if (!databaseUrl || !specFile) throw new Error('DATABASE_URL and FLOOR_SPEC are required');
const spec = JSON.parse(readFileSync(specFile, 'utf8')) as FloorSpec;
const port = Number(process.env.PORT ?? 3001);
const host = process.env.HOST ?? '127.0.0.1';

// bigint columns come back as numbers, as Patron's pool parses them.
const pool = new pg.Pool({
  connectionString: databaseUrl,
  max: POOL_SIZE,
  connectionTimeoutMillis: 5_000,
  options: '-c jit=off', // as openPostgres() sets it
  types: {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === INT8_OID
        ? (value: string) => Number(value)
        : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  },
});
pool.on('error', () => {});

function params(template: ParamTemplate[], values: { hash?: string; org?: string; ids?: string[] }): unknown[] {
  return template.map((p) => {
    switch (p.t) {
      case 'hash':
        return values.hash;
      case 'org':
        return values.org;
      case 'ids':
        return values.ids;
      case 'id':
        return values.ids?.[p.k];
      case 'lit':
        return p.v;
    }
  });
}

/** A statement whose `id` parameters are one per page id needs as many as the page has; Kysely writes `in ($2, …)`. */
function statementFor(statement: FloorStatement, ids: string[]): { sql: string; params: ParamTemplate[] } {
  const perId = statement.params.filter((p) => p.t === 'id').length;
  if (perId === 0 || perId === ids.length) return statement;
  // A shorter (last) page: rewrite the placeholder list. Not hit by the benchmarked first page.
  const first = statement.params.findIndex((p) => p.t === 'id');
  const placeholders = statement.params
    .map((_, i) => `$${i + 1}`)
    .slice(first, first + perId)
    .join(', ');
  const replacement = ids.map((_, i) => `$${first + i + 1}`).join(', ');
  const rest = statement.params.slice(first + perId);
  return {
    sql: statement.sql.replace(placeholders, replacement),
    params: [...statement.params.slice(0, first), ...ids.map((_, k) => ({ t: 'id', k }) as ParamTemplate), ...rest],
  };
}

type Row = Record<string, unknown>;
const iso = (value: unknown) => (value === null || value === undefined ? null : (value as Date).toISOString());

const toOrder = (r: Row) => ({
  id: r.id,
  siteId: r.site_id,
  customerId: r.customer_id,
  remoteId: r.remote_id,
  number: r.number,
  totalCents: r.total_cents,
  subtotalCents: r.subtotal_cents,
  shippingCents: r.shipping_cents,
  taxCents: r.tax_cents,
  currencyCode: r.currency_code,
  shippedAt: iso(r.shipped_at),
  deliveredAt: iso(r.delivered_at),
  cancelledAt: iso(r.cancelled_at),
  metadata: r.metadata,
  notes: r.notes,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

const toCustomer = (r: Row) => ({
  id: r.id,
  email: r.email,
  phone: r.phone,
  firstName: r.first_name,
  lastName: r.last_name,
  country: r.country,
  birthday: r.birthday,
  metadata: r.metadata,
  notes: r.notes,
  emailOptOut: r.email_opt_out,
  emailOptOutAt: iso(r.email_opt_out_at),
  emailOptOutSource: r.email_opt_out_source,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

const toItem = (r: Row) => ({
  id: r.id,
  productId: r.product_id,
  productVariantId: r.product_variant_id,
  quantity: r.quantity,
  unitPriceCents: r.unit_price_cents,
  product:
    r.p_id === null
      ? null
      : {
          id: r.p_id,
          slug: r.p_slug,
          title: r.p_title,
          description: r.p_description,
          imageUrl: r.p_image_url,
          url: r.p_url,
          metadata: r.p_metadata,
          notes: r.p_notes,
          createdAt: iso(r.p_created_at),
          updatedAt: iso(r.p_updated_at),
        },
  variant:
    r.v_id === null
      ? null
      : {
          id: r.v_id,
          slug: r.v_slug,
          title: r.v_title,
          imageUrl: r.v_image_url,
          priceCents: r.v_price_cents,
          currencyCode: r.v_currency_code,
          available: r.v_available,
          metadata: r.v_metadata,
        },
});

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

async function run(statement: FloorStatement, values: { hash?: string; org?: string; ids?: string[] }): Promise<Row[]> {
  const { sql, params: template } = values.ids ? statementFor(statement, values.ids) : statement;
  return (await pool.query<Row>(sql, params(template, values))).rows;
}

async function listOrders(authorization: string | undefined, res: ServerResponse): Promise<void> {
  const key = authorization ? BEARER.exec(authorization)?.[1] : undefined;
  if (!key || !KEY_PATTERN.test(key))
    return fail(res, 401, 'UNAUTHORIZED', 'Missing or malformed Authorization header.');
  const hash = createHash('sha256').update(key).digest('hex');
  const keyRow = (await run(spec.auth, { hash }))[0];
  if (!keyRow) return fail(res, 401, 'UNAUTHORIZED', 'The API key is unknown or has been revoked.');
  const org = keyRow.organizationId as string;

  if (spec.plan) await run(spec.plan, { org });
  const rows = await run(spec.list, { org });
  const page = rows.length > spec.limit ? rows.slice(0, spec.limit) : rows;
  const last = page[page.length - 1];
  const nextCursor =
    rows.length > spec.limit && last
      ? Buffer.from(JSON.stringify({ b: spec.binding, v: last._sort ?? null, i: last.id })).toString('base64url')
      : null;
  const ids = page.map((row) => row.id as string);

  const [customers, items] = await Promise.all([
    spec.includes.customer && ids.length ? run(spec.includes.customer, { org, ids }) : Promise.resolve(null),
    spec.includes.items && ids.length ? run(spec.includes.items, { org, ids }) : Promise.resolve(null),
  ]);
  const customerOf = customers && new Map(customers.map((row) => [row.page_row_id as string, toCustomer(row)]));
  const itemsOf = items && new Map<string, unknown[]>();
  if (items && itemsOf) {
    for (const row of items) {
      const list = itemsOf.get(row.order_id as string);
      if (list) list.push(toItem(row));
      else itemsOf.set(row.order_id as string, [toItem(row)]);
    }
  }
  const data = page.map((row) => {
    const order: Record<string, unknown> = toOrder(row);
    if (customerOf) order.customer = customerOf.get(row.id as string) ?? null;
    if (itemsOf) order.items = itemsOf.get(row.id as string) ?? [];
    return order;
  });
  send(res, 200, { data, nextCursor });
}

const server = createServer((req, res) => {
  const path = req.url?.split('?')[0];
  if (req.method === 'GET' && path === '/v1/orders') {
    listOrders(req.headers.authorization, res).catch(() => {
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

server.listen(port, host, () => process.stdout.write(`orders floor listening on http://${host}:${port}\n`));
