import fc from 'fast-check';
import { SERVER_PREFIX, type Operation, type Schema } from './openapi.js';
import { kindOfPathParameter, type OrganizationPool } from './pools.js';
import { filterArbitrary, type FilterField } from './filters.js';
import { parseBody, type RequestValidators } from './validators.js';
import { valueArbitrary, type ValueContext } from './values.js';

/** One generated request, ready for app.inject, with what was done to it and what it must get. */
export interface PlannedRequest {
  operation: string;
  method: Operation['method'];
  url: string;
  headers: Record<string, string>;
  payload: string | Buffer | undefined;
  /** What was done to it, e.g. "valid", "body:wrong-type", "auth:revoked". */
  label: string;
  /** The statuses it must get (429 is always allowed); undefined when any documented status will do. */
  expect: readonly number[] | undefined;
  /** Sent a second time with the same Idempotency-Key: the answer must be replayed (D16). */
  repeat: boolean;
}

export interface Keys {
  all: string;
  /** A test key with every permission (docs/api.md#test-mode): what a test-mode-only operation's requests carry. */
  test: string;
  revoked: string;
  /** Keys holding a few permissions each, to meet 403. */
  limited: { key: string; permissions: string[] }[];
}

/** A nextCursor harvested from a real page, with the sort it was issued for. */
export interface HarvestedCursor {
  cursor: string;
  sort: string | undefined;
}

/**
 * Stand-ins for the fuzzer's live dashboard session, put into requests when they are sent (bad-input.test.ts): the
 * session may have been ended by an earlier request (DELETE /session) and is then made again.
 */
export const LIVE_SESSION_COOKIE = 'patron_session=<live>';
export const LIVE_CSRF_TOKEN = '<live csrf token>';

/** The key a valid request of the operation carries: a test key for an operation that acts only on test data. */
const validKey = (operation: Operation, ctx: FuzzContext): string =>
  operation.testModeOnly ? ctx.keys.test : ctx.keys.all;

/** The cookie, and on writes the CSRF token, of a session-only operation's valid request. */
const sessionHeaders = (operation: Operation): Record<string, string> =>
  operation.access !== 'session'
    ? {}
    : { cookie: LIVE_SESSION_COOKIE, ...(operation.method === 'GET' ? {} : { 'x-csrf-token': LIVE_CSRF_TOKEN }) };

export interface FuzzContext extends ValueContext {
  keys: Keys;
  validators: RequestValidators;
  cursors: HarvestedCursor[];
  filterFields: FilterField[];
}

export type Mode = 'invalid' | 'mixed';

export const BODY_LIMIT_BYTES = 10 * 1024 * 1024;
const MAX_IMPORT_ROWS = 1000;
const REUSED_IDEMPOTENCY_KEYS = ['fuzz-key-1', 'fuzz-key-2'];

/** `raw`: put in the URL as is (not percent-encoded), for paths that are not valid encoding. */
type PathKind = 'real' | 'foreign' | 'random' | 'garbage' | 'raw';

/** The parts of a request before it is put on the wire; mutations rewrite them. */
interface Parts {
  pathValues: string[];
  pathKinds: PathKind[];
  query: [string, string][];
  /** The query is certainly refused by the list engine (cursor, include or filter semantics). */
  querySurelyInvalid: boolean;
  body: unknown;
  /** Replaces the JSON of `body` when set: raw encodings. */
  payload?: string | Buffer;
  contentType: string | null;
  authorization: string | null;
  headers: Record<string, string>;
  label: string;
  /** A status class the mutation alone decides (auth, permission, media type, size). */
  forced?: readonly number[];
  /** Everything is well-formed but a reference is missing: strict imports answer 422. */
  strictMiss?: boolean;
}

/** Requests for one operation: valid, boundary and invalid (mixed), or only ones that must be refused (invalid). */
export function requestArbitrary(operation: Operation, ctx: FuzzContext, mode: Mode): fc.Arbitrary<PlannedRequest> {
  const base = baseArbitrary(operation, ctx);
  const mutations = mutationArbitraries(operation, ctx);
  const mutated = fc.tuple(base, fc.oneof(...mutations)).map(([parts, mutate]) => mutate(parts));
  const planned = (
    mode === 'mixed' ? fc.oneof({ arbitrary: base, weight: 9 }, { arbitrary: mutated, weight: 11 }) : mutated
  ).map((parts) => finish(operation, ctx, parts));
  return mode === 'invalid'
    ? planned.filter((request) => request.expect !== undefined && request.expect.every((status) => status >= 400))
    : planned;
}

// ---------------------------------------------------------------------------------------------------------------
// Valid requests

function baseArbitrary(operation: Operation, ctx: FuzzContext): fc.Arbitrary<Parts> {
  const path = pathArbitrary(operation, ctx);
  const query = validQueryArbitrary(operation, ctx);
  const body = operation.body ? valueArbitrary(operation.body, ctx) : fc.constant(undefined);
  // The dashboard's own endpoints keep no Idempotency-Key answers (docs/api.md#dashboard-sessions).
  const idempotency =
    operation.method === 'POST' && operation.access === 'key'
      ? fc.oneof(
          { arbitrary: fc.constant(undefined), weight: 6 },
          { arbitrary: fc.uuid(), weight: 2 },
          { arbitrary: fc.uuid().map((uuid) => `repeat-${uuid}`), weight: 1 },
          { arbitrary: fc.constantFrom(...REUSED_IDEMPOTENCY_KEYS), weight: 1 },
        )
      : fc.constant(undefined);
  const requestId = fc.option(fc.constantFrom('fuzz-1', 'a'.repeat(129), 'bad id with spaces', 'x:y.z-1'), { freq: 4 });
  return fc
    .record({ path, query, body, idempotency, requestId })
    .map(({ path, query, body, idempotency, requestId }) => ({
      pathValues: path.map((entry) => entry.value),
      pathKinds: path.map((entry) => entry.kind),
      query,
      querySurelyInvalid: false,
      body,
      // A file body (an import job's) is sent as an empty file of its first media type: the job it makes reads no row.
      ...(operation.fileMediaTypes ? { payload: '' } : {}),
      contentType: operation.fileMediaTypes
        ? operation.fileMediaTypes[0]!
        : body === undefined
          ? null
          : 'application/json',
      authorization: operation.access === 'key' ? `Bearer ${validKey(operation, ctx)}` : null,
      headers: {
        ...sessionHeaders(operation),
        ...(idempotency ? { 'idempotency-key': idempotency } : {}),
        ...(requestId ? { 'x-request-id': requestId } : {}),
      },
      label: 'valid',
    }));
}

const GARBAGE_IDS = [
  'abc',
  '1',
  '0',
  'null',
  'undefined',
  '00000000000000000000000000000000',
  'ffffffff-ffff-ffff-ffff-fffffffffffff',
  '{id}',
  ' ',
  "1' or '1'='1",
  '%00',
  '日本',
  'a'.repeat(300),
];

function pathArbitrary(operation: Operation, ctx: FuzzContext): fc.Arbitrary<{ value: string; kind: PathKind }[]> {
  if (operation.pathParams.length === 0) return fc.constant([]);
  const kinds = operation.pathParams.map((parameter) => kindOfPathParameter(operation.path, parameter.name));
  const nested = kinds.join(',');
  const pairsOf = (pool: OrganizationPool) =>
    nested === 'products,variants'
      ? pool.variantPairs
      : nested === 'webhooks,deliveries'
        ? pool.deliveryPairs
        : nested === 'wishlists,wishlistItems'
          ? pool.wishlistItemPairs
          : undefined;
  const ownPairs = pairsOf(ctx.own);
  if (ownPairs && ownPairs.length > 0) {
    // Nested parameters that belong together most of the time, so the request reaches the record.
    const together = fc
      .constantFrom(...ownPairs)
      .map((pair) => pair.map((value) => ({ value, kind: 'real' as PathKind })));
    return fc.oneof(
      { arbitrary: together, weight: 3 },
      { arbitrary: fc.tuple(...kinds.map((kind) => oneId(kind, ctx))), weight: 1 },
    );
  }
  return fc.tuple(...kinds.map((kind) => oneId(kind, ctx)));
}

function oneId(
  kind: ReturnType<typeof kindOfPathParameter>,
  ctx: FuzzContext,
): fc.Arbitrary<{ value: string; kind: PathKind }> {
  const own = kind ? ctx.own.ids[kind] : [];
  const foreign = kind ? ctx.foreign.ids[kind] : [];
  const options: fc.WeightedArbitrary<{ value: string; kind: PathKind }>[] = [
    { arbitrary: fc.uuid().map((value) => ({ value, kind: 'random' as PathKind })), weight: 1 },
  ];
  if (own.length)
    options.push({
      arbitrary: fc.constantFrom(...own).map((value) => ({ value, kind: 'real' as PathKind })),
      weight: 8,
    });
  if (own.length)
    options.push({
      arbitrary: fc.constantFrom(...own).map((value) => ({ value: value.toUpperCase(), kind: 'real' as PathKind })),
      weight: 1,
    });
  if (foreign.length)
    options.push({
      arbitrary: fc.constantFrom(...foreign).map((value) => ({ value, kind: 'foreign' as PathKind })),
      weight: 1,
    });
  return fc.oneof(...options);
}

function garbageId(): fc.Arbitrary<string> {
  // Not "." or "..": clients resolve those segments before sending (/orders/. is /orders/), so the request would
  // reach another operation.
  const text = fc
    .string({ minLength: 1, maxLength: 40, unit: 'grapheme' })
    .filter((value) => value !== '.' && value !== '..');
  return fc.oneof(
    fc.constantFrom(...GARBAGE_IDS),
    fc.uuid().map((uuid) => `${uuid}0`),
    fc.uuid().map((uuid) => uuid.replace(/-/g, '')),
    text,
  );
}

function validQueryArbitrary(operation: Operation, ctx: FuzzContext): fc.Arbitrary<[string, string][]> {
  const byName = new Map(operation.queryParams.map((parameter) => [parameter.name, parameter]));
  const parts: fc.Arbitrary<[string, string][]>[] = [];
  const optional = (arbitrary: fc.Arbitrary<[string, string][]>, freq = 2) =>
    fc.option(arbitrary, { freq, nil: [] as [string, string][] });
  const sortValues = enumOf(byName.get('sort')?.schema);
  if (byName.has('limit'))
    parts.push(
      optional(fc.oneof(fc.integer({ min: 1, max: 250 }), fc.constantFrom(1, 250)).map((n) => [['limit', String(n)]])),
    );
  if (byName.has('cursor') && ctx.cursors.length) {
    // A real cursor travels with the sort it was issued for (D8 binds it), and without filter or search.
    parts.push(
      optional(
        fc.constantFrom(...ctx.cursors).map(
          ({ cursor, sort }) =>
            (sort
              ? [
                  ['cursor', cursor],
                  ['sort', sort],
                ]
              : [['cursor', cursor]]) as [string, string][],
        ),
        3,
      ),
    );
  } else if (sortValues.length) {
    parts.push(optional(fc.constantFrom(...sortValues).map((sort) => [['sort', sort]])));
  }
  if (byName.has('search'))
    parts.push(
      optional(
        fc
          .constantFrom('a', 'Ann', 'product', 'customer1', '%', '_', 'x y', 'ünï', '#100')
          .map((search) => [['search', search]]),
        4,
      ),
    );
  if (byName.has('filter') && !(byName.has('cursor') && ctx.cursors.length)) {
    parts.push(optional(filterArbitrary(ctx.filterFields, ctx).map((filter) => [['filter', filter]])));
  }
  const includes = includesOf(byName.get('include'));
  if (includes.length)
    parts.push(optional(fc.subarray(includes, { minLength: 1 }).map((names) => [['include', names.join(',')]])));
  for (const parameter of operation.queryParams) {
    if (!['limit', 'cursor', 'sort', 'search', 'filter', 'include'].includes(parameter.name)) {
      parts.push(
        optional(
          valueArbitrary(parameter.schema, ctx, parameter.name).map((value) => [[parameter.name, String(value)]]),
        ),
      );
    }
  }
  return parts.length ? fc.tuple(...parts).map((chunks) => chunks.flat()) : fc.constant([]);
}

function enumOf(schema: Schema | undefined): string[] {
  if (!schema) return [];
  if (Array.isArray(schema.enum)) return schema.enum;
  return (schema.anyOf ?? []).flatMap((branch: Schema) => branch.enum ?? ('const' in branch ? [branch.const] : []));
}

/** The extras an include parameter offers, from its documented description ("Comma-separated extras: a, b."). */
export function includesOf(parameter: { description?: string } | undefined): string[] {
  const match = /extras: (.*?)\.?$/.exec(parameter?.description ?? '');
  return match
    ? match[1]!
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean)
    : [];
}

// ---------------------------------------------------------------------------------------------------------------
// Mutations: each changes one thing about a valid request.

type Mutate = (parts: Parts) => Parts;

function mutationArbitraries(operation: Operation, ctx: FuzzContext): fc.WeightedArbitrary<Mutate>[] {
  const list: fc.WeightedArbitrary<Mutate>[] = [];
  // fast-check takes integer weights: twentieths keep the rare ones rare.
  const add = (weight: number, arbitrary: fc.Arbitrary<Mutate>) =>
    list.push({ arbitrary, weight: Math.round(weight * 20) });
  const takesBody = operation.body !== undefined;

  if (operation.access === 'session')
    sessionMutations(operation, ctx).forEach(([weight, arbitrary]) => add(weight, arbitrary));
  if (operation.access === 'public') {
    add(
      1,
      fc.constant<Mutate>((parts) => ({
        ...parts,
        headers: { ...parts.headers, origin: 'https://elsewhere.example' },
        label: 'auth:cross-origin',
        forced: [403],
      })),
    );
  }
  if (operation.access === 'key') keyMutations(operation, ctx).forEach(([weight, arbitrary]) => add(weight, arbitrary));

  if (takesBody || operation.method !== 'GET') {
    add(
      2,
      fc
        .constantFrom<[string, boolean]>(
          ['text/plain', true],
          ['application/x-www-form-urlencoded', true],
          ['multipart/form-data; boundary=x', true],
          ['application/xml', true],
          ['', true],
          ['application/json; charset=utf-8', false],
          ['APPLICATION/JSON', false],
          ['application/json;charset=latin1', true],
          // Only application/json itself: JSON-based media types are refused too.
          ['application/json-patch+json', true],
          ['application/vnd.api+json', true],
        )
        .map(([contentType, refused]) => (parts) => {
          const payload = JSON.stringify(parts.body ?? {});
          return {
            ...parts,
            payload,
            contentType: contentType || null,
            label: `content-type:${contentType || 'none'}`,
            ...(refused ? { forced: [415] } : {}),
          };
        }),
    );
  }

  if (takesBody) {
    add(
      0.15,
      fc.constant((parts) => ({
        ...parts,
        payload: `{"data":"${'x'.repeat(BODY_LIMIT_BYTES)}"}`,
        label: 'body:over-10MiB',
        forced: [413],
      })),
    );
    add(3, malformedJsonArbitrary());
    add(10, schemaMutationArbitrary(operation, ctx));
    add(2, rawNumberArbitrary());
    add(1, deepNestingArbitrary());
    add(2, oddStringArbitrary());
    add(
      0.5,
      fc.constant((parts) => ({ ...parts, payload: '', label: 'body:empty' })),
    );
    const schema = ctx.resolve(operation.body!);
    if (schema.properties?.strict && ctx.resolve(schema.properties.data ?? {}).type === 'array') {
      add(1.5, strictMissArbitrary(operation, ctx));
      add(
        0.1,
        fc.constant((parts) => {
          const rows =
            Array.isArray((parts.body as any)?.data) && (parts.body as any).data.length
              ? (parts.body as any).data
              : [{}];
          const data = Array.from({ length: MAX_IMPORT_ROWS + 1 }, (_, i) => rows[i % rows.length]);
          return {
            ...parts,
            body: { ...(parts.body as object), data },
            label: 'body:over-1000-rows',
            forced: [400, 413],
          };
        }),
      );
    }
  } else if (operation.method !== 'GET') {
    add(
      1,
      fc
        .constantFrom('{}', '{"unexpected":1}', '[]', 'null')
        .map((payload) => (parts) => ({ ...parts, payload, contentType: 'application/json', label: 'body:stray' })),
    );
  }

  if (operation.pathParams.length) {
    const index = fc.nat({ max: operation.pathParams.length - 1 });
    add(
      4,
      fc.tuple(index, garbageId()).map(
        ([i, value]) =>
          (parts) =>
            replacePath(parts, i, value, 'garbage'),
      ),
    );
    add(
      3,
      fc.tuple(index, fc.uuid()).map(
        ([i, value]) =>
          (parts) =>
            replacePath(parts, i, value, 'random'),
      ),
    );
    add(
      1,
      fc.tuple(index, fc.constantFrom('%E0%A4%A', '%zz', '%', 'abc%FF', 'a'.repeat(101), '%C0%AF')).map(
        ([i, value]) =>
          (parts) =>
            replacePath(parts, i, value, 'raw'),
      ),
    );
    const foreignPools = operation.pathParams.map((parameter) => {
      const kind = kindOfPathParameter(operation.path, parameter.name);
      return kind ? ctx.foreign.ids[kind] : [];
    });
    if (foreignPools.some((pool) => pool.length)) {
      add(
        3,
        fc.tuple(index, fc.nat()).map(([i, n]) => (parts) => {
          const pool = foreignPools[i]!;
          return pool.length
            ? replacePath(parts, i, pool[n % pool.length]!, 'foreign')
            : replacePath(parts, i, '0', 'garbage');
        }),
      );
    }
  }

  add(4, queryMutationArbitrary(operation, ctx));

  if (operation.method === 'POST' && operation.access === 'key') {
    add(
      1,
      fc.constantFrom('a'.repeat(256), 'has space', 'tab\tkey', 'caf\u00e9', '').map((key) => (parts) => ({
        ...parts,
        headers: { ...parts.headers, 'idempotency-key': key },
        label: 'header:idempotency-key',
        querySurelyInvalid: true,
      })),
    );
  }
  return list;
}

/** Auth mutations of a key's request: missing, malformed, unknown, revoked (401) and lacking the permission (403). */
function keyMutations(operation: Operation, ctx: FuzzContext): [number, fc.Arbitrary<Mutate>][] {
  const list: [number, fc.Arbitrary<Mutate>][] = [];
  const add = (weight: number, arbitrary: fc.Arbitrary<Mutate>) => list.push([weight, arbitrary]);
  add(
    2,
    fc
      .constantFrom<[string, string | null]>(
        ['missing', null],
        ['malformed', 'Bearer'],
        ['malformed', 'Basic dXNlcjpwYXNz'],
        ['malformed', 'Bearer sk_short'],
        ['malformed', `Bearer ${validKey(operation, ctx)} extra`],
        ['malformed', `Token ${validKey(operation, ctx)}`],
        ['malformed', 'Bearer \u00ff\u00fe'],
        ['unknown', `Bearer sk_${'A1b2C3d4E5'.repeat(4)}`],
        ['revoked', `Bearer ${ctx.keys.revoked}`],
      )
      .map(([why, authorization]) => (parts) => ({ ...parts, authorization, label: `auth:${why}`, forced: [401] })),
  );
  add(
    1,
    fc
      .constantFrom(`bearer ${validKey(operation, ctx)}`, `Bearer   ${validKey(operation, ctx)}  `)
      .map((authorization) => (parts) => ({ ...parts, authorization, label: 'auth:odd-but-valid' })),
  );

  if (operation.testModeOnly) {
    add(
      1,
      fc.constant<Mutate>((parts) => ({
        ...parts,
        authorization: `Bearer ${ctx.keys.all}`,
        label: 'auth:live-key',
        forced: [403],
      })),
    );
  }

  const lacking = ctx.keys.limited.filter((key) => !key.permissions.includes(operation.permission));
  if (operation.permission !== 'any' && lacking.length) {
    add(
      1,
      fc.constantFrom(...lacking).map(({ key }) => (parts) => ({
        ...parts,
        authorization: `Bearer ${key}`,
        label: 'auth:forbidden',
        forced: [403],
      })),
    );
  }
  return list;
}

/**
 * Auth mutations of a session-only operation (docs/api.md#dashboard-sessions): no or an unknown session (401), a key
 * instead (403), and on writes a missing or wrong CSRF token or another Origin (403).
 */
function sessionMutations(operation: Operation, ctx: FuzzContext): [number, fc.Arbitrary<Mutate>][] {
  const without = (headers: Record<string, string>, name: string) =>
    Object.fromEntries(Object.entries(headers).filter(([header]) => header !== name));
  const changes: [string, (parts: Parts) => Partial<Parts>, number][] = [
    ['no-session', (parts) => ({ headers: without(parts.headers, 'cookie') }), 401],
    [
      'unknown-session',
      (parts) => ({ headers: { ...parts.headers, cookie: `patron_session=${'A'.repeat(43)}` } }),
      401,
    ],
    ['key-instead', () => ({ authorization: `Bearer ${ctx.keys.all}` }), 403],
  ];
  if (operation.method !== 'GET') {
    changes.push(
      ['csrf-missing', (parts) => ({ headers: without(parts.headers, 'x-csrf-token') }), 403],
      ['csrf-wrong', (parts) => ({ headers: { ...parts.headers, 'x-csrf-token': 'not-the-token' } }), 403],
      ['cross-origin', (parts) => ({ headers: { ...parts.headers, origin: 'https://elsewhere.example' } }), 403],
    );
  }
  return [
    [
      3,
      fc.constantFrom(...changes).map(([why, change, status]) => (parts: Parts) => ({
        ...parts,
        ...change(parts),
        label: `auth:${why}`,
        forced: [status],
      })),
    ],
  ];
}

function replacePath(parts: Parts, index: number, value: string, kind: PathKind): Parts {
  const pathValues = [...parts.pathValues];
  const pathKinds = [...parts.pathKinds];
  pathValues[index] = value;
  pathKinds[index] = kind;
  return { ...parts, pathValues, pathKinds, label: `path:${kind}` };
}

function malformedJsonArbitrary(): fc.Arbitrary<Mutate> {
  return fc
    .tuple(
      fc.nat(),
      fc.constantFrom(
        'truncated',
        'trailing',
        'single-quotes',
        'nan',
        'comment',
        'utf16',
        'invalid-utf8',
        'proto',
        'constructor',
        'bom',
        'bare-value',
      ),
    )
    .map(([n, how]) => (parts) => {
      const json = JSON.stringify(parts.body ?? {});
      let payload: string | Buffer;
      switch (how) {
        case 'truncated':
          payload = json.slice(0, n % Math.max(json.length - 1, 1));
          break;
        case 'trailing':
          payload = `${json}}`;
          break;
        case 'single-quotes':
          payload = json.replace(/"/g, "'");
          break;
        case 'nan':
          payload = json.replace(/^\{/, '{"n":NaN,');
          break;
        case 'comment':
          payload = `/* c */${json}`;
          break;
        case 'utf16':
          payload = Buffer.from(json, 'utf16le');
          break;
        case 'invalid-utf8':
          payload = Buffer.concat([Buffer.from([0xff, 0xfe, 0xc0]), Buffer.from(json)]);
          break;
        case 'proto':
          payload = json.replace(/^\{/, '{"__proto__":{"polluted":true},');
          break;
        case 'constructor':
          payload = json.replace(/^\{/, '{"constructor":{"prototype":{"polluted":true}},');
          break;
        case 'bom':
          payload = `\ufeff${json}`;
          break;
        default:
          payload = ['1', '"text"', 'true', 'null', '[]', '[{}]'][n % 6]!;
      }
      return { ...parts, payload, label: `json:${how}` };
    });
}

/** A location in a body value with the schema that governs it. */
interface Site {
  path: (string | number)[];
  schema: Schema;
  value: unknown;
}

function sitesOf(
  value: unknown,
  schema: Schema,
  ctx: FuzzContext,
  path: (string | number)[] = [],
  out: Site[] = [],
  depth = 0,
): Site[] {
  const resolved = narrow(ctx.resolve(schema), value, ctx);
  out.push({ path, schema: resolved, value });
  if (depth > 8) return out;
  if (Array.isArray(value)) {
    value.forEach((item, i) => sitesOf(item, resolved.items ?? {}, ctx, [...path, i], out, depth + 1));
  } else if (value && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      const innerSchema =
        resolved.properties?.[key] ??
        (typeof resolved.additionalProperties === 'object' ? resolved.additionalProperties : {});
      sitesOf(inner, innerSchema, ctx, [...path, key], out, depth + 1);
    }
  }
  return out;
}

/** The branch of an anyOf or discriminated union that a value was generated from. */
function narrow(schema: Schema, value: unknown, ctx: FuzzContext): Schema {
  if (Array.isArray(schema.anyOf)) {
    const branch = schema.anyOf.map((b: Schema) => ctx.resolve(b)).find((b: Schema) => matchesType(b, value));
    return branch ? narrow(branch, value, ctx) : schema;
  }
  if (Array.isArray(schema.allOf) && value && typeof value === 'object') {
    const type = (value as { type?: unknown }).type;
    const part = schema.allOf.find((p: Schema) => p.if?.properties?.type?.enum?.includes(type));
    return part?.then ? ctx.resolve(part.then) : schema;
  }
  return schema;
}

function matchesType(schema: Schema, value: unknown): boolean {
  const type = schema.type ?? (schema.enum ? typeof schema.enum[0] : undefined);
  if (value === null) return type === 'null';
  if (Array.isArray(value)) return type === 'array';
  if (type === 'integer') return Number.isInteger(value);
  return type === typeof value;
}

function setAt(root: unknown, path: (string | number)[], replace: (value: unknown) => unknown): unknown {
  if (path.length === 0) return replace(root);
  const copy: any = Array.isArray(root) ? [...root] : { ...(root as object) };
  const [head, ...rest] = path;
  copy[head!] = setAt(copy[head!], rest, replace);
  return copy;
}

const REMOVE = Symbol('remove');

function schemaMutationArbitrary(operation: Operation, ctx: FuzzContext): fc.Arbitrary<Mutate> {
  return fc.tuple(fc.nat(), fc.nat(), fc.nat()).map(([siteSeed, howSeed, salt]) => (parts) => {
    const sites = sitesOf(parts.body, operation.body!, ctx);
    const site = sites[siteSeed % sites.length]!;
    const options = violationsFor(site, salt);
    const [how, replacement] = options[howSeed % options.length]!;
    let body = setAt(parts.body, site.path, () => replacement);
    if (replacement === REMOVE) {
      const parent = site.path.slice(0, -1);
      const key = site.path[site.path.length - 1]!;
      body = setAt(parts.body, parent, (value) => {
        const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
        if (Array.isArray(copy)) copy.splice(Number(key), 1);
        else delete copy[key];
        return copy;
      });
    }
    // An array bounded by the operation itself, not by validation (import rows): the document names its status; rows
    // that are themselves invalid are refused by validation first (400).
    const overStatus = (site.schema as Record<string, unknown>)['x-over-max-items-status'];
    if (how === 'too-many-items' && typeof overStatus === 'number')
      return { ...parts, body, label: `body:${how}`, forced: [400, overStatus] };
    return { ...parts, body, label: `body:${how}` };
  });
}

function violationsFor(site: Site, salt: number): [string, unknown][] {
  const { schema, value } = site;
  const out: [string, unknown][] = [
    ['null', null],
    ['wrong-type-number', 42],
    ['wrong-type-string', 'text'],
    ['wrong-type-boolean', true],
    ['wrong-type-array', []],
    ['wrong-type-object', {}],
    ['float', 1.5],
  ];
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    out.push(
      ['unknown-field', { ...value, unexpectedField: 1 }],
      ['unknown-field-case', { ...value, [`${Object.keys(value)[0] ?? 'x'}X`]: 1 }],
    );
    const required: string[] = schema.required ?? [];
    const present = required.filter((key) => key in value);
    if (present.length) {
      const key = present[salt % present.length]!;
      const copy = { ...value } as Record<string, unknown>;
      delete copy[key];
      out.push(['missing-required', copy]);
    }
  }
  if (site.path.length > 0) out.push(['removed', REMOVE]);
  if (typeof schema.maxLength === 'number') out.push(['too-long', 'y'.repeat(schema.maxLength + 1)]);
  if ((schema.minLength ?? 0) > 0) out.push(['too-short', 'y'.repeat(schema.minLength - 1)]);
  if (schema.type === 'string') {
    out.push(['huge-string', 'z'.repeat(1_000_000)]);
    if (schema.format === 'uuid') out.push(['bad-uuid', 'not-a-uuid']);
    if (schema.format === 'date-time')
      out.push(['no-offset', '2026-01-01T00:00:00'], ['bad-date', '2026-13-45T25:61:00Z'], ['date-only', '2026-01-01']);
    if (schema.format === 'email') out.push(['bad-email', 'not an email']);
    if (schema.pattern) out.push(['pattern', `${String(value ?? '')}!\u0000`]);
  }
  if (Array.isArray(schema.enum)) out.push(['not-in-enum', 'notAValue']);
  if (schema.type === 'integer' || schema.type === 'number') {
    if (typeof schema.maximum === 'number')
      out.push(['above-maximum', schema.maximum + 1], ['far-above-maximum', schema.maximum * 4 + 1e6]);
    if (typeof schema.minimum === 'number') out.push(['below-minimum', schema.minimum - 1]);
    out.push(['beyond-2^53', 2 ** 53 + 2], ['minus-beyond-2^53', -(2 ** 53) - 2], ['huge-float', 1e300]);
  }
  if (schema.type === 'array') {
    if (typeof schema.maxItems === 'number' && schema.maxItems <= 1000)
      out.push([
        'too-many-items',
        Array.from({ length: schema.maxItems + 1 }, (_, i) =>
          Array.isArray(value) && value.length ? value[i % value.length] : i,
        ),
      ]);
    if ((schema.minItems ?? 0) > 0) out.push(['too-few-items', []]);
  }
  if (schema.type === 'object' && typeof schema.maxProperties === 'number') {
    out.push([
      'too-many-properties',
      Object.fromEntries(Array.from({ length: schema.maxProperties + 1 }, (_, i) => [`k${i}`, 'v'])),
    ]);
  }
  return out;
}

const MARKER_VALUE = 'fuzz-marker-7f3a9c';
const MARKER = JSON.stringify(MARKER_VALUE);

function rawNumberArbitrary(): fc.Arbitrary<Mutate> {
  const numbers = [
    '9007199254740993',
    '-9007199254740993',
    '1e400',
    '-1e400',
    '1e-400',
    '-0',
    '1E2',
    '0.1e1',
    '123456789012345678901234567890',
    '1.0',
    '00',
    '+1',
    '.5',
    '0x10',
  ];
  return fc.tuple(fc.nat(), fc.constantFrom(...numbers)).map(([siteSeed, number]) => (parts) => {
    const numeric: (string | number)[][] = [];
    const walk = (value: unknown, path: (string | number)[]) => {
      if (typeof value === 'number') numeric.push(path);
      else if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...path, i]));
      else if (value && typeof value === 'object')
        for (const [key, inner] of Object.entries(value)) walk(inner, [...path, key]);
    };
    walk(parts.body, []);
    const target = numeric.length ? numeric[siteSeed % numeric.length]! : ['unexpectedNumber'];
    const marked = setAt(parts.body ?? {}, target, () => MARKER_VALUE);
    return { ...parts, payload: JSON.stringify(marked).replace(MARKER, number), label: `number:${number}` };
  });
}

function deepNestingArbitrary(): fc.Arbitrary<Mutate> {
  return fc
    .tuple(fc.constantFrom(64, 1000, 20_000), fc.boolean(), fc.nat())
    .map(([depth, arrays, siteSeed]) => (parts) => {
      const open = arrays ? '['.repeat(depth) : '{"a":'.repeat(depth);
      const close = arrays ? ']'.repeat(depth) : '}'.repeat(depth);
      const paths: (string | number)[][] = [];
      const walk = (value: unknown, path: (string | number)[]) => {
        if (value && typeof value === 'object' && !Array.isArray(value)) {
          for (const [key, inner] of Object.entries(value)) {
            paths.push([...path, key]);
            walk(inner, [...path, key]);
          }
        }
      };
      walk(parts.body, []);
      const target = paths.length ? paths[siteSeed % paths.length]! : ['nested'];
      const marked = setAt(parts.body ?? {}, target, () => MARKER_VALUE);
      return {
        ...parts,
        payload: JSON.stringify(marked).replace(MARKER, `${open}1${close}`),
        label: `json:deep-${arrays ? 'arrays' : 'objects'}-${depth}`,
      };
    });
}

function oddStringArbitrary(): fc.Arbitrary<Mutate> {
  const odd = [
    'nul\u0000char',
    '\ud800',
    'emoji 😀 \u202e rtl',
    "'; drop table orders; --",
    '%_\\',
    '<script>',
    ' ',
    '\n',
    'a\u0000',
  ];
  return fc.tuple(fc.nat(), fc.constantFrom(...odd), fc.boolean()).map(([siteSeed, text, rawBytes]) => (parts) => {
    const strings: (string | number)[][] = [];
    const walk = (value: unknown, path: (string | number)[]) => {
      if (typeof value === 'string') strings.push(path);
      else if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...path, i]));
      else if (value && typeof value === 'object')
        for (const [key, inner] of Object.entries(value)) walk(inner, [...path, key]);
    };
    walk(parts.body, []);
    if (!strings.length) return { ...parts, label: 'body:no-strings' };
    const target = strings[siteSeed % strings.length]!;
    if (rawBytes) {
      // Bytes that are not UTF-8 inside a JSON string: decoded as U+FFFD.
      const marked = JSON.stringify(setAt(parts.body, target, () => MARKER_VALUE));
      const [before, after] = marked.split(MARKER) as [string, string];
      return {
        ...parts,
        payload: Buffer.concat([
          Buffer.from(`${before}"a`),
          Buffer.from([0xc3, 0x28, 0xa0, 0xff]),
          Buffer.from(`b"${after}`),
        ]),
        label: 'body:non-utf8-string',
      };
    }
    return { ...parts, body: setAt(parts.body, target, () => text), label: `body:odd-string` };
  });
}

function strictMissArbitrary(operation: Operation, ctx: FuzzContext): fc.Arbitrary<Mutate> {
  const row = valueArbitrary(ctx.resolve(ctx.resolve(operation.body!).properties.data).items, ctx);
  return fc.tuple(row, fc.uuid()).map(([generated, missing]) => (parts) => {
    const references = ['site', 'customer', 'loyaltyMembershipId', 'sites'];
    const bad: Record<string, unknown> = { ...(generated as object) };
    let touched = false;
    for (const key of references) {
      if (key in bad || (key === 'customer' && 'customer' in (generated as object))) {
        bad[key] =
          key === 'sites'
            ? [`missing-${missing}.example`]
            : key === 'loyaltyMembershipId'
              ? missing
              : `missing-${missing}`;
        touched = true;
      }
    }
    if (!touched) return { ...parts, label: 'body:strict-without-references' };
    const rows = Array.isArray((parts.body as any)?.data) ? (parts.body as any).data : [];
    return {
      ...parts,
      body: { ...(parts.body as object), data: [...rows, bad], strict: true },
      label: 'body:strict-missing-reference',
      strictMiss: true,
    };
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Query mutations

function queryMutationArbitrary(operation: Operation, ctx: FuzzContext): fc.Arbitrary<Mutate> {
  const names = new Set(operation.queryParams.map((parameter) => parameter.name));
  const options: fc.Arbitrary<Mutate>[] = [];
  const append =
    (entries: [string, string][], label: string, surely = false): Mutate =>
    (parts) => ({
      ...parts,
      query: [...parts.query.filter(([name]) => !entries.some(([replaced]) => replaced === name)), ...entries],
      querySurelyInvalid: surely,
      label: `query:${label}`,
    });
  options.push(
    fc
      .constantFrom('unexpected', 'Limit', 'filter[id]', '__proto__', 'page')
      .map((name) => append([[name, '1']], 'unknown-parameter')),
  );
  if (names.has('limit')) {
    options.push(
      fc
        .constantFrom('0', '251', '-1', '1.5', 'abc', '', '1e2', ' 5', '0x10', '99999999999999999999', 'NaN')
        .map((limit) => append([['limit', limit]], `limit=${limit}`)),
    );
    options.push(
      fc.constant<Mutate>((parts) => ({
        ...parts,
        query: [...parts.query, ['limit', '1'], ['limit', '2']],
        label: 'query:repeated-limit',
      })),
    );
  }
  if (names.has('sort'))
    options.push(
      fc
        .constantFrom('unknown', '--createdAt', '+createdAt', 'createdAt,id', '', 'CREATEDAT')
        .map((sort) => append([['sort', sort]], `sort=${sort}`)),
    );
  if (names.has('search'))
    options.push(
      fc
        .constantFrom('', 'x'.repeat(201), 'nul\u0000', '%', '\\', "' or 1=1 --", '😀')
        .map((search) => append([['search', search]], 'search')),
    );
  const includes = includesOf(operation.queryParams.find((parameter) => parameter.name === 'include'));
  if (names.has('include')) {
    options.push(
      fc
        .constantFrom(
          'unknown',
          `${includes[0] ?? 'x'},unknown`,
          ',,',
          'CUSTOMER',
          ' ',
          `${includes[0] ?? 'x'}, ${includes[1] ?? 'y'}`,
        )
        .map((include) => {
          // Blank names are skipped (`include= ` asks for nothing); a non-blank unknown name is a 400.
          const surely = include.split(',').some((name) => name.trim() !== '' && !includes.includes(name.trim()));
          return append([['include', include]], `include=${include}`, surely);
        }),
    );
    if (includes.length)
      options.push(fc.constant(append([['include', [...includes, ...includes].join(',')]], 'include-repeated')));
  }
  if (names.has('filter')) {
    options.push(
      invalidFilterArbitrary(ctx).map(({ text, label }) => append([['filter', text]], `filter:${label}`, true)),
    );
    options.push(filterArbitrary(ctx.filterFields, ctx, true).map((text) => append([['filter', text]], 'filter:odd')));
  }
  if (names.has('cursor')) {
    options.push(
      cursorMutationArbitrary(ctx).map(({ entries, label, surely }) => append(entries, `cursor:${label}`, surely)),
    );
  }
  return fc.oneof(...options);
}

function invalidFilterArbitrary(ctx: FuzzContext): fc.Arbitrary<{ text: string; label: string }> {
  const field = ctx.filterFields.find((f) => f.type === 'uuid')?.name ?? 'id';
  const timeField = ctx.filterFields.find((f) => f.type === 'timestamp')?.name ?? 'createdAt';
  const deep = (n: number): unknown => (n === 0 ? { [field]: { $exists: true } } : { $and: [deep(n - 1)] });
  const cases: [string, string][] = [
    ['not-json', '{createdAt: 1}'],
    ['truncated', '{"id":'],
    ['array-root', '[]'],
    ['number-root', '42'],
    ['string-root', '"x"'],
    ['null-root', 'null'],
    ['unknown-field', '{"noSuchField":1}'],
    ['sql-field', '{"1=1; drop table orders":1}'],
    ['unknown-operator', `{"${field}":{"$regex":".*"}}`],
    ['where', '{"$where":"1"}'],
    ['in-not-array', `{"${field}":{"$in":"x"}}`],
    [
      'in-too-long',
      JSON.stringify({ [field]: { $in: Array.from({ length: 501 }, () => '00000000-0000-4000-8000-000000000000') } }),
    ],
    ['empty-or', '{"$or":[]}'],
    ['or-not-array', '{"$or":{}}'],
    ['not-array', '{"$not":[]}'],
    ['too-deep', JSON.stringify(deep(7))],
    [
      'too-many-conditions',
      JSON.stringify({ $and: Array.from({ length: 101 }, () => ({ [field]: { $exists: true } })) }),
    ],
    ['bad-uuid', `{"${field}":"not-a-uuid"}`],
    ['bad-timestamp', `{"${timeField}":{"$gte":"yesterday"}}`],
    ['timestamp-no-offset', `{"${timeField}":{"$gte":"2026-01-01T00:00:00"}}`],
    ['exists-not-boolean', `{"${field}":{"$exists":"yes"}}`],
    ['metadata-key-too-long', `{"metadata.${'k'.repeat(41)}":"v"}`],
    ['metadata-empty-key', '{"metadata.":"v"}'],
    ['proto', '{"__proto__":{"x":1}}'],
    ['nul-operand', `{"${timeField}":{"$gte":"2026\\u0000"}}`],
  ];
  return fc.constantFrom(...cases).map(([label, text]) => ({ label, text }));
}

function cursorMutationArbitrary(
  ctx: FuzzContext,
): fc.Arbitrary<{ entries: [string, string][]; label: string; surely: boolean }> {
  const garbage = fc
    .constantFrom(
      'abc',
      '!!!',
      'eyJ9',
      Buffer.from('{"b":"x","v":1,"i":"y"}').toString('base64url'),
      Buffer.from('null').toString('base64url'),
      'x'.repeat(2049),
      '%00',
    )
    .map((cursor) => ({
      entries: [['cursor', cursor]] as [string, string][],
      label: 'garbage',
      surely: cursor.length <= 2048,
    }));
  if (!ctx.cursors.length) return garbage;
  const real = fc.constantFrom(...ctx.cursors);
  const tampered = fc
    .tuple(
      real,
      fc.nat(),
      fc.constantFrom(
        'truncate',
        'flip',
        'binding',
        'id',
        'value-type',
        'value-huge',
        'value-edge',
        'value-nul',
        'value-object',
        'other-sort',
        'with-filter',
        'expired-field',
        'padding',
      ),
    )
    .map(([{ cursor, sort }, n, how]) => {
      const decoded = safeDecode(cursor);
      const encode = (payload: unknown) => Buffer.from(JSON.stringify(payload)).toString('base64url');
      const withSort = (value: string): [string, string][] =>
        sort
          ? [
              ['cursor', value],
              ['sort', sort],
            ]
          : [['cursor', value]];
      switch (how) {
        case 'truncate':
          return {
            entries: withSort(cursor.slice(0, Math.max(1, cursor.length - 1 - (n % 8)))),
            label: how,
            surely: true,
          };
        case 'flip': {
          const i = n % cursor.length;
          const flipped = cursor.slice(0, i) + (cursor[i] === 'A' ? 'B' : 'A') + cursor.slice(i + 1);
          return { entries: withSort(flipped), label: how, surely: false };
        }
        case 'binding':
          return { entries: withSort(encode({ ...decoded, b: 'AAAAAAAAAAAAAAAA' })), label: how, surely: true };
        case 'id':
          return { entries: withSort(encode({ ...decoded, i: 'not-a-uuid' })), label: how, surely: true };
        case 'value-type':
          return {
            entries: withSort(encode({ ...decoded, v: typeof decoded.v === 'number' ? 'text' : 12345 })),
            label: how,
            surely: false,
          };
        case 'value-huge':
          return {
            entries: withSort(encode({ ...decoded, v: typeof decoded.v === 'number' ? 1e300 : 'z'.repeat(1400) })),
            label: how,
            surely: false,
          };
        case 'value-edge': {
          // Well-formed for the cursor's own checks, out of range for the column: a timestamp that is no date, the
          // largest safe integer, a sort value longer than any stored one.
          const edges =
            typeof decoded.v === 'number'
              ? [Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 31]
              : [
                  '9999-99-99T99:99:99.999999Z',
                  '0000-01-01T00:00:00.000000Z',
                  '2016-12-31T23:59:60.000000Z',
                  'z'.repeat(600),
                ];
          return { entries: withSort(encode({ ...decoded, v: edges[n % edges.length] })), label: how, surely: false };
        }
        case 'value-nul':
          return { entries: withSort(encode({ ...decoded, v: 'a\u0000b' })), label: how, surely: false };
        case 'value-object':
          return { entries: withSort(encode({ ...decoded, v: { $gt: 1 } })), label: how, surely: true };
        case 'other-sort':
          return {
            entries: [
              ['cursor', cursor],
              ['sort', sort === '-createdAt' || !sort ? 'createdAt' : '-createdAt'],
            ] as [string, string][],
            label: how,
            surely: false,
          };
        case 'with-filter':
          return { entries: [...withSort(cursor), ['filter', '{}']] as [string, string][], label: how, surely: false };
        case 'expired-field':
          return { entries: withSort(encode({ ...decoded, exp: 1 })), label: how, surely: false };
        default:
          return { entries: withSort(`${cursor}==`), label: how, surely: false };
      }
    });
  return fc.oneof(garbage, tampered);
}

function safeDecode(cursor: string): Record<string, unknown> {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return {};
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Putting it on the wire, and what it must get

function finish(operation: Operation, ctx: FuzzContext, parts: Parts): PlannedRequest {
  const payload =
    parts.payload !== undefined ? parts.payload : parts.body === undefined ? undefined : JSON.stringify(parts.body);
  const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const index = operation.pathParams.findIndex((parameter) => parameter.name === name);
    return parts.pathKinds[index] === 'raw'
      ? parts.pathValues[index]!
      : encodeURIComponent(parts.pathValues[index] ?? '');
  });
  const query = parts.query
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join('&');
  const headers: Record<string, string> = { ...parts.headers };
  if (parts.authorization !== null) headers.authorization = parts.authorization;
  if (payload !== undefined && parts.contentType !== null) headers['content-type'] = parts.contentType;
  return {
    operation: operation.id,
    method: operation.method,
    url: `${SERVER_PREFIX}${path}${query ? `?${query}` : ''}`,
    headers,
    payload,
    label: parts.label,
    expect: expectation(operation, ctx, parts, payload),
    repeat: parts.headers['idempotency-key']?.startsWith('repeat-') ?? false,
  };
}

/** The statuses the request must get, following the order of checks (D14, then Fastify's lifecycle). */
function expectation(
  operation: Operation,
  ctx: FuzzContext,
  parts: Parts,
  payload: string | Buffer | undefined,
): readonly number[] | undefined {
  // The router refuses a path it cannot decode, or a parameter too long to be an id, before any hook runs.
  if (parts.pathKinds.includes('raw')) return [400];
  if (parts.forced?.includes(401) || parts.forced?.includes(403)) return parts.forced;
  if (operation.fileMediaTypes) return fileExpectation(operation, ctx, parts, payload);
  const size = payload === undefined ? 0 : Buffer.byteLength(payload);
  if (parts.forced?.includes(415) && size > 0) return parts.forced;
  if (size > BODY_LIMIT_BYTES) return [413];
  // Too many import rows: refused by the import with 413 (the document's x-over-max-items-status), before or instead
  // of validating the rows.
  if (parts.forced?.includes(413)) return parts.forced;
  const parsed = parseBody(payload);
  if (!parsed.ok) return [400];
  if (!ctx.validators.path(operation, parts.pathValues)) return [400];
  if (!ctx.validators.query(operation, parts.query)) return [400];
  if (operation.body && parsed.value !== undefined && !ctx.validators.body(operation, parsed.value)) return [400];
  const afterValidation = handlerExpectation(operation, parts, parsed.value);
  // Past validation, a POST's Idempotency-Key is claimed before the handler runs: a reused one is a 409 (D16).
  const keyed =
    operation.method === 'POST' && parts.headers['idempotency-key'] !== undefined && !parts.label.startsWith('header:');
  return afterValidation && keyed ? [...afterValidation, 409] : afterValidation;
}

/**
 * An operation whose body is a file (an import job's): another media type is 415 before the query is validated; a
 * bad path or query is 400; then the handler may still refuse an option the resource's import does not take (400),
 * and a reused Idempotency-Key is 409.
 */
function fileExpectation(
  operation: Operation,
  ctx: FuzzContext,
  parts: Parts,
  payload: string | Buffer | undefined,
): readonly number[] | undefined {
  const type = (parts.contentType ?? '').toLowerCase();
  const mediaType = type.split(';')[0]!.trim();
  const charset = /charset\s*=\s*"?([^";\s]+)/.exec(type)?.[1];
  const size = payload === undefined ? 0 : Buffer.byteLength(payload);
  const fileType = operation.fileMediaTypes!.includes(mediaType) && (!charset || /^utf-?8$/.test(charset));
  if ((size > 0 || parts.contentType !== null) && !fileType) return [415];
  if (size === 0 && parts.contentType === null) return [415];
  if (!ctx.validators.path(operation, parts.pathValues)) return [400];
  if (!ctx.validators.query(operation, parts.query)) return [400];
  const keyed = parts.headers['idempotency-key'] !== undefined && !parts.label.startsWith('header:');
  return keyed ? [202, 400, 409] : [202, 400];
}

/** What the handler must answer, for a request that passed validation. */
function handlerExpectation(operation: Operation, parts: Parts, body: unknown): readonly number[] | undefined {
  const missing = parts.pathKinds.some((kind) => kind === 'foreign' || kind === 'random');
  // A list checks its filter, cursor and include in the handler, before or after it finds the parent record.
  if (parts.querySurelyInvalid) return missing ? [400, 404] : [400];
  if (parts.forced) return parts.forced;
  if (body === undefined && operation.body) return undefined;
  const semanticQuery = parts.query.some(([name]) => ['filter', 'cursor', 'include', 'search'].includes(name));
  if (missing) return operation.body ? [400, 404, 409, 422] : [404, ...(semanticQuery ? [400] : [])];
  if (parts.strictMiss) return [400, 422];
  return undefined;
}

/** fast-check prints counterexamples with this: a request as one readable line, long payloads cut. */
export function describeRequest(request: PlannedRequest): string {
  const payload =
    request.payload === undefined
      ? ''
      : Buffer.isBuffer(request.payload)
        ? `<${request.payload.length} bytes>`
        : request.payload;
  const shown = payload.length > 400 ? `${payload.slice(0, 400)}… (${payload.length} chars)` : payload;
  return `[${request.label}] ${request.method} ${request.url} ${JSON.stringify(request.headers)} ${shown}`;
}
