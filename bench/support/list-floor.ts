// The FLOORS for the rewards page, the reviews page and GET /v1/products/{id} with every include (bench/list-latency.ts):
// a bare node:http + pg server that runs the SQL Patron runs for the request and writes the same JSON, with nothing
// else (no framework, no validation, no filter compilation, no rate limit). One route per process, chosen by the spec.
//
//   DATABASE_URL=postgres://… PORT=4000 FLOOR_SPEC=bench/results/list-floor-rewards.json node --import tsx bench/support/list-floor.ts
//
// FLOOR_SPEC is written by bench/list-latency.ts, which captures the statements Patron issues for the benchmarked
// request (harness capture(): Kysely query log, in process, through the real routes): the key lookup, any statement
// the list engine runs before the list (e.g. the bounded count of a to-many filter), the list (or record) query, and
// one query per include. Each keeps Patron's SQL text verbatim; its parameters are a template (the key hash, the
// caller's organization, the page's ids as one array or one parameter per id, or a literal). Per request the floor:
// parses the Bearer key, hashes it, runs the key lookup, the statements before the list, the list query, then the
// include queries in parallel with the ids of its own page, maps the rows to the API shape and JSON.stringify-s
// { data, nextCursor } (a list) or the record (GET by id). Statements are prepared (named) once per connection: it is
// the floor. pg runs them as it comes, asking the server to describe the rows of every run; Patron asks only on a
// statement's first run on a connection (src/db/prepared.ts), a cut of its own that the floor is not given. Nothing
// here imports src/: the row mappings are written out (they copy src/records/*).
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

export type FloorRoute = 'rewards' | 'reviews' | 'product';

export interface ListFloorSpec {
  route: FloorRoute;
  /** A list: its page size (the list query asks for limit + 1 rows); null for a GET by id. */
  limit: number | null;
  /** The cursor binding Patron wrote in its nextCursor for this request (`b`), null when it wrote none. */
  binding: string | null;
  auth: FloorStatement;
  /** Statements Patron runs between the key lookup and the list (sequentially, organization scoped). */
  before: FloorStatement[];
  /** The list query, or the record query of a GET by id (whose id is parameter `id` 0). */
  main: FloorStatement;
  /** One statement per include, by include name. */
  includes: Record<string, FloorStatement>;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const KEY_PATTERN = /^sk_[0-9A-Za-z]{32,128}$/;
const POOL_SIZE = 10; // the same as openPostgres() in src/db/engine.ts
const INT8_OID = 20;

type Row = Record<string, unknown>;
const iso = (value: unknown) => (value === null || value === undefined ? null : (value as Date).toISOString());

// ---- row → API shape (copies of src/records/*) ----

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

const toReward = (r: Row) => ({
  id: r.id,
  loyaltyMembershipId: r.loyalty_membership_id,
  loyaltyRuleId: r.loyalty_rule_id,
  stampCardId: r.stamp_card_id,
  loyaltyTransactionId: r.loyalty_transaction_id,
  reward: r.reward,
  status: r.status,
  code: r.code,
  redeemedAt: iso(r.redeemed_at),
  expiresAt: iso(r.expires_at),
  revokedAt: iso(r.revoked_at),
  metadata: r.metadata,
  fulfillment: r.fulfillment,
  ruleSnapshot: r.rule_snapshot,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

const toEmbeddedMembership = (r: Row) => ({
  id: r.id,
  customerId: r.customer_id,
  loyaltyProgramId: r.loyalty_program_id,
  loyaltyTierId: r.loyalty_tier_id,
  tierAssignedManually: r.tier_assigned_manually,
  tierAttainedAt: iso(r.tier_attained_at),
  tierReviewAt: iso(r.tier_review_at),
  leftAt: iso(r.left_at),
  referralCode: r.referral_code,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

const toReview = (r: Row) => ({
  id: r.id,
  productId: r.product_id,
  customerId: r.customer_id,
  rating: r.rating,
  title: r.title,
  body: r.body,
  published: r.published,
  verifiedBuyer: r.verified_buyer,
  flagged: r.flagged,
  language: r.language,
  answers: r.answers,
  metadata: r.metadata,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

const toProduct = (r: Row) => ({
  id: r.id,
  slug: r.slug,
  title: r.title,
  description: r.description,
  imageUrl: r.image_url,
  url: r.url,
  metadata: r.metadata,
  notes: r.notes,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

const toVariant = (r: Row) => ({
  id: r.id,
  slug: r.slug,
  title: r.title,
  imageUrl: r.image_url,
  priceCents: r.price_cents,
  currencyCode: r.currency_code,
  available: r.available,
  metadata: r.metadata,
});

/** How one include's rows become a value per record: the owner column, the mapping, one value or a list, the default. */
interface IncludeShape {
  owner: string;
  value: (row: Row) => unknown;
  many?: boolean;
  empty: () => unknown;
}

const ROUTES: Record<
  FloorRoute,
  { record: (row: Row) => Record<string, unknown>; includes: Record<string, IncludeShape> }
> = {
  rewards: {
    record: toReward,
    includes: {
      customer: { owner: 'page_row_id', value: toCustomer, empty: () => null },
      membership: { owner: 'page_row_id', value: toEmbeddedMembership, empty: () => null },
      rule: { owner: 'page_row_id', value: (r) => ({ id: r.id, name: r.name, section: r.section }), empty: () => null },
    },
  },
  reviews: {
    record: toReview,
    includes: {
      customer: { owner: 'page_row_id', value: toCustomer, empty: () => null },
      product: { owner: 'page_row_id', value: toProduct, empty: () => null },
    },
  },
  product: {
    record: toProduct,
    includes: {
      importJob: {
        owner: 'record_id',
        value: (r) => ({ id: r.import_job_id, type: r.type, action: r.action, row: r.row, createdAt: r.created_at }),
        empty: () => null,
      },
      reviewsCount: { owner: 'owner', value: (r) => r.n, empty: () => 0 },
      wishlistsCount: { owner: 'product_id', value: (r) => r.wishlists_count, empty: () => 0 },
      variantsCount: { owner: 'owner', value: (r) => r.n, empty: () => 0 },
      tags: { owner: 'record_id', value: (r) => r.name, many: true, empty: () => [] },
      variants: { owner: 'product_id', value: toVariant, many: true, empty: () => [] },
    },
  },
};

// ---- statements ----

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
function statementFor(statement: FloorStatement, ids: string[]): FloorStatement {
  const perId = statement.params.filter((p) => p.t === 'id').length;
  if (perId === 0 || perId === ids.length) return statement;
  const first = statement.params.findIndex((p) => p.t === 'id');
  const placeholders = statement.params
    .map((_, i) => `$${i + 1}`)
    .slice(first, first + perId)
    .join(', ');
  const replacement = ids.map((_, i) => `$${first + i + 1}`).join(', ');
  const rest = statement.params.slice(first + perId);
  // Later parameters move by the difference first (the id list keeps its numbers), then the id list is rewritten.
  const renumbered = statement.sql
    .replace(/\$(\d+)\b/g, (m, n: string) => (Number(n) > first + perId ? `$${Number(n) - perId + ids.length}` : m))
    .replace(placeholders, replacement);
  return {
    sql: renumbered,
    params: [...statement.params.slice(0, first), ...ids.map((_, k) => ({ t: 'id', k }) as ParamTemplate), ...rest],
  };
}

function main(): void {
  const databaseUrl = process.env.DATABASE_URL;
  const specFile = process.env.FLOOR_SPEC;
  if (!databaseUrl || !specFile) throw new Error('DATABASE_URL and FLOOR_SPEC are required');
  const spec = JSON.parse(readFileSync(specFile, 'utf8')) as ListFloorSpec;
  const shape = ROUTES[spec.route];
  const port = Number(process.env.PORT ?? 3001);
  const host = process.env.HOST ?? '127.0.0.1';
  const prefix = { rewards: '/v1/loyalty-rewards', reviews: '/v1/reviews', product: '/v1/products/' }[spec.route];

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

  // Prepared once per connection under a name per distinct SQL text (FLOOR_UNNAMED=1: unnamed, parsed and planned on
  // every execution, as Patron sends most statements; a diagnostic of what preparing saves PostgreSQL).
  const unnamed = process.env.FLOOR_UNNAMED === '1';
  const names = new Map<string, string>();
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (!name) names.set(text, (name = `floor-${names.size}`));
    return name;
  };
  async function run(statement: FloorStatement, values: { hash?: string; org?: string; ids?: string[] }) {
    const { sql, params: template } = values.ids ? statementFor(statement, values.ids) : statement;
    const bound = params(template, values);
    return (
      await pool.query<Row>(unnamed ? { text: sql, values: bound } : { name: nameOf(sql), text: sql, values: bound })
    ).rows;
  }

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

  async function answer(path: string, authorization: string | undefined, res: ServerResponse): Promise<void> {
    const key = authorization ? BEARER.exec(authorization)?.[1] : undefined;
    if (!key || !KEY_PATTERN.test(key))
      return fail(res, 401, 'UNAUTHORIZED', 'Missing or malformed Authorization header.');
    const hash = createHash('sha256').update(key).digest('hex');
    const keyRow = (await run(spec.auth, { hash }))[0];
    if (!keyRow) return fail(res, 401, 'UNAUTHORIZED', 'The API key is unknown or has been revoked.');
    const org = keyRow.organizationId as string;
    for (const statement of spec.before) await run(statement, { org });

    const recordId = spec.limit === null ? path.slice(prefix.length) : null;
    const rows = await run(spec.main, recordId === null ? { org } : { org, ids: [recordId] });
    if (recordId !== null && !rows.length) return fail(res, 404, 'NOT_FOUND', 'Not found.');
    const page = spec.limit !== null && rows.length > spec.limit ? rows.slice(0, spec.limit) : rows;
    const ids = page.map((row) => row.id as string);

    const names = Object.keys(spec.includes);
    const loaded = await Promise.all(
      names.map((name) => (ids.length ? run(spec.includes[name]!, { org, ids }) : Promise.resolve([]))),
    );
    const maps = names.map((name, i) => {
      const include = shape.includes[name]!;
      const byOwner = new Map<unknown, unknown>();
      for (const row of loaded[i]!) {
        const owner = row[include.owner];
        if (include.many) {
          const list = byOwner.get(owner) as unknown[] | undefined;
          if (list) list.push(include.value(row));
          else byOwner.set(owner, [include.value(row)]);
        } else byOwner.set(owner, include.value(row));
      }
      return { name, include, byOwner };
    });
    const data = page.map((row) => {
      const record = shape.record(row);
      for (const { name, include, byOwner } of maps) record[name] = byOwner.get(row.id) ?? include.empty();
      return record;
    });
    if (spec.limit === null) return send(res, 200, data[0]);
    const last = page[page.length - 1];
    const nextCursor =
      rows.length > spec.limit && last
        ? Buffer.from(JSON.stringify({ b: spec.binding, v: last._sort ?? null, i: last.id })).toString('base64url')
        : null;
    send(res, 200, { data, nextCursor });
  }

  const server = createServer((req, res) => {
    const path = req.url?.split('?')[0] ?? '';
    if (req.method === 'GET' && (spec.limit === null ? path.startsWith(prefix) : path === prefix)) {
      answer(path, req.headers.authorization, res).catch(() => {
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
  server.listen(port, host, () => process.stdout.write(`${spec.route} floor listening on http://${host}:${port}\n`));
}

// Started as a script (the bench imports only the types).
if (process.env.FLOOR_SPEC) main();
