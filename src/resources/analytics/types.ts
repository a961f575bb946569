import type { RawBuilder } from 'kysely';
import type { ListDefinition } from '../../lists/types.js';

/**
 * How a measure is computed from the selected rows. Each kind re-aggregates exactly (docs/api.md#limit-and-other):
 * counts and sums add up, an average is carried as its sum and count, a distinct count is counted again from the rows.
 */
export type MeasureKind = 'count' | 'sum' | 'average' | 'distinct';

export interface MeasureDef {
  kind: MeasureKind;
  /** What the number means, shown by GET /analytics/schema. */
  description: string;
  /** Trusted SQL over the source's tables: the summed, averaged or counted value (not for count). */
  value?: string;
  /** Trusted SQL condition: only rows meeting it count (count and sum). */
  where?: string;
}

export type DimensionType = 'date' | 'string' | 'enum' | 'boolean' | 'uuid' | 'integer';

/**
 * A to-many dimension: a left join of (record key, value) rows, so a record appears once per related value (a
 * record without any appears once, with null). `join` builds it with the organization as a parameter, which keeps it
 * a plain hash join over one organization's rows.
 */
export interface ManyJoin {
  name: string;
  join: (organizationId: RawBuilder<unknown>) => RawBuilder<unknown>;
}

export interface DimensionDef {
  type: DimensionType;
  description: string;
  /** Trusted SQL over the source's tables. */
  column: string;
  /** False when the column can never be null (lets a date skip the null bucket). */
  nullable: boolean;
  enumValues?: readonly string[];
  /** A to-one join of the list definition (or the source's own) the column needs. */
  join?: string;
  /** The to-many join the column comes from. */
  many?: ManyJoin;
}

export interface AnalyticsSource {
  /** The resource name of the query body. */
  resource: string;
  description: string;
  /**
   * The resource's list definition: the filter document of its list endpoint, compiled by the one engine
   * (docs/api.md#filter-documents).
   */
  list: ListDefinition;
  /** The FROM clause when it is not the list's own (review-answers unnest the reviews' answers). */
  from?: string;
  /** To-one joins the dimensions need beyond the list's. */
  joins?: Record<string, string>;
  measures: Record<string, MeasureDef>;
  dimensions: Record<string, DimensionDef>;
  /** The jsonb column `metadata.<key>` dimensions read; absent when the resource has no metadata. */
  metadata?: { column: string; join?: string; description: string };
}
