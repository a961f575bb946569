import { validationError, type ErrorDetail } from '../../core/errors.js';
import { NUL_MESSAGE } from '../../lists/filter.js';
import { dateBounds, type DateBounds } from './bounds.js';
import { sourceOf } from './sources/index.js';
import type { AnalyticsSource, DimensionDef, MeasureDef } from './types.js';
import type { AnalyticsQueryBody, Granularity } from './schemas.js';

export const DEFAULT_LIMIT = 50;
export const MAX_GROUP_BY = 3;

export interface PlannedMeasure {
  name: string;
  def: MeasureDef;
}

export interface PlannedDimension {
  name: string;
  def: DimensionDef;
  /** For metadata.<key>: the key, sent as a parameter. */
  metadataKey?: string;
}

/** A checked query: everything the SQL needs, resolved against the resource's whitelists. */
export interface AnalyticsPlan {
  source: AnalyticsSource;
  measures: PlannedMeasure[];
  /** The groupBy names as given (the row keys, in that order). */
  groupBy: string[];
  /** The date dimension, when one is grouped by. */
  date: PlannedDimension | null;
  /** The other dimensions, in groupBy order. */
  dimensions: PlannedDimension[];
  granularity: Granularity | null;
  /** The zone asked for; null means the organization's. */
  timezone: string | null;
  limit: number;
  fillGaps: boolean;
  filter: string | undefined;
  /** The filter's bounds on the grouped date (docs/api.md#filling-gaps), when it has any. */
  bounds: DateBounds;
}

/** IANA names are Area/Location paths (or UTC): this refuses POSIX strings and offsets that PostgreSQL would also take. */
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/;
const METADATA_KEY = /^.{1,40}$/su;

export function isIanaTimeZone(name: string): boolean {
  if (!IANA_NAME.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const listOf = (names: readonly string[]) => names.join(', ');

function fail(message: string, path: string, detail: string): never {
  throw validationError(message, [{ path, message: detail }]);
}

/** Checks the body against the resource's whitelists (service.md: anything else is rejected) and resolves it. */
export function planQuery(body: AnalyticsQueryBody): AnalyticsPlan {
  const source = sourceOf(body.resource);
  if (!source) throw new Error(`analytics source ${body.resource} is not defined`); // the body schema's enum prevents it
  const measures = body.measures.map((name, index) => planMeasure(source, name, `body.measures[${index}]`));
  refuseRepeats(body.measures, 'body.measures', 'measure');

  const groupBy = body.groupBy ?? [];
  refuseRepeats(groupBy, 'body.groupBy', 'dimension');
  const planned = groupBy.map((name, index) => planDimension(source, name, `body.groupBy[${index}]`));
  const dates = planned.filter((dimension) => dimension.def.type === 'date');
  if (dates.length > 1) {
    fail(
      `groupBy takes at most one date dimension; ${listOf(dates.map((d) => d.name))} are all dates.`,
      'body.groupBy',
      'must hold at most one date dimension',
    );
  }
  const date = dates[0] ?? null;

  const timezone = body.timezone ?? null;
  if (timezone !== null && !isIanaTimeZone(timezone)) {
    fail(
      `Unknown time zone "${timezone}": use an IANA name such as Europe/Berlin.`,
      'body.timezone',
      'must be an IANA time zone name',
    );
  }

  return {
    source,
    measures,
    groupBy,
    date,
    dimensions: planned.filter((dimension) => dimension.def.type !== 'date'),
    granularity: date ? (body.granularity ?? 'day') : null,
    timezone,
    limit: body.limit ?? DEFAULT_LIMIT,
    fillGaps: body.fillGaps ?? true,
    filter: body.filter === '' ? undefined : body.filter,
    bounds: date && body.filter ? dateBounds(body.filter, date.name) : {},
  };
}

function planMeasure(source: AnalyticsSource, name: string, path: string): PlannedMeasure {
  const def = Object.hasOwn(source.measures, name) ? source.measures[name] : undefined;
  if (!def) {
    const known = listOf(Object.keys(source.measures));
    fail(`"${name}" is not a measure of ${source.resource}; measures: ${known}.`, path, `must be one of ${known}`);
  }
  return { name, def };
}

export function dimensionNames(source: AnalyticsSource): string[] {
  return [...Object.keys(source.dimensions), ...(source.metadata ? ['metadata.<key>'] : [])];
}

function planDimension(source: AnalyticsSource, name: string, path: string): PlannedDimension {
  const def = Object.hasOwn(source.dimensions, name) ? source.dimensions[name] : undefined;
  if (def) return { name, def };
  if (source.metadata && name.startsWith('metadata.')) {
    const key = name.slice('metadata.'.length);
    if (key.includes('\u0000')) fail(`Invalid dimension ${name}: the key ${NUL_MESSAGE}.`, path, NUL_MESSAGE);
    if (!METADATA_KEY.test(key)) {
      fail(
        `"${name}" is not a dimension: a metadata key has 1..40 characters.`,
        path,
        'must name a metadata key of 1..40 characters',
      );
    }
    return {
      name,
      metadataKey: key,
      def: {
        type: 'string',
        column: source.metadata.column,
        nullable: true,
        description: source.metadata.description,
        ...(source.metadata.join ? { join: source.metadata.join } : {}),
      },
    };
  }
  const known = listOf(dimensionNames(source));
  return fail(
    `"${name}" is not a dimension of ${source.resource}; dimensions: ${known}.`,
    path,
    `must be one of ${known}`,
  );
}

function refuseRepeats(names: readonly string[], path: string, what: string): void {
  const details: ErrorDetail[] = [];
  names.forEach((name, index) => {
    if (names.indexOf(name) !== index)
      details.push({ path: `${path}[${index}]`, message: `repeats the ${what} ${name}` });
  });
  if (details.length)
    throw validationError(`Each ${what} may be named once; ${details[0]!.path} ${details[0]!.message}.`, details);
}
