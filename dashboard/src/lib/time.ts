/**
 * Calendar dates (YYYY-MM-DD) in an IANA time zone, turned into the instants the API's filters take (timestamps with
 * an offset, docs/api.md#filter-documents). Only Intl: no time-zone data is shipped.
 */

/** A calendar date, YYYY-MM-DD. */
export type CalendarDate = string;

const dateFormats = new Map<string, Intl.DateTimeFormat>();
function partsIn(timezone: string, instant: number): Record<string, number> {
  let format = dateFormats.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    dateFormats.set(timezone, format);
  }
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(instant)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return parts;
}

/** The zone's offset from UTC at `instant`, in milliseconds. */
function offsetAt(timezone: string, instant: number): number {
  const p = partsIn(timezone, instant);
  const asUtc = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/** Today's date in `timezone`. */
export function todayIn(timezone: string, now: number = Date.now()): CalendarDate {
  const p = partsIn(timezone, now);
  return `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/** `date` moved by `days` (negative for earlier). */
export function addDays(date: CalendarDate, days: number): CalendarDate {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y!, m! - 1, d! + days)).toISOString().slice(0, 10);
}

/**
 * The instant `date` begins in `timezone`, as an ISO timestamp in UTC. A midnight the clocks skip begins at the
 * change (the first instant of that date), as the API's day buckets do (docs/api.md#buckets-time-zones-and-dst).
 */
export function startOfDay(date: CalendarDate, timezone: string): string {
  const [y, m, d] = date.split('-').map(Number);
  const wall = Date.UTC(y!, m! - 1, d!);
  let instant = wall - offsetAt(timezone, wall);
  instant = wall - offsetAt(timezone, instant);
  // Skipped midnight: the wall time reached is later than midnight of an earlier date; step to the date's first instant.
  if (todayIn(timezone, instant) < date) instant += 3_600_000;
  return new Date(instant).toISOString();
}

/** The IANA zones this browser knows, UTC first. */
export function timeZones(): string[] {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return ['UTC', ...zones.filter((zone) => zone !== 'UTC')];
}

/** `2026-03-01T10:00` read as a wall-clock time in `timezone`, as an ISO instant in UTC (null when it does not read). */
export function wallTimeToInstant(local: string, timezone: string): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local);
  if (!match) return null;
  const [y, m, d, h, min, s] = match.slice(1).map((part) => Number(part ?? 0));
  const wall = Date.UTC(y!, m! - 1, d!, h!, min!, s!);
  let instant = wall - offsetAt(timezone, wall);
  instant = wall - offsetAt(timezone, instant);
  return new Date(instant).toISOString();
}

/** An instant as the wall-clock time `2026-03-01T10:00` in `timezone` (a datetime-local input's value). */
export function instantToWallTime(iso: string, timezone: string): string | null {
  const instant = Date.parse(iso);
  if (Number.isNaN(instant)) return null;
  const p = partsIn(timezone, instant);
  const pad = (n: number | undefined) => String(n).padStart(2, '0');
  return `${p.year}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}`;
}
