/**
 * Property-based tests of the list engine through HTTP on GET /v1/products.
 *
 * Each run imports a random catalog into a fresh organization, then compares what the API returns (walking every
 * page) with an independent in-memory evaluator over the same rows, following the semantics in docs/api.md
 * ("Filter documents") and src/lists/filter.ts:
 * - a comparison with a missing value is false; $ne and $nin match missing values; $not is the exact complement;
 * - $contains / $startsWith ignore case;
 * - to-many paths (tags.name, variants.*) match when ANY related row matches, except a lone `null` / `$exists:
 *   false`, which mean that no related row has a value.
 *
 * Two primitives are taken from the database itself rather than re-implemented, because they depend on its
 * collation and character tables, which differ between PGlite and a PostgreSQL server's locale: the order of two
 * strings (text `<`) and the lower-case form used by ILIKE (`lower()`). They are fetched once per run for every
 * string involved (`order by` ranks and `lower(s)`); everything the engine adds on top (operators, missing
 * values, ANY semantics, logic, search escaping, sort direction, ties, keyset paging) is evaluated here
 * independently. That keeps the property sound on both engines while titles use unicode, `%`, `_` and `\`.
 *
 * The seed is fixed (override with FC_SEED=<n>, FC_RUNS=<n>); fast-check prints the seed and the shrunk
 * counterexample on failure.
 */
import fc from 'fast-check';
import { sql } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const SEED = Number(process.env.FC_SEED ?? 20260101);
const RUNS = Number(process.env.FC_RUNS ?? 40);
const db = () => t.testDatabase.database.db;

// ---------------------------------------------------------------------------------------------------------------
// The random catalog

const CHARS = ['a', 'b', 'A', 'B', 'é', 'É', 'ß', 'ı', 'İ', '日', '😀', '%', '_', '\\', ' ', "'", '-', '1', '9'];
const TEXT = fc.string({ unit: fc.constantFrom(...CHARS), minLength: 0, maxLength: 5 });
const WORDS = ['a', 'A', 'ab', 'b', 'Ab', 'é', 'É', '%', '_', '\\', 'a%b', 'a_b', '10', '9', '日本', "o'k", ''];
const WORD = fc.oneof(fc.constantFrom(...WORDS), TEXT);
const METADATA_KEYS = ['color', 'size', 'k%', 'k_1', 'ünï', "o'k", 'a.b', 'with space'];
const TAGS = ['vip', 'VIP', 'sale', '50%', 'a_b', 'été', 'x y', 'back\\slash'];
const VARIANT_SLUGS = ['s', 'S', 'm', 'l', 'x_l'];
const TIMES = [
  '2025-03-01T10:00:00.000Z',
  '2025-03-01T10:00:00.001Z',
  '2025-06-15T00:00:00.000Z',
  '2026-01-01T23:59:59.999Z',
];

const metadataArb = fc.dictionary(fc.constantFrom(...METADATA_KEYS), WORD, { maxKeys: 4 });

interface VariantSpec {
  slug: string;
  title: string;
  metadata: Record<string, string>;
}
interface ProductSpec {
  title: string;
  slugStem: string;
  metadata: Record<string, string>;
  tags: string[];
  variants: VariantSpec[];
  createdAt: string;
  wishlists: number;
}

const productArb: fc.Arbitrary<ProductSpec> = fc.record({
  title: WORD,
  slugStem: fc.constantFrom('a', 'A_', '%x', 'é', 'p'),
  metadata: metadataArb,
  tags: fc.uniqueArray(fc.constantFrom(...TAGS), { maxLength: 3 }),
  variants: fc.uniqueArray(fc.record({ slug: fc.constantFrom(...VARIANT_SLUGS), title: WORD, metadata: metadataArb }), {
    maxLength: 3,
    selector: (variant) => variant.slug,
  }),
  createdAt: fc.constantFrom(...TIMES),
  wishlists: fc.integer({ min: 0, max: 3 }),
});
const catalogArb = fc.oneof(
  { weight: 1, arbitrary: fc.array(productArb, { maxLength: 2 }) },
  { weight: 5, arbitrary: fc.array(productArb, { minLength: 6, maxLength: 14 }) },
);

/** The rows as the evaluator sees them, with the ids the database gave them. */
interface Row {
  id: string;
  slug: string;
  title: string;
  metadata: Record<string, string>;
  createdAt: number;
  wishlists: number;
  tags: string[];
  variants: (VariantSpec & { id: string })[];
}

async function loadCatalog(tenant: Tenant, specs: readonly ProductSpec[]): Promise<Row[]> {
  const rows = specs.map((spec, index) => ({
    slug: `${spec.slugStem}${index}`,
    title: spec.title,
    metadata: spec.metadata,
    tags: spec.tags,
    variants: spec.variants,
    createdAt: spec.createdAt,
  }));
  const response = await t.request({
    method: 'POST',
    url: '/v1/products/import',
    key: tenant.key,
    body: { data: rows },
  });
  expect(response.statusCode, response.body).toBe(200);
  const imported = response.json().data as { id: string; slug: string }[];
  const organizationId = tenant.organization.id;
  const variantIds = new Map(
    (
      await db()
        .selectFrom('product_variants')
        .select(['id', 'product_id', 'slug'])
        .where('organization_id', '=', organizationId)
        .execute()
    ).map((variant) => [`${variant.product_id}/${variant.slug}`, variant.id]),
  );
  const catalog = specs.map((spec, index) => {
    const id = imported[index]!.id;
    return {
      id,
      slug: rows[index]!.slug,
      title: spec.title,
      metadata: spec.metadata,
      createdAt: Date.parse(spec.createdAt),
      wishlists: spec.wishlists,
      tags: spec.tags,
      variants: spec.variants.map((variant) => ({ ...variant, id: variantIds.get(`${id}/${variant.slug}`)! })),
    };
  });
  for (const row of catalog) {
    // A product without a counter row counts 0 (migration 0031).
    if (row.wishlists)
      await db()
        .insertInto('product_wishlist_counts')
        .values({ organization_id: organizationId, product_id: row.id, wishlists_count: row.wishlists })
        .execute();
  }
  return catalog;
}

// ---------------------------------------------------------------------------------------------------------------
// The database's string primitives (see the header comment)

interface Collation {
  rank(text: string): number;
  lower(text: string): string;
}

async function collationFor(strings: Iterable<string>): Promise<Collation> {
  const distinct = [...new Set(strings)];
  const { rows } = await sql<{ s: string; l: string; r: number }>`
    select s, lower(s) as l, (rank() over (order by s))::int as r from unnest(${distinct}::text[]) as s`.execute(db());
  const ranks = new Map(rows.map((row) => [row.s, row.r]));
  const lowers = new Map(rows.map((row) => [row.s, row.l]));
  const known = <T>(map: Map<string, T>, text: string): T => {
    if (!map.has(text)) throw new Error(`string not collected for the oracle: ${JSON.stringify(text)}`);
    return map.get(text)!;
  };
  return { rank: (text) => known(ranks, text), lower: (text) => known(lowers, text) };
}

function catalogStrings(catalog: readonly Row[]): string[] {
  return catalog.flatMap((row) => [
    row.title,
    row.slug,
    ...Object.values(row.metadata),
    ...row.tags,
    ...row.variants.flatMap((variant) => [variant.slug, variant.title, ...Object.values(variant.metadata)]),
  ]);
}

/** Every string a JSON value holds (operands, search text). */
function stringsIn(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) value.forEach((item) => stringsIn(item, into));
  else if (value && typeof value === 'object') Object.values(value).forEach((item) => stringsIn(item, into));
  return into;
}

// ---------------------------------------------------------------------------------------------------------------
// Random filter documents. Ids are unknown until the catalog is imported, so uuid operands are references
// (UuidRef) resolved afterwards; everything else is the literal JSON that is sent.

class UuidRef {
  constructor(
    readonly index: number,
    readonly variant: boolean,
    readonly upper: boolean,
    readonly missing: boolean,
  ) {}
  toString() {
    return `UuidRef(${this.index},${this.variant},${this.upper},${this.missing})`;
  }
}

type FieldType = 'string' | 'uuid' | 'timestamp';
interface FieldSpec {
  path: string;
  type: FieldType;
}

const FIELDS: FieldSpec[] = [
  { path: 'id', type: 'uuid' },
  { path: 'slug', type: 'string' },
  { path: 'title', type: 'string' },
  { path: 'createdAt', type: 'timestamp' },
  { path: 'tags.name', type: 'string' },
  { path: 'variants.id', type: 'uuid' },
  { path: 'variants.slug', type: 'string' },
  { path: 'variants.title', type: 'string' },
  ...METADATA_KEYS.flatMap((key) => [
    { path: `metadata.${key}`, type: 'string' as const },
    { path: `variants.metadata.${key}`, type: 'string' as const },
  ]),
];

/** A string of the catalog (or a part of one), resolved once the catalog exists, so operands often hit. */
class TextRef {
  constructor(
    readonly path: string,
    readonly index: number,
    readonly start: number,
    readonly length: number,
    /** Operands in another case than the value test case-insensitivity. */
    readonly letterCase: 'same' | 'upper' | 'lower',
  ) {}
  toString() {
    return `TextRef(${this.path},${this.index},${this.start},${this.length},${this.letterCase})`;
  }
}
const textRef = (path: string, part: boolean) =>
  fc
    .record({
      index: fc.nat(200),
      start: fc.nat(4),
      length: fc.integer({ min: 1, max: 4 }),
      letterCase: fc.constantFrom('same', 'same', 'upper', 'lower'),
    })
    .map(({ index, start, length, letterCase }) =>
      part ? new TextRef(path, index, start, length, letterCase) : new TextRef(path, index, 0, 0, 'same'),
    );
const stringOperand = (path: string) =>
  fc.oneof(
    { weight: 4, arbitrary: textRef(path, false) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(...WORDS.filter(Boolean), ...TAGS, ...VARIANT_SLUGS, 'a0', 'p1', '%x2', 'A_3'),
    },
    { weight: 1, arbitrary: TEXT },
  );
const partOperand = (path: string) =>
  fc.oneof(
    { weight: 4, arbitrary: textRef(path, true) },
    { weight: 2, arbitrary: fc.constantFrom(...WORDS.filter(Boolean), ...TAGS, 'a0', 'p1', '%x2', 'A_3') },
    { weight: 1, arbitrary: TEXT.filter((text) => text.length > 0) },
  );
const uuidOperand = (variant: boolean) =>
  fc
    .record({ index: fc.nat(30), upper: fc.boolean(), missing: fc.boolean() })
    .map((ref) => new UuidRef(ref.index, variant, ref.upper, ref.missing && ref.index % 3 === 0));

function offsetIso(ms: number, offsetMinutes: number): string {
  if (offsetMinutes === 0) return new Date(ms).toISOString();
  const local = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 23);
  const sign = offsetMinutes > 0 ? '+' : '-';
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}
const timestampOperand = fc
  .record({
    base: fc.constantFrom(...TIMES),
    delta: fc.constantFrom(-1, 0, 0, 1),
    offset: fc.constantFrom(0, 0, 120, -330),
  })
  .map(({ base, delta, offset }) => offsetIso(Date.parse(base) + delta, offset));

function operandFor(field: FieldSpec): fc.Arbitrary<unknown> {
  if (field.type === 'uuid') return uuidOperand(field.path.startsWith('variants.'));
  if (field.type === 'timestamp') return timestampOperand;
  return stringOperand(field.path);
}

function conditionFor(field: FieldSpec): fc.Arbitrary<unknown> {
  const operand = operandFor(field);
  const list = fc.array(fc.oneof({ weight: 5, arbitrary: operand }, { weight: 1, arbitrary: fc.constant(null) }), {
    minLength: 1,
    maxLength: 4,
  });
  const operators: Record<string, fc.Arbitrary<unknown>> = {
    $eq: fc.oneof({ weight: 5, arbitrary: operand }, { weight: 1, arbitrary: fc.constant(null) }),
    $ne: fc.oneof({ weight: 5, arbitrary: operand }, { weight: 1, arbitrary: fc.constant(null) }),
    $in: list,
    $nin: list,
    $exists: fc.boolean(),
  };
  if (field.type !== 'uuid') Object.assign(operators, { $gt: operand, $gte: operand, $lt: operand, $lte: operand });
  if (field.type === 'string') {
    Object.assign(operators, { $contains: partOperand(field.path), $startsWith: partOperand(field.path) });
  }
  const names = Object.keys(operators);
  const operatorObject = fc
    .oneof(
      { weight: 3, arbitrary: fc.constantFrom(...names).map((name) => [name]) },
      { weight: 1, arbitrary: fc.uniqueArray(fc.constantFrom(...names), { minLength: 2, maxLength: 2 }) },
    )
    .chain((chosen) =>
      fc
        .tuple(...chosen.map((name) => operators[name]!))
        .map((values) => Object.fromEntries(chosen.map((name, index) => [name, values[index]]))),
    );
  return fc.oneof(
    { weight: 1, arbitrary: fc.oneof({ weight: 5, arbitrary: operand }, { weight: 1, arbitrary: fc.constant(null) }) },
    { weight: 3, arbitrary: operatorObject },
  );
}

const fieldEntry = fc
  .oneof(
    { weight: 3, arbitrary: fc.constantFrom(...FIELDS.filter((field) => !field.path.includes('metadata.'))) },
    { weight: 2, arbitrary: fc.constantFrom(...FIELDS.filter((field) => field.path.includes('metadata.'))) },
  )
  .chain((field) => conditionFor(field).map((condition) => [field.path, condition] as const));

/** A filter object; logical operators nest up to `depth` more levels. */
function filterNode(depth: number): fc.Arbitrary<Record<string, unknown>> {
  type Entry = fc.WeightedArbitrary<readonly [string, unknown]>;
  const entries: Entry[] = [{ weight: 4, arbitrary: fieldEntry }];
  if (depth > 0) {
    const child = filterNode(depth - 1);
    entries.push(
      {
        weight: 1,
        arbitrary: fc.array(child, { minLength: 1, maxLength: 2 }).map((branches) => ['$and', branches] as const),
      },
      {
        weight: 2,
        arbitrary: fc.array(child, { minLength: 1, maxLength: 3 }).map((branches) => ['$or', branches] as const),
      },
      { weight: 2, arbitrary: child.map((inner) => ['$not', inner] as const) },
    );
  }
  return fc.array(fc.oneof(...entries), { minLength: 1, maxLength: 2 }).map((pairs) => Object.fromEntries(pairs));
}
const filterArb = filterNode(3);

/** Replaces uuid references by ids of the catalog (or fresh ids that match nothing). */
function materialize(value: unknown, catalog: readonly Row[]): unknown {
  if (value instanceof UuidRef) {
    const pool = value.variant
      ? catalog.flatMap((row) => row.variants.map((variant) => variant.id))
      : catalog.map((row) => row.id);
    const id = value.missing || pool.length === 0 ? uuidv7() : pool[value.index % pool.length]!;
    return value.upper ? id.toUpperCase() : id;
  }
  if (value instanceof TextRef) {
    // Mostly values of the path itself; sometimes any string of the catalog.
    const own = catalog
      .flatMap((row) => valuesOf(row, value.path).values)
      .filter((text): text is string => typeof text === 'string' && text !== '');
    const pool = value.index % 5 === 4 || own.length === 0 ? catalogStrings(catalog).filter(Boolean) : own;
    if (pool.length === 0) return 'none';
    const whole = [...pool[value.index % pool.length]!];
    if (value.length === 0) return whole.join('');
    const start = value.start % whole.length;
    const part = whole.slice(start, start + value.length).join('');
    return value.letterCase === 'upper' ? part.toUpperCase() : value.letterCase === 'lower' ? part.toLowerCase() : part;
  }
  if (Array.isArray(value)) return value.map((item) => materialize(item, catalog));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, materialize(item, catalog)]));
  return value;
}

// ---------------------------------------------------------------------------------------------------------------
// The independent evaluator

type Value = string | number | null;

/** Values of a path on one row: one for a scalar path, one per related row for a to-many path. */
function valuesOf(row: Row, path: string): { many: boolean; values: Value[] } {
  const metadata = (source: Record<string, string>, key: string): Value =>
    Object.hasOwn(source, key) ? source[key]! : null;
  if (path === 'id') return { many: false, values: [row.id] };
  if (path === 'slug') return { many: false, values: [row.slug] };
  if (path === 'title') return { many: false, values: [row.title] };
  if (path === 'createdAt') return { many: false, values: [row.createdAt] };
  if (path === 'tags.name') return { many: true, values: row.tags };
  if (path === 'variants.id') return { many: true, values: row.variants.map((variant) => variant.id) };
  if (path === 'variants.slug') return { many: true, values: row.variants.map((variant) => variant.slug) };
  if (path === 'variants.title') return { many: true, values: row.variants.map((variant) => variant.title) };
  if (path.startsWith('variants.metadata.')) {
    const key = path.slice('variants.metadata.'.length);
    return { many: true, values: row.variants.map((variant) => metadata(variant.metadata, key)) };
  }
  if (path.startsWith('metadata.'))
    return { many: false, values: [metadata(row.metadata, path.slice('metadata.'.length))] };
  throw new Error(`evaluator: unknown path ${path}`);
}

const typeOf = (path: string): FieldType => FIELDS.find((field) => field.path === path)!.type;

function makeEvaluator(collation: Collation) {
  const normalize = (type: FieldType, operand: unknown): Value => {
    if (operand === null) return null;
    if (type === 'uuid') return (operand as string).toLowerCase();
    if (type === 'timestamp') return Date.parse(operand as string);
    return operand as string;
  };
  const compare = (type: FieldType, a: Value, b: Value): number => {
    if (type === 'string') return collation.rank(a as string) - collation.rank(b as string);
    if (type === 'timestamp') return (a as number) - (b as number);
    return a === b ? 0 : a! < b! ? -1 : 1;
  };
  const equal = (type: FieldType, a: Value, b: Value) => (type === 'string' ? a === b : compare(type, a, b) === 0);

  function operator(type: FieldType, name: string, operand: unknown, value: Value): boolean {
    switch (name) {
      case '$exists':
        return operand ? value !== null : value === null;
      case '$eq':
        return operand === null ? value === null : value !== null && equal(type, value, normalize(type, operand));
      case '$ne':
        return operand === null ? value !== null : value === null || !equal(type, value, normalize(type, operand));
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte': {
        if (value === null) return false;
        const order = compare(type, value, normalize(type, operand));
        return { $gt: order > 0, $gte: order >= 0, $lt: order < 0, $lte: order <= 0 }[name];
      }
      case '$in':
      case '$nin': {
        const list = operand as unknown[];
        const hasNull = list.includes(null);
        const hit = value !== null && list.some((item) => item !== null && equal(type, value, normalize(type, item)));
        if (name === '$in') return hit || (hasNull && value === null);
        return hasNull ? value !== null && !hit : value === null || !hit;
      }
      case '$contains':
      case '$startsWith': {
        if (value === null) return false;
        const haystack = collation.lower(value as string);
        const needle = collation.lower(operand as string);
        return name === '$contains' ? haystack.includes(needle) : haystack.startsWith(needle);
      }
    }
    throw new Error(`evaluator: unknown operator ${name}`);
  }

  function field(row: Row, path: string, condition: unknown): boolean {
    const type = typeOf(path);
    const operations: [string, unknown][] =
      condition !== null && typeof condition === 'object' && !Array.isArray(condition)
        ? Object.entries(condition)
        : [['$eq', condition]];
    const { many, values } = valuesOf(row, path);
    const all = (value: Value) => operations.every(([name, operand]) => operator(type, name, operand, value));
    if (!many) return all(values[0]!);
    const [only] = operations;
    if (
      operations.length === 1 &&
      ((only![0] === '$exists' && only![1] === false) || (only![0] === '$eq' && only![1] === null))
    ) {
      return values.every((value) => value === null);
    }
    return values.some(all);
  }

  function node(row: Row, filter: Record<string, unknown>): boolean {
    return Object.entries(filter).every(([key, value]) => {
      if (key === '$and') return (value as Record<string, unknown>[]).every((branch) => node(row, branch));
      if (key === '$or') return (value as Record<string, unknown>[]).some((branch) => node(row, branch));
      if (key === '$not') return !node(row, value as Record<string, unknown>);
      return field(row, key, value);
    });
  }

  const search = (row: Row, text: string | undefined): boolean => {
    const needle = text?.trim();
    if (!needle) return true;
    return [row.title, row.slug].some((value) => collation.lower(value).includes(collation.lower(needle)));
  };

  return { node, search };
}

/** Conditions the engine counts (one per operator of each field), to know when a document must be refused. */
function conditionCount(filter: Record<string, unknown>): number {
  return Object.entries(filter).reduce((total, [key, value]) => {
    if (key === '$and' || key === '$or')
      return total + (value as Record<string, unknown>[]).reduce((sum, branch) => sum + conditionCount(branch), 0);
    if (key === '$not') return total + conditionCount(value as Record<string, unknown>);
    return (
      total + (value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value).length : 1)
    );
  }, 0);
}

// ---------------------------------------------------------------------------------------------------------------
// Through HTTP

async function walk(
  tenant: Tenant,
  query: Record<string, string>,
  limit: number,
): Promise<{ ids: string[]; pages: number[] }> {
  const ids: string[] = [];
  const pages: number[] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 1000; guard++) {
    const params = new URLSearchParams({ ...query, limit: String(limit), ...(cursor ? { cursor } : {}) });
    const response = await t.request({ url: `/v1/products?${params}`, key: tenant.key });
    if (response.statusCode !== 200)
      throw new Error(`GET /v1/products?${params} answered ${response.statusCode}: ${response.body}`);
    const body = response.json();
    ids.push(...body.data.map((product: { id: string }) => product.id));
    pages.push(body.data.length);
    cursor = body.nextCursor;
    if (!cursor) return { ids, pages };
  }
  throw new Error('paging did not end');
}

const fresh = () => t.tenant({ apiRequestsPerMinute: 1_000_000 });

describe('list engine properties (GET /v1/products)', () => {
  it('returns exactly the rows an independent evaluator selects, for random filter documents and searches', async () => {
    const searchText = fc.oneof(
      fc.constantFrom('a', 'A', '%', '_', '\\', 'é', ' b ', '1', 'x_', '日', ' '),
      TEXT.filter((text) => text.length > 0),
    );
    const searchArb = fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: searchText });
    await fc.assert(
      fc.asyncProperty(
        catalogArb,
        fc.array(fc.tuple(filterArb, searchArb), { minLength: 4, maxLength: 8 }),
        async (specs, queries) => {
          const tenant = await fresh();
          const catalog = await loadCatalog(tenant, specs);
          const documents = queries.map(([filter, search]) => ({
            filter: materialize(filter, catalog) as Record<string, unknown>,
            search,
          }));
          const collation = await collationFor([
            ...catalogStrings(catalog),
            ...documents.flatMap((doc) => [...stringsIn(doc.filter), ...(doc.search ? [doc.search.trim()] : [])]),
          ]);
          const evaluate = makeEvaluator(collation);
          for (const { filter, search } of documents) {
            const query = { filter: JSON.stringify(filter), sort: 'createdAt', ...(search ? { search } : {}) };
            if (conditionCount(filter) > 100) {
              const params = new URLSearchParams(query);
              const refused = await t.request({ url: `/v1/products?${params}`, key: tenant.key });
              expect(refused.statusCode).toBe(400);
              continue;
            }
            const { ids } = await walk(tenant, query, 5);
            const expected = catalog
              .filter((row) => evaluate.node(row, filter) && evaluate.search(row, search))
              .map((row) => row.id);
            expect(new Set(ids).size, 'no row twice').toBe(ids.length);
            expect([...ids].sort(), `filter ${JSON.stringify(filter)} search ${JSON.stringify(search)}`).toEqual(
              [...expected].sort(),
            );
          }
        },
      ),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('walks every sort in both directions with any page size: each matching row once, in order, nulls last, ties on id', async () => {
    const SORTS = ['title', '-title', 'createdAt', '-createdAt', 'wishlistsCount', '-wishlistsCount'];
    const walkArb = fc.record({
      sort: fc.option(fc.constantFrom(...SORTS), { freq: 6 }),
      limit: fc.integer({ min: 1, max: 7 }),
      filter: fc.option(filterNode(1), { freq: 2 }),
    });
    await fc.assert(
      fc.asyncProperty(catalogArb, fc.array(walkArb, { minLength: 3, maxLength: 5 }), async (specs, walks) => {
        const tenant = await fresh();
        const catalog = await loadCatalog(tenant, specs);
        const plans = walks.map((plan) => ({
          ...plan,
          filter: plan.filter ? (materialize(plan.filter, catalog) as Record<string, unknown>) : undefined,
        }));
        const collation = await collationFor([
          ...catalogStrings(catalog),
          ...plans.flatMap((plan) => (plan.filter ? stringsIn(plan.filter) : [])),
        ]);
        const evaluate = makeEvaluator(collation);
        for (const { sort, limit, filter } of plans) {
          const key = sort ?? '-createdAt';
          const descending = key.startsWith('-');
          const valueOf = (row: Row): number =>
            ({ title: collation.rank(row.title), createdAt: row.createdAt, wishlistsCount: row.wishlists })[
              descending ? key.slice(1) : key
            ]!;
          const expected = catalog
            .filter((row) => !filter || evaluate.node(row, filter))
            .sort((a, b) => {
              const order = valueOf(a) - valueOf(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
              return descending ? -order : order;
            })
            .map((row) => row.id);
          const { ids, pages } = await walk(
            tenant,
            { ...(sort ? { sort } : {}), ...(filter ? { filter: JSON.stringify(filter) } : {}) },
            limit,
          );
          expect(ids, `sort ${key} limit ${limit} filter ${JSON.stringify(filter)}`).toEqual(expected);
          // Every page but the last is full; the last has the rest (an empty list is one empty page).
          expect(pages.slice(0, -1).every((size) => size === limit)).toBe(true);
          expect(pages.at(-1)).toBe(expected.length === 0 ? 0 : expected.length - limit * (pages.length - 1));
        }
      }),
      { numRuns: RUNS, seed: SEED + 1 },
    );
  });
});
