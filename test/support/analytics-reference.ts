/**
 * An independent implementation of POST /v1/analytics/query for the tests: plain TypeScript over the generated records,
 * with luxon for the time zone rules. It shares no code or SQL with src/resources/analytics; it implements the
 * contract as docs/api.md "Analytics" states it:
 *
 * - a record is counted once per value of each to-many dimension grouped by (none: once, under null);
 * - day, week (ISO, Monday), month, quarter and year buckets are the zone's calendar units, begun at local midnight
 *   (a skipped midnight read with the offset before the change, a repeated one as its later instant); an hour
 *   bucket is a clock hour of the zone at one UTC offset, begun at its first instant;
 * - combinations are ranked by the first measure over the whole range (ties: dimension values ascending, nulls last);
 *   the first `limit` are shown, the rest form one Other row per bucket, computed from their rows;
 * - fillGaps: every bucket from the filter's bounds on the date (else the data's first and last) for each combination
 *   shown, counts 0 and averages null;
 * - rows sorted by the date ascending (no date last), the first measure descending (nulls last), then rank.
 */
import { DateTime } from 'luxon';

export type RefRecord = Record<string, any>;
export type Granularity = 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year';

export interface RefMeasure {
  kind: 'count' | 'sum' | 'average' | 'distinct';
  value?: (record: RefRecord) => number | string | null;
  where?: (record: RefRecord) => boolean;
}

export interface RefResource {
  measures: Record<string, RefMeasure>;
  /** Dimension name → its type; to-many dimensions hold arrays in the records. */
  dimensions: Record<string, 'date' | 'string' | 'boolean' | 'uuid' | 'integer' | 'many'>;
}

const count: RefMeasure = { kind: 'count' };
const countWhere = (where: (record: RefRecord) => boolean): RefMeasure => ({ kind: 'count', where });
const reviewDimensions = {
  createdAt: 'date',
  updatedAt: 'date',
  published: 'boolean',
  verifiedBuyer: 'boolean',
  flagged: 'boolean',
  rating: 'integer',
  language: 'string',
  'product.id': 'uuid',
  'customer.id': 'uuid',
  'customer.country': 'string',
} as const;

export const RESOURCES: Record<string, RefResource> = {
  orders: {
    measures: {
      count,
      revenue: { kind: 'sum', value: (r) => r.totalCents },
      averageOrderValue: { kind: 'average', value: (r) => r.totalCents },
      uniqueCustomers: { kind: 'distinct', value: (r) => r['customer.id'] },
    },
    dimensions: {
      createdAt: 'date',
      updatedAt: 'date',
      shippedAt: 'date',
      deliveredAt: 'date',
      cancelledAt: 'date',
      currencyCode: 'string',
      siteId: 'uuid',
      'customer.id': 'uuid',
      'customer.country': 'string',
      'items.productId': 'many',
      'tags.name': 'many',
    },
  },
  customers: {
    measures: {
      count,
      subscribedCount: countWhere((r) => !r.emailOptOut),
      optedOutCount: countWhere((r) => r.emailOptOut),
    },
    dimensions: {
      createdAt: 'date',
      updatedAt: 'date',
      emailOptOutAt: 'date',
      emailOptOut: 'boolean',
      emailOptOutSource: 'string',
      country: 'string',
      'tags.name': 'many',
    },
  },
  products: {
    measures: { count, reviewedCount: countWhere((r) => r.reviewed) },
    dimensions: { createdAt: 'date', updatedAt: 'date', 'variants.currencyCode': 'many', 'tags.name': 'many' },
  },
  reviews: {
    measures: {
      count,
      avgRating: { kind: 'average', value: (r) => r.rating },
      publishedCount: countWhere((r) => r.published),
      flaggedCount: countWhere((r) => r.flagged),
      verifiedBuyerCount: countWhere((r) => r.verifiedBuyer),
      uniqueCustomers: { kind: 'distinct', value: (r) => r['customer.id'] },
      uniqueProducts: { kind: 'distinct', value: (r) => r['product.id'] },
    },
    dimensions: reviewDimensions,
  },
  'review-answers': {
    measures: {
      count,
      averageStep: { kind: 'average', value: (r) => r.step },
      uniqueReviews: { kind: 'distinct', value: (r) => r.reviewId },
    },
    dimensions: { question: 'string', step: 'integer', ...reviewDimensions },
  },
  'loyalty-members': {
    measures: { count, activeCount: countWhere((r) => r.leftAt === null) },
    dimensions: {
      createdAt: 'date',
      updatedAt: 'date',
      tierAttainedAt: 'date',
      tierReviewAt: 'date',
      leftAt: 'date',
      tierAssignedManually: 'boolean',
      loyaltyProgramId: 'uuid',
      loyaltyTierId: 'uuid',
      'customer.id': 'uuid',
      'customer.country': 'string',
    },
  },
  'loyalty-activity': {
    measures: {
      count,
      pointsEarned: { kind: 'sum', value: (r) => r.points, where: (r) => r.kind === 'earned' },
      pointsSpent: { kind: 'sum', value: (r) => -r.points, where: (r) => r.kind === 'spent' },
    },
    dimensions: {
      createdAt: 'date',
      expiresAt: 'date',
      kind: 'string',
      eventName: 'string',
      loyaltyRuleId: 'uuid',
      loyaltyMembershipId: 'uuid',
      'customer.id': 'uuid',
      'customer.country': 'string',
    },
  },
  'loyalty-rewards': {
    measures: { count, redeemedCount: countWhere((r) => r.status === 'redeemed') },
    dimensions: {
      createdAt: 'date',
      updatedAt: 'date',
      redeemedAt: 'date',
      expiresAt: 'date',
      revokedAt: 'date',
      status: 'string',
      'reward.type': 'string',
      'fulfillment.mode': 'string',
      'fulfillment.status': 'string',
      loyaltyRuleId: 'uuid',
      loyaltyMembershipId: 'uuid',
      'customer.id': 'uuid',
      'customer.country': 'string',
    },
  },
};

export interface RefQuery {
  resource: string;
  measures: string[];
  groupBy?: string[];
  granularity?: Granularity;
  timezone: string;
  limit?: number;
  fillGaps?: boolean;
  /** The filter document (parsed); the reference understands field conditions, $and and $or. */
  filter?: Record<string, unknown>;
}

export type Row = Record<string, string | number | boolean | null>;

// ---------------------------------------------------------------------------------------------------------------
// Buckets

/** The UTC offset of a zone at an instant, in milliseconds (local mean time offsets have seconds). */
const offsetAt = (ms: number, zone: string) => Math.round(DateTime.fromMillis(ms, { zone }).offset * 60_000);

/** The local wall time of an instant, truncated to a calendar unit, as a UTC DateTime (calendar arithmetic only). */
function wallStart(ms: number, unit: Exclude<Granularity, 'hour'>, zone: string): DateTime {
  const local = DateTime.fromMillis(ms, { zone });
  return DateTime.utc(
    local.year,
    local.month,
    local.day,
    local.hour,
    local.minute,
    local.second,
    local.millisecond,
  ).startOf(unit);
}

/**
 * The instant of a local wall time, read as PostgreSQL reads one (docs/api.md): a time the clocks skip takes the
 * offset in force before the change; a time they repeat is the later of its two instants.
 */
function resolveWall(wall: DateTime, zone: string): number {
  const wallMs = wall.toMillis();
  const offsets = new Set([-36, 0, 36].map((hours) => offsetAt(wallMs + hours * 3_600_000, zone)));
  const candidates = [...offsets].map((offset) => wallMs - offset);
  const valid = candidates.filter((instant) => offsetAt(instant, zone) === wallMs - instant);
  if (valid.length) return Math.max(...valid);
  return wallMs - offsetAt(Math.min(...candidates), zone);
}

export function bucketOf(ms: number, granularity: Granularity, zone: string): number {
  if (granularity !== 'hour') return resolveWall(wallStart(ms, granularity, zone), zone);
  // The clock hour at this instant's offset began at `wallStart`, unless the offset changed since: then at the change.
  const local = DateTime.fromMillis(ms, { zone });
  const offset = offsetAt(ms, zone);
  const hourStart = ms - ((local.minute * 60 + local.second) * 1000 + local.millisecond);
  if (offsetAt(hourStart, zone) === offset) return hourStart;
  let before = hourStart;
  let after = ms;
  while (after - before > 1) {
    const middle = Math.floor((before + after) / 2);
    if (offsetAt(middle, zone) === offset) after = middle;
    else before = middle;
  }
  return after;
}

/** Every bucket start from `first` to `last` (both bucket starts). */
export function bucketsBetween(first: number, last: number, granularity: Granularity, zone: string): number[] {
  const starts: number[] = [];
  if (granularity === 'hour') {
    const seen = new Set<number>();
    // Minute by minute, and `last` itself (local mean time puts bucket starts off the minute).
    for (let minute = first; ; minute = Math.min(minute + 60_000, last)) {
      const start = bucketOf(minute, 'hour', zone);
      if (!seen.has(start)) starts.push(start);
      seen.add(start);
      if (minute === last) return starts;
    }
  }
  for (let wall = wallStart(first, granularity, zone); ; wall = wall.plus({ [`${granularity}s`]: 1 })) {
    const start = resolveWall(wall, zone);
    if (start > last) return starts;
    starts.push(start);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Filters (the subset the tests send)

function fieldValue(record: RefRecord, name: string): unknown {
  if (name.startsWith('metadata.'))
    return (record.metadata as Record<string, string>)[name.slice('metadata.'.length)] ?? null;
  return record[name] ?? null;
}

const asComparable = (value: unknown) =>
  typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value) ? Date.parse(value) : value;

function condition(value: unknown, operator: string, operand: unknown): boolean {
  const other = asComparable(operand);
  switch (operator) {
    case '$eq':
      return operand === null ? value === null : value !== null && value === other;
    case '$ne':
      return operand === null ? value !== null : value === null || value !== other;
    case '$gt':
      return value !== null && (value as number) > (other as number);
    case '$gte':
      return value !== null && (value as number) >= (other as number);
    case '$lt':
      return value !== null && (value as number) < (other as number);
    case '$lte':
      return value !== null && (value as number) <= (other as number);
    case '$in':
      return (operand as unknown[]).some((item) => (item === null ? value === null : value === asComparable(item)));
    case '$nin':
      return !(operand as unknown[]).some((item) => (item === null ? value === null : value === asComparable(item)));
    case '$exists':
      return (value !== null) === operand;
    default:
      throw new Error(`reference filter: ${operator} is not supported`);
  }
}

export function matches(record: RefRecord, filter: Record<string, unknown> | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([key, spec]) => {
    if (key === '$and') return (spec as Record<string, unknown>[]).every((part) => matches(record, part));
    if (key === '$or') return (spec as Record<string, unknown>[]).some((part) => matches(record, part));
    const operations =
      typeof spec === 'object' && spec !== null && !Array.isArray(spec)
        ? Object.entries(spec)
        : [['$eq', spec] as [string, unknown]];
    const value = fieldValue(record, key);
    return operations.every(([operator, operand]) => {
      if (Array.isArray(value)) {
        // To-many: some related value matches; "none" forms ($exists false, null) mean no related value at all.
        if ((operator === '$exists' && operand === false) || (operator === '$eq' && operand === null))
          return value.length === 0;
        return value.some((item) => condition(item, operator, operand));
      }
      return condition(value, operator, operand);
    });
  });
}

/** The filter's bounds on one date field: top-level or $and conditions, tightest first. */
function filterBounds(
  filter: Record<string, unknown> | undefined,
  field: string,
): { lower: number | null; upper: number | null } {
  let lower: number | null = null;
  let upper: number | null = null;
  const visit = (node: Record<string, unknown>) => {
    for (const [key, spec] of Object.entries(node)) {
      if (key === '$and') (spec as Record<string, unknown>[]).forEach(visit);
      if (key !== field) continue;
      const operations =
        typeof spec === 'object' && spec !== null ? Object.entries(spec) : [['$eq', spec] as [string, unknown]];
      for (const [operator, operand] of operations) {
        const at = Date.parse(operand as string);
        const low = operator === '$gte' || operator === '$eq' ? at : operator === '$gt' ? at + 1 : null;
        const high = operator === '$lte' || operator === '$eq' ? at : operator === '$lt' ? at - 1 : null;
        if (low !== null) lower = lower === null ? low : Math.max(lower, low);
        if (high !== null) upper = upper === null ? high : Math.min(upper, high);
      }
    }
  };
  if (filter) visit(filter);
  return { lower, upper };
}

// ---------------------------------------------------------------------------------------------------------------
// Aggregation

function measure(rows: RefRecord[], def: RefMeasure): number | null {
  const counted = def.where ? rows.filter(def.where) : rows;
  switch (def.kind) {
    case 'count':
      return counted.length;
    case 'sum':
      return counted.reduce((total, row) => total + Number(def.value!(row)), 0);
    case 'average': {
      const values = counted
        .map(def.value!)
        .filter((value) => value !== null)
        .map(Number);
      return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
    }
    case 'distinct':
      return new Set(counted.map(def.value!).filter((value) => value !== null)).size;
  }
}

type DimValue = string | number | boolean | null;

function compareValues(a: DimValue, b: DimValue): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : 1;
  return Number(a) - Number(b);
}

/** Measures first descending (nulls last). */
const byMeasure = (a: number | null, b: number | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : b - a);

export function reference(records: RefRecord[], query: RefQuery): Row[] {
  const resource = RESOURCES[query.resource]!;
  const groupBy = query.groupBy ?? [];
  const limit = query.limit ?? 50;
  const fillGaps = query.fillGaps ?? true;
  const granularity = query.granularity ?? 'day';
  const dateName = groupBy.find((name) => resource.dimensions[name] === 'date');
  const others = groupBy.filter((name) => name !== dateName);
  const defs = query.measures.map((name) => resource.measures[name]!);
  const measuresOf = (rows: RefRecord[]) => defs.map((def) => measure(rows, def));

  const selected = records.filter((record) => matches(record, query.filter));
  if (groupBy.length === 0) return [rowOf(query, {}, measuresOf(selected))];

  // One raw row per record and combination of its to-many values.
  interface Raw {
    record: RefRecord;
    bucket: number | null;
    dims: DimValue[];
  }
  const raws: Raw[] = [];
  for (const record of selected) {
    let combos: DimValue[][] = [[]];
    for (const name of others) {
      const value = fieldValue(record, name);
      const values: DimValue[] = Array.isArray(value)
        ? value.length
          ? (value as DimValue[])
          : [null]
        : [value as DimValue];
      combos = combos.flatMap((combo) => values.map((item) => [...combo, item]));
    }
    const date = dateName ? (record[dateName] as number | null) : null;
    const bucket = dateName && date !== null ? bucketOf(date, granularity, query.timezone) : null;
    for (const dims of combos) raws.push({ record, bucket, dims });
  }

  const keyOf = (dims: DimValue[]) => JSON.stringify(dims);
  const combos = new Map<string, { dims: DimValue[]; rows: RefRecord[] }>();
  for (const raw of raws) {
    const key = keyOf(raw.dims);
    if (!combos.has(key)) combos.set(key, { dims: raw.dims, rows: [] });
    combos.get(key)!.rows.push(raw.record);
  }
  const ranked = [...combos.entries()]
    .map(([key, combo]) => ({ key, dims: combo.dims, value: measure(combo.rows, defs[0]!) }))
    .sort(
      (a, b) =>
        byMeasure(a.value, b.value) ||
        a.dims.reduce<number>((order, value, i) => order || compareValues(value, b.dims[i]!), 0),
    );
  const rank = new Map(ranked.map((combo, index) => [combo.key, index + 1]));
  const otherRank = limit + 1;

  // Groups: (bucket, rank) → rows; every combination past the limit shares the Other rank.
  const groups = new Map<string, { bucket: number | null; rank: number; dims: DimValue[] | null; rows: RefRecord[] }>();
  for (const raw of raws) {
    const position = rank.get(keyOf(raw.dims))!;
    const shownRank = position <= limit ? position : otherRank;
    const key = `${raw.bucket}|${shownRank}`;
    if (!groups.has(key))
      groups.set(key, {
        bucket: raw.bucket,
        rank: shownRank,
        dims: shownRank === otherRank ? null : raw.dims,
        rows: [],
      });
    groups.get(key)!.rows.push(raw.record);
  }
  const rows: { bucket: number | null; rank: number; dims: DimValue[] | null; values: (number | null)[] }[] = [
    ...groups.values(),
  ].map((group) => ({
    bucket: group.bucket,
    rank: group.rank,
    dims: group.dims,
    values: measuresOf(group.rows),
  }));

  if (dateName && fillGaps) {
    const data = raws.map((raw) => raw.bucket).filter((bucket): bucket is number => bucket !== null);
    const bounds = filterBounds(query.filter, dateName);
    const first =
      bounds.lower !== null
        ? bucketOf(bounds.lower, granularity, query.timezone)
        : data.length
          ? Math.min(...data)
          : null;
    const last =
      bounds.upper !== null
        ? bucketOf(bounds.upper, granularity, query.timezone)
        : data.length
          ? Math.max(...data)
          : null;
    const shown = new Map<number, DimValue[] | null>();
    for (const row of rows) shown.set(row.rank, row.dims);
    if (others.length === 0) shown.set(1, []);
    if (first !== null && last !== null) {
      for (const bucket of bucketsBetween(first, last, granularity, query.timezone)) {
        for (const [shownRank, dims] of shown) {
          if (groups.has(`${bucket}|${shownRank}`)) continue;
          rows.push({ bucket, rank: shownRank, dims, values: defs.map((def) => (def.kind === 'average' ? null : 0)) });
        }
      }
    }
  }

  rows.sort(
    (a, b) =>
      (a.bucket === b.bucket ? 0 : a.bucket === null ? 1 : b.bucket === null ? -1 : a.bucket - b.bucket) ||
      byMeasure(a.values[0]!, b.values[0]!) ||
      a.rank - b.rank,
  );
  return rows.map((row) => {
    const dims: Record<string, DimValue> = {};
    let next = 0;
    for (const name of groupBy) {
      if (name === dateName) dims[name] = row.bucket === null ? null : new Date(row.bucket).toISOString();
      else dims[name] = row.dims === null ? 'Other' : row.dims[next++]!;
    }
    return rowOf(query, dims, row.values);
  });
}

function rowOf(query: RefQuery, dims: Record<string, DimValue>, values: (number | null)[]): Row {
  const row: Row = { ...dims };
  query.measures.forEach((name, i) => (row[name] = values[i]!));
  return row;
}

/** Averages compared to 12 significant digits (float sums in another order). */
export function rounded(rows: Row[]): Row[] {
  return rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([key, value]) => [
        key,
        typeof value === 'number' && !Number.isInteger(value) ? Number(value.toPrecision(12)) : value,
      ]),
    ),
  );
}
