import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { unprocessable, validationError } from '../../core/errors.js';
import { compileSelection } from '../../lists/engine.js';
import type { ListDefinition } from '../../lists/types.js';
import type { QuickFilterResource } from '../../records/quick-filter.js';
import { resolveQuickFilter } from '../quick-filters/index.js';
import { dimensionNames, planQuery, type AnalyticsPlan } from './plan.js';
import { analyticsStatement, MAX_BUCKETS, MAX_ROWS, runAnalytics, type AnalyticsSqlRow } from './queries.js';
import type { AnalyticsQueryBody, AnalyticsResult, AnalyticsSchema } from './schemas.js';
import { SOURCES } from './sources/index.js';
import type { AnalyticsSource } from './types.js';

const OTHER = 'Other';

export class AnalyticsService {
  private readonly schemaDocument: AnalyticsSchema = describeSources(SOURCES);

  constructor(private readonly db: Kysely<DB>) {}

  schema(): AnalyticsSchema {
    return this.schemaDocument;
  }

  async query(organizationId: string, body: AnalyticsQueryBody): Promise<AnalyticsResult> {
    const plan = planQuery(body);
    const list = listWithJoins(plan.source);
    // The body's own filter is checked before the quick filter is read: bad input is 400 before a missing one is 404.
    compileSelection(list, organizationId, { filter: plan.filter }, [], new Set(), 'body.filter');
    const saved = await resolveQuickFilter(
      this.db,
      organizationId,
      QUICK_FILTER_RESOURCE[body.resource],
      body.quickFilter,
      'body.quickFilter',
    );
    const joinNames = [plan.date, ...plan.dimensions].flatMap((dimension) =>
      dimension?.def.join ? [dimension.def.join] : [],
    );
    const selection = compileSelection(
      list,
      organizationId,
      { filter: plan.filter, saved },
      joinNames,
      new Set(),
      'body.filter',
    );
    let rows: AnalyticsSqlRow[];
    try {
      rows = await runAnalytics(this.db, analyticsStatement(plan, organizationId, selection));
    } catch (error) {
      // The zone passed the IANA check but the database's zone files may not know it.
      if (isUnknownTimeZone(error)) {
        throw validationError(`Unknown time zone "${plan.timezone ?? ''}": use an IANA name such as Europe/Berlin.`, [
          { path: 'body.timezone', message: 'is not a time zone the database knows' },
        ]);
      }
      throw error;
    }
    const summary = rows[0];
    if (!summary) throw new Error('the analytics statement answered no summary row');
    if (summary.overflow) {
      throw validationError(
        `The date range holds more than ${MAX_BUCKETS} ${plan.granularity} buckets: narrow the filter on ${plan.date?.name}, use a coarser granularity or set fillGaps to false.`,
        [{ path: 'body.granularity', message: `makes more than ${MAX_BUCKETS} buckets` }],
      );
    }
    if (rows.length > MAX_ROWS) {
      throw validationError(
        `The answer would hold more than ${MAX_ROWS} rows: narrow the filter, use a coarser granularity or a lower limit.`,
        [{ path: 'body', message: `makes more than ${MAX_ROWS} rows` }],
      );
    }
    return {
      data: rows.filter((row) => row.rank !== null).map((row) => toRow(plan, row)),
      meta: {
        resource: plan.source.resource,
        measures: plan.measures.map((measure) => measure.name),
        groupBy: plan.groupBy,
        granularity: plan.granularity,
        timezone: summary.zone,
        limit: plan.limit,
        truncated: Boolean(summary.truncated),
      },
    };
  }
}

/**
 * The list whose quick filters each source takes (docs/api.md#quick-filters): a source over the same rows as a list
 * takes that list's, so review answers (reviews with an answer) take those of reviews.
 */
const QUICK_FILTER_RESOURCE: Record<AnalyticsQueryBody['resource'], QuickFilterResource> = {
  reviews: 'reviews',
  'review-answers': 'reviews',
  orders: 'orders',
  customers: 'customers',
  products: 'products',
  'loyalty-members': 'loyalty-memberships',
  'loyalty-activity': 'loyalty-activity',
  'loyalty-rewards': 'loyalty-rewards',
};

/** The list's filter registry, with the to-one joins the dimensions need added beside its own. */
const listsWithJoins = new Map<AnalyticsSource, ListDefinition>();
function listWithJoins(source: AnalyticsSource): ListDefinition {
  if (!source.joins) return source.list;
  let list = listsWithJoins.get(source);
  if (!list) {
    list = { ...source.list, joins: { ...source.list.joins, ...source.joins } };
    listsWithJoins.set(source, list);
  }
  return list;
}

/**
 * A row of the answer (docs/api.md#analytics-response): each groupBy dimension by name (dates as bucket starts in
 * UTC, docs/api.md#timestamps), then each measure by name.
 */
function toRow(plan: AnalyticsPlan, row: AnalyticsSqlRow): Record<string, string | number | boolean | null> {
  const other = Number(row.rank) > plan.limit;
  const out: Record<string, string | number | boolean | null> = {};
  let next = 0;
  for (const name of plan.groupBy) {
    if (plan.date?.name === name) {
      out[name] = row.b === null || row.b === undefined ? null : new Date(row.b).toISOString();
    } else {
      const value = row[`d${next++}`];
      out[name] = other ? OTHER : (value as string | number | boolean | null);
    }
  }
  plan.measures.forEach((measure, i) => {
    const value = row[`m${i}`];
    out[measure.name] = value === null || value === undefined ? null : measureValue(measure.name, value);
  });
  return out;
}

/**
 * A measure as a JSON number. Sums arrive as exact decimals; one past 2^53 - 1 cannot be written as a JSON number
 * without rounding, so the query is refused rather than answered with a wrong total
 * (docs/api.md#analytics-response).
 */
function measureValue(name: string, value: unknown): number {
  const number = Number(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value) && !Number.isSafeInteger(number)) {
    throw unprocessable(
      `The ${name} of a row is ${value}, beyond 9,007,199,254,740,991 (2^53 - 1), the largest integer a JSON number carries exactly; narrow the filter or group by a dimension so that each row's ${name} is smaller.`,
      [{ path: 'body.measures', message: `${name} exceeds 2^53 - 1 in a row` }],
    );
  }
  return number;
}

function isUnknownTimeZone(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === '22023' && typeof message === 'string' && /time zone/i.test(message);
}

function describeSources(sources: readonly AnalyticsSource[]): AnalyticsSchema {
  return {
    data: sources.map((source) => ({
      resource: source.resource,
      description: source.description,
      measures: Object.entries(source.measures).map(([name, def]) => ({
        name,
        description: def.description,
        type: def.kind === 'average' ? ('number' as const) : ('integer' as const),
      })),
      dimensions: dimensionNames(source).map((name) => {
        if (name === 'metadata.<key>') {
          return {
            name,
            type: 'string' as const,
            description: `${source.metadata!.description} Any key of 1..40 characters, e.g. metadata.channel.`,
          };
        }
        const def = source.dimensions[name]!;
        return {
          name,
          type: def.type,
          description: def.description + (def.type === 'date' ? ' Bucketed by granularity in the time zone.' : ''),
          ...(def.enumValues ? { values: [...def.enumValues] } : {}),
        };
      }),
    })),
  };
}
