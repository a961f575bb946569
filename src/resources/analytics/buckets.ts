import { sql, type RawBuilder } from 'kysely';
import type { Granularity } from './schemas.js';

/**
 * Date buckets in a time zone, as SQL: the bucket's start as an instant, computed in the zone
 * (docs/api.md#buckets-time-zones-and-dst).
 *
 * - day, week (ISO, from Monday), month, quarter, year: the zone's calendar unit, begun at its local midnight:
 *   `date_trunc(unit, ts, zone)`, so a local day lasts 23 or 25 hours across a DST change. A local midnight the
 *   clocks skip begins at the change itself; one they repeat (clocks going back at midnight) is read as the later
 *   one, as PostgreSQL resolves every ambiguous local time.
 * - hour: a clock hour of the zone at one UTC offset, begun at its first instant. On the night the clocks go back
 *   the repeated local hour is two buckets (one per offset), each an hour long; a change by half an hour
 *   (Australia/Lord_Howe) makes half-hour buckets. Rows group by two cheap keys: `date_trunc('hour', ts, zone)`,
 *   the local hour's start at the instant's own offset, and the local hour itself (`ts at time zone zone`,
 *   truncated), which together name the (hour, offset) pair. The first key is the bucket's start except where the
 *   offset changed within the hour (Lord Howe, or a change at 00:01 as St. John's made until 2011): then it lies
 *   before the change, under the other offset, and the start is the first minute that belongs to the bucket. Only
 *   each group's start is corrected, never each row.
 */

const UNIT: Record<Granularity, string> = {
  hour: 'hour',
  day: 'day',
  week: 'week',
  month: 'month',
  quarter: 'quarter',
  year: 'year',
};
const STEP: Record<Exclude<Granularity, 'hour'>, string> = {
  day: '1 day',
  week: '1 week',
  month: '1 month',
  quarter: '3 months',
  year: '1 year',
};

/** The grouping key of an instant: the bucket start (for hours, the start at the instant's own offset; see bucketStart). */
export function bucketKey(
  granularity: Granularity,
  instant: RawBuilder<unknown>,
  zone: RawBuilder<unknown>,
): RawBuilder<unknown> {
  return sql`date_trunc(${sql.lit(UNIT[granularity])}, ${instant}, ${zone})`;
}

/** The second key of an hour bucket: the local clock hour (a timestamp without zone). */
export function localHour(instant: RawBuilder<unknown>, zone: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`date_trunc('hour', ${instant} at time zone ${zone})`;
}

/** The bucket start for a grouping key (`key` a column, and for hours `local` the localHour column). */
export function bucketStart(
  granularity: Granularity,
  key: RawBuilder<unknown>,
  zone: RawBuilder<unknown>,
  local?: RawBuilder<unknown>,
): RawBuilder<unknown> {
  if (granularity !== 'hour') return key;
  if (!local) throw new Error('an hour bucket needs its local hour');
  const member = (instant: RawBuilder<unknown>) =>
    sql`date_trunc('hour', ${instant}, ${zone}) = ${key} and date_trunc('hour', ${instant} at time zone ${zone}) = ${local}`;
  return sql`case when ${key} = 'infinity'::timestamptz or (${member(key)}) then ${key}
    else coalesce((select min(minute) from generate_series(${key}, ${key} + interval '1 hour', interval '1 minute') minute
                   where ${member(sql`minute`)}), ${key}) end`;
}

/** The start of the bucket holding an instant. */
export function bucketOf(
  granularity: Granularity,
  instant: RawBuilder<unknown>,
  zone: RawBuilder<unknown>,
): RawBuilder<unknown> {
  return bucketStart(
    granularity,
    sql`(${bucketKey(granularity, instant, zone)})`,
    zone,
    sql`(${localHour(instant, zone)})`,
  );
}

/**
 * Every bucket start from `lo` to `hi` (both bucket starts, columns of `bounds`), at most `cap + 1` of them so an
 * oversized range is noticed without being generated. Calendar units step in local time and are placed in the zone
 * as date_trunc places them; hours are found from a 15-minute grid (every zone's hour buckets last at least 30
 * minutes), each point mapped to its bucket.
 */
export function bucketSeries(
  granularity: Granularity,
  bounds: string,
  zone: RawBuilder<unknown>,
  cap: number,
): RawBuilder<unknown> {
  if (granularity === 'hour') {
    return sql`select distinct ${bucketStart('hour', sql.ref('grid.key'), zone, sql.ref('grid.local'))} as b
      from (select distinct date_trunc('hour', point, ${zone}) as key, ${localHour(sql.ref('point'), zone)} as local
            from (select generate_series(lo, least(hi, lo + ${sql.lit(`${cap + 1} hours`)}::interval), interval '15 minutes') as point from ${sql.table(bounds)}
                  union all select hi from ${sql.table(bounds)}) points
            where point is not null) grid`;
  }
  return sql`select local_start at time zone ${zone} as b
    from ${sql.table(bounds)}, generate_series(date_trunc(${sql.lit(UNIT[granularity])}, lo at time zone ${zone}), hi at time zone ${zone},
                                   ${sql.lit(STEP[granularity])}::interval) local_start
    limit ${sql.lit(cap + 1)}`;
}
