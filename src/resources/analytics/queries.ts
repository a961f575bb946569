import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Selection } from '../../lists/engine.js';
import type { Bound } from './bounds.js';
import { bucketKey, bucketOf, bucketSeries, bucketStart, localHour } from './buckets.js';
import type { AnalyticsPlan, PlannedDimension, PlannedMeasure } from './plan.js';
import type { DimensionType } from './types.js';

/** A date series longer than this is refused (hourly buckets over years would be millions of rows). */
export const MAX_BUCKETS = 10_000;
/** An answer longer than this is refused: narrow the range, coarsen the granularity or lower the limit. */
export const MAX_ROWS = 100_000;
const SLOT = sql.lit('15 minutes');
const SLOT_ORIGIN = sql`timestamptz '2000-01-01 00:00:00+00'`;
/** A longer data range is not checked for slot alignment day by day: its rows are bucketed one by one. */
const MAX_CHECKED_DAYS = 36_600;

/** One row of the statement: the summary columns repeat on every row (one row of nulls when there is no data). */
export interface AnalyticsSqlRow {
  zone: string;
  truncated: boolean;
  overflow: boolean;
  /** 1..limit for the combinations shown, limit + 1 for Other. */
  rank: number | string | null;
  b?: Date | string | null;
  [column: string]: unknown;
}

/** The SQL type of each dimension type's column (dates never reach the dimension columns). */
const SQL_TYPE: Record<DimensionType, string> = {
  date: 'timestamptz',
  string: 'text',
  enum: 'text',
  boolean: 'boolean',
  uuid: 'uuid',
  integer: 'integer',
};

const join = (parts: RawBuilder<unknown>[], separator = sql`, `) => sql.join(parts, separator);
const ref = (name: string) => sql.ref(name);
const col = (alias: string, name: string) => sql.ref(`${alias}.${name}`);

/**
 * The whole query as one statement (requirement: one round trip, nothing summed in Node):
 *
 *   settings  the time zone (the request's, else the organization's)
 *   base      the selected rows (the list's filter, one organization) with their bucket key (or 15-minute slot),
 *             dimensions and inputs
 *   groups    partial aggregates per bucket and combination: counts and sums, an average as sum and count (through
 *             slots when that is exact: slots, slot_range, suspect_days, aligned; see slottedGroups)
 *   ranked    the combinations of the non-date dimensions ranked by the first measure over the whole range
 *             (docs/api.md#limit-and-other)
 *   top_rows  the groups of the first `limit` combinations
 *   other_rows the rest, one row per bucket, re-aggregated: from the partials when every measure adds up, from the
 *             raw rows when one is a distinct count (never averaged averages, never summed distinct counts:
 *             docs/api.md#limit-and-other)
 *   series, filled  with fillGaps, every bucket between the bounds for each combination shown
 *             (docs/api.md#filling-gaps)
 */
export function analyticsStatement(
  plan: AnalyticsPlan,
  organizationId: string,
  selection: Selection,
): RawBuilder<AnalyticsSqlRow> {
  return new StatementBuilder(plan, organizationId, selection).build();
}

export async function runAnalytics(db: Kysely<DB>, statement: RawBuilder<AnalyticsSqlRow>): Promise<AnalyticsSqlRow[]> {
  return (await statement.execute(db)).rows;
}

class StatementBuilder {
  private readonly zone = sql`(select zone from settings)`;
  private readonly dims: PlannedDimension[];
  private readonly measures: PlannedMeasure[];
  private readonly hasDate: boolean;
  private readonly fill: boolean;
  /** Rows are first summed per 15-minute slot, and the slots bucketed in the zone (see slottedGroups()). */
  private readonly slotted: boolean;

  constructor(
    private readonly plan: AnalyticsPlan,
    private readonly organizationId: string,
    private readonly selection: Selection,
  ) {
    this.dims = plan.dimensions;
    this.measures = plan.measures;
    this.hasDate = plan.date !== null;
    this.fill = this.hasDate && plan.fillGaps;
    this.slotted =
      this.hasDate && plan.granularity !== 'hour' && plan.measures.every(({ def }) => def.kind !== 'distinct');
  }

  build(): RawBuilder<AnalyticsSqlRow> {
    const settings = sql`settings as (select coalesce(${this.plan.timezone}::text,
      (select timezone from organizations where id = ${this.organizationId}::uuid)) as zone)`;
    const base = sql`base as (${this.rows(this.slotted ? 'slot' : 'key')})`;
    if (!this.hasDate && this.dims.length === 0) return this.total(settings, base);

    const ctes: RawBuilder<unknown>[] = [settings, base, ...(this.slotted ? this.slottedGroups() : [this.groups()])];
    if (this.dims.length) ctes.push(this.ranked());
    ctes.push(this.topRows());
    if (this.dims.length) ctes.push(this.otherRows());
    ctes.push(
      sql`shown as (select * from top_rows${this.dims.length ? sql` union all select * from other_rows` : sql``})`,
    );
    if (this.fill) ctes.push(...this.gapCtes());
    ctes.push(sql`result as (select * from shown${this.fill ? sql` union all select * from filled` : sql``})`);
    const truncated = this.dims.length ? sql`(select count(*) from ranked) > ${this.plan.limit}` : sql`false`;
    const overflow = this.fill ? sql`(select count(*) from series) > ${MAX_BUCKETS}` : sql`false`;
    ctes.push(sql`summary as (select ${this.zone} as zone, ${truncated} as truncated, ${overflow} as overflow)`);

    const outputs = [
      sql`s.zone`,
      sql`s.truncated`,
      sql`s.overflow`,
      sql`r.rank`,
      ...(this.hasDate ? [sql`nullif(r.b, 'infinity'::timestamptz) as b`] : []),
      ...this.dims.map((_, i) => col('r', `d${i}`)),
      ...this.measures.map((_, i) => col('r', `m${i}`)),
    ];
    // Row order (docs/api.md#analytics-response): by the date, then the first measure descending; ties keep the
    // combination's rank (Other last).
    const order = [...(this.hasDate ? [sql`r.b asc`] : []), sql`r.m0 desc nulls last`, sql`r.rank asc`];
    return sql<AnalyticsSqlRow>`with ${join(ctes)}
      select ${join(outputs)} from summary s left join result r on true
      order by ${join(order)} limit ${sql.lit(MAX_ROWS + 1)}`;
  }

  /** No grouping: one row over the whole selection (an aggregate without GROUP BY always answers one row). */
  private total(settings: RawBuilder<unknown>, base: RawBuilder<unknown>): RawBuilder<AnalyticsSqlRow> {
    return sql<AnalyticsSqlRow>`with ${settings}, ${base}
      select ${this.zone} as zone, false as truncated, false as overflow, 1 as rank, ${join(this.rawFinals('x'))} from base x`;
  }

  /**
   * The selected rows: the resource's FROM with the list filter's joins and the to-many dimension joins, one
   * organization, the filter. The date becomes its bucket key (`bk`), or its 15-minute slot (`slot`).
   */
  private rows(date: 'key' | 'slot'): RawBuilder<unknown> {
    return sql`select ${join(this.rowColumns(date))} from ${sql.raw(this.plan.source.from ?? this.plan.source.list.from)}
      ${this.selection.joins} ${this.manyJoins()} where ${this.selection.where}`;
  }

  private rowColumns(mode: 'key' | 'slot'): RawBuilder<unknown>[] {
    const columns: RawBuilder<unknown>[] = [];
    const date = this.plan.date;
    if (date && this.plan.granularity) {
      const instant = sql.raw(date.def.column);
      const value =
        mode === 'key'
          ? bucketKey(this.plan.granularity, instant, this.zone)
          : sql`date_bin(${SLOT}, ${instant}, ${SLOT_ORIGIN})`;
      const name = ref(mode === 'key' ? 'bk' : 'slot');
      // Rows without the date form one bucket, kept as 'infinity' so keys never compare null (it sorts last; null out).
      columns.push(
        date.def.nullable ? sql`coalesce(${value}, 'infinity'::timestamptz) as ${name}` : sql`${value} as ${name}`,
      );
      if (mode === 'key' && this.plan.granularity === 'hour') columns.push(sql`${localHour(instant, this.zone)} as bl`);
    }
    this.dims.forEach((dimension, i) => columns.push(sql`${dimensionValue(dimension)} as ${ref(`d${i}`)}`));
    this.measures.forEach(({ def }, i) => {
      if (def.value) columns.push(sql`${sql.raw(def.value)} as ${ref(`v${i}`)}`);
      if (def.where) columns.push(sql`(${sql.raw(def.where)}) as ${ref(`w${i}`)}`);
    });
    return columns.length ? columns : [sql`1 as one`];
  }

  private manyJoins(): RawBuilder<unknown> {
    const seen = new Set<string>();
    const joins: RawBuilder<unknown>[] = [];
    for (const { def } of this.dims) {
      if (!def.many || seen.has(def.many.name)) continue;
      seen.add(def.many.name);
      joins.push(def.many.join(sql`${this.organizationId}::uuid`));
    }
    return joins.length ? join(joins, sql` `) : sql``;
  }

  /** The combination of non-date dimensions as one hashable, null-safe value (arrays compare nulls as equal). */
  private key(alias: string): RawBuilder<unknown> {
    return sql`array[${join(this.dims.map((_, i) => sql`${col(alias, `d${i}`)}::text`))}]`;
  }

  /** The columns a date groups by: its key, and for hours the local hour. */
  private bucketKeys(alias: string): RawBuilder<unknown>[] {
    if (!this.hasDate) return [];
    return [col(alias, 'bk'), ...(this.plan.granularity === 'hour' ? [col(alias, 'bl')] : [])];
  }

  private dimColumns(alias: string): RawBuilder<unknown>[] {
    return this.dims.map((_, i) => col(alias, `d${i}`));
  }

  private groups(): RawBuilder<unknown> {
    const granularity = this.plan.granularity;
    const keys = [...this.bucketKeys('x'), ...this.dimColumns('x')];
    const columns = [
      ...(this.hasDate && granularity
        ? [sql`${bucketStart(granularity, col('x', 'bk'), this.zone, col('x', 'bl'))} as b`]
        : []),
      ...this.dims.map((_, i) => sql`${col('x', `d${i}`)} as ${ref(`d${i}`)}`),
      ...(this.dims.length ? [sql`${this.key('x')} as k`] : []),
      ...this.partials('x'),
    ];
    return sql`groups as (select ${join(columns)} from base x group by ${join(keys)})`;
  }

  /**
   * Bucketing an instant in a time zone costs a time-zone conversion per row, most of what a date series costs.
   * Summed per 15-minute slot first (date_bin: arithmetic), the rows need that conversion once per slot instead.
   * That is exact when the zone's UTC offset is constant over each slot and a whole number of quarter hours: the
   * slot is then one local quarter hour, inside one local day. `aligned` checks it over the slots' range: per UTC
   * day first (the offset at both ends, and its alignment: a few thousand conversions at most), then slot by slot
   * on the days that fail (the days of a DST change). It fails for local mean time before a zone's first standard
   * offset, or a change at 00:01 (St. John's until 2011); then the groups are made from the rows directly, in the
   * same statement: PostgreSQL runs only the branch whose gate holds. (Assumed: no zone changes its offset twice
   * within a day and back again.)
   * Distinct counts cannot be summed from slots, and hours gain little, so they always bucket each row.
   */
  private slottedGroups(): RawBuilder<unknown>[] {
    const granularity = this.plan.granularity!;
    const slots = sql`slots as (select x.slot${this.dims.length ? sql`, ${join(this.dimColumns('x'))}` : sql``}, ${join(this.partials('x'))}
      from base x group by x.slot${this.dims.length ? sql`, ${join(this.dimColumns('x'))}` : sql``})`;
    const offset = (instant: RawBuilder<unknown>) =>
      sql`((${instant}) at time zone ${this.zone} - (${instant}) at time zone 'UTC')`;
    const quarter = (instant: RawBuilder<unknown>) => sql`mod(date_part('epoch', ${offset(instant)})::bigint, 900) = 0`;
    // Days of 24 hours from the first slot's UTC day to the last slot; a longer range than MAX_CHECKED_DAYS is not
    // checked: its rows are bucketed one by one. On a day whose offset moves, each of its 96 quarter hours is checked
    // (whether or not it holds rows: conservative, and it needs no pass over the slots).
    const range = sql`slot_range as (select min(slot) as lo, max(slot) as hi from slots where slot < 'infinity'::timestamptz)`;
    const suspectDays = sql`suspect_days as (select d from slot_range, generate_series(date_bin('1 day', lo, ${SLOT_ORIGIN}), hi, interval '24 hours') d
      where ${offset(sql`d`)} <> ${offset(sql`d + interval '24 hours' - interval '1 microsecond'`)} or not ${quarter(sql`d`)})`;
    const aligned = sql`aligned as (select coalesce((select hi - lo <= ${sql.lit(`${MAX_CHECKED_DAYS} days`)}::interval from slot_range), true)
      and not exists (select 1 from suspect_days x, generate_series(x.d, x.d + interval '24 hours' - ${SLOT}::interval, ${SLOT}::interval) q
        where ${offset(sql`q`)} <> ${offset(sql`q + ${SLOT}::interval - interval '1 microsecond'`)} or not ${quarter(sql`q`)}) as ok)`;
    const fromSlots = sql`select x.bk${this.dims.length ? sql`, ${join(this.dimColumns('x'))}` : sql``}, ${join(this.slotPartials('x'))}
      from (select ${bucketKey(granularity, sql`s.slot`, this.zone)} as bk${this.dims.length ? sql`, ${join(this.dimColumns('s'))}` : sql``},
                   ${join(this.partialColumns('s'))} from slots s) x
      where (select ok from aligned)
      group by x.bk${this.dims.length ? sql`, ${join(this.dimColumns('x'))}` : sql``}`;
    const fromRows = sql`select x.bk${this.dims.length ? sql`, ${join(this.dimColumns('x'))}` : sql``}, ${join(this.partials('x'))}
      from (${this.rows('key')}) x
      where not (select ok from aligned)
      group by x.bk${this.dims.length ? sql`, ${join(this.dimColumns('x'))}` : sql``}`;
    const columns = [
      sql`${bucketStart(granularity, col('u', 'bk'), this.zone)} as b`,
      ...this.dims.map((_, i) => sql`${col('u', `d${i}`)} as ${ref(`d${i}`)}`),
      ...(this.dims.length ? [sql`${this.key('u')} as k`] : []),
      ...this.partialColumns('u'),
    ];
    const groups = sql`groups as (select ${join(columns)} from (${fromSlots} union all ${fromRows}) u)`;
    return [slots, range, suspectDays, aligned, groups];
  }

  /** The partial columns of a group, as they are (p0, q0, …). */
  private partialColumns(alias: string): RawBuilder<unknown>[] {
    return this.measures.flatMap(({ def }, i) => [
      col(alias, `p${i}`),
      ...(def.kind === 'average' ? [col(alias, `q${i}`)] : []),
    ]);
  }

  /** Partials of several slots added up (every measure of a slotted query adds up: no distinct counts). */
  private slotPartials(alias: string): RawBuilder<unknown>[] {
    return this.measures.flatMap(({ def }, i) => [
      sql`sum(${col(alias, `p${i}`)}) as ${ref(`p${i}`)}`,
      ...(def.kind === 'average' ? [sql`sum(${col(alias, `q${i}`)}) as ${ref(`q${i}`)}`] : []),
    ]);
  }

  private ranked(): RawBuilder<unknown> {
    const first = this.measures[0]!;
    const dims = this.dimColumns('c');
    // Over the whole range (docs/api.md#limit-and-other). A distinct count over several buckets is counted again from
    // the rows.
    const combos =
      this.hasDate && first.def.kind === 'distinct'
        ? sql`select ${this.key('x')} as k, ${join(this.dimColumns('x'))}, count(distinct ${col('x', 'v0')}) as r
              from base x group by ${join(this.dimColumns('x'))}`
        : sql`select g.k, ${join(this.dimColumns('g'))}, ${this.reaggregated(first, 0, 'g')} as r from groups g group by g.k, ${join(this.dimColumns('g'))}`;
    const ties = this.dims.map(
      ({ def }, i) =>
        sql`${dims[i]!}${sql.raw(def.type === 'string' || def.type === 'enum' ? ' collate "C"' : '')} asc nulls last`,
    );
    return sql`ranked as (select c.k, ${join(dims)}, row_number() over (order by c.r desc nulls last, ${join(ties)}) as rank
      from (${combos}) c)`;
  }

  private topRows(): RawBuilder<unknown> {
    const finals = this.measures.map((measure, i) => sql`${this.final(measure, i, 'g')} as ${ref(`m${i}`)}`);
    if (!this.dims.length) return sql`top_rows as (select g.b, 1::bigint as rank, ${join(finals)} from groups g)`;
    return sql`top_rows as (select ${this.hasDate ? sql`g.b, ` : sql``}c.rank, ${join(this.dimColumns('g'))}, ${join(finals)}
      from groups g join ranked c on c.k = g.k where c.rank <= ${this.plan.limit})`;
  }

  private otherRows(): RawBuilder<unknown> {
    const rank = sql`${this.plan.limit + 1}::bigint as rank`;
    // Typed nulls: a bare null in its own CTE would be text, and the union with top_rows needs the column's type.
    const nulls = this.dims.map(({ def }, i) => sql`null::${sql.raw(SQL_TYPE[def.type])} as ${ref(`d${i}`)}`);
    const granularity = this.plan.granularity;
    if (this.measures.some(({ def }) => def.kind === 'distinct')) {
      const finals = this.rawFinals('x');
      const bucket =
        this.hasDate && granularity
          ? [sql`${bucketStart(granularity, col('x', 'bk'), this.zone, col('x', 'bl'))} as b`]
          : [];
      return sql`other_rows as (select ${join([...bucket, rank, ...nulls, ...finals])}
        from base x join ranked c on c.k = ${this.key('x')} where c.rank > ${this.plan.limit}
        ${this.hasDate ? sql`group by ${join(this.bucketKeys('x'))}` : sql``} having count(*) > 0)`;
    }
    const finals = this.measures.map((measure, i) => sql`${this.reaggregated(measure, i, 'g')} as ${ref(`m${i}`)}`);
    return sql`other_rows as (select ${join([...(this.hasDate ? [col('g', 'b')] : []), rank, ...nulls, ...finals])}
      from groups g join ranked c on c.k = g.k where c.rank > ${this.plan.limit}
      ${this.hasDate ? sql`group by g.b` : sql``} having count(*) > 0)`;
  }

  /**
   * The series between the filter's bounds on the date (else the data's), for every combination shown
   * (docs/api.md#filling-gaps).
   */
  private gapCtes(): RawBuilder<unknown>[] {
    const granularity = this.plan.granularity!;
    const { lower, upper } = this.plan.bounds;
    const end = (bound: Bound | undefined, side: 'lower' | 'upper') => {
      if (!bound) return sql`null::timestamptz`;
      const at = sql`${bound.at}::timestamptz`;
      // An excluded end is the instant next to it (timestamps have microsecond precision).
      const instant = !bound.exclusive
        ? at
        : side === 'lower'
          ? sql`(${at} + interval '1 microsecond')`
          : sql`(${at} - interval '1 microsecond')`;
      return bucketOf(granularity, instant, this.zone);
    };
    const bounds = sql`bounds as (select coalesce(${end(lower, 'lower')}, min(b)) as lo, coalesce(${end(upper, 'upper')}, max(b)) as hi
      from groups where b < 'infinity'::timestamptz)`;
    const series = sql`series as (${bucketSeries(granularity, 'bounds', this.zone, MAX_BUCKETS)})`;
    const combos = this.dims.length
      ? sql`shown_combos as (select distinct rank, ${join(this.dimColumns('shown'))} from shown)`
      : sql`shown_combos as (select 1::bigint as rank)`;
    const zeros = this.measures.map(
      ({ def }, i) => sql`${def.kind === 'average' ? sql`null::float8` : sql`0`} as ${ref(`m${i}`)}`,
    );
    const filled = sql`filled as (select s.b, c.rank${this.dims.length ? sql`, ${join(this.dimColumns('c'))}` : sql``}, ${join(zeros)}
      from series s cross join shown_combos c
      where not exists (select 1 from shown x where x.b = s.b and x.rank = c.rank))`;
    return [bounds, series, combos, filled];
  }

  /** Per group, what every measure needs to be re-aggregated exactly. */
  private partials(alias: string): RawBuilder<unknown>[] {
    return this.measures.flatMap(({ def }, i) => {
      const value = col(alias, `v${i}`);
      const where = def.where ? sql` filter (where ${col(alias, `w${i}`)})` : sql``;
      const p = ref(`p${i}`);
      switch (def.kind) {
        case 'count':
          return [sql`count(*)${where} as ${p}`];
        case 'sum':
          return [sql`sum(${value})${where} as ${p}`];
        case 'average':
          return [sql`sum(${value}) as ${p}`, sql`count(${value}) as ${ref(`q${i}`)}`];
        case 'distinct':
          return [sql`count(distinct ${value}) as ${p}`];
      }
    });
  }

  /** A measure of one group, from its partials. */
  private final({ def }: PlannedMeasure, i: number, alias: string): RawBuilder<unknown> {
    const p = col(alias, `p${i}`);
    switch (def.kind) {
      case 'count':
      case 'distinct':
        return sql`${p}::bigint`;
      case 'sum':
        // numeric, not float8: a sum is exact or refused, never rounded (docs/api.md#analytics-response).
        return sql`coalesce(${p}, 0)::numeric`;
      case 'average':
        return sql`(${p}::float8 / nullif(${col(alias, `q${i}`)}, 0))`;
    }
  }

  /** A measure over several groups, from their partials (never for a distinct count of several groups). */
  private reaggregated({ def }: PlannedMeasure, i: number, alias: string): RawBuilder<unknown> {
    const p = col(alias, `p${i}`);
    switch (def.kind) {
      case 'count':
      case 'distinct':
        return sql`coalesce(sum(${p}), 0)::bigint`;
      case 'sum':
        return sql`coalesce(sum(${p}), 0)::numeric`;
      case 'average':
        return sql`(sum(${p})::float8 / nullif(sum(${col(alias, `q${i}`)}), 0))`;
    }
  }

  /** Every measure straight from raw rows (the total, and Other when a distinct count is asked for). */
  private rawFinals(alias: string): RawBuilder<unknown>[] {
    return this.measures.map(({ def }, i) => {
      const value = col(alias, `v${i}`);
      const where = def.where ? sql` filter (where ${col(alias, `w${i}`)})` : sql``;
      const m = ref(`m${i}`);
      switch (def.kind) {
        case 'count':
          return sql`count(*)${where} as ${m}`;
        case 'sum':
          return sql`coalesce(sum(${value})${where}, 0)::numeric as ${m}`;
        case 'average':
          return sql`avg(${value})::float8 as ${m}`;
        case 'distinct':
          return sql`count(distinct ${value}) as ${m}`;
      }
    });
  }
}

function dimensionValue({ def, metadataKey }: PlannedDimension): RawBuilder<unknown> {
  return metadataKey === undefined ? sql.raw(def.column) : sql`(${sql.raw(def.column)} ->> ${metadataKey}::text)`;
}
