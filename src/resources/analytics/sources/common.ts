import { sql, type RawBuilder } from 'kysely';
import type { DimensionDef, ManyJoin } from '../types.js';

export const date = (column: string, description: string, nullable = true): DimensionDef => ({
  type: 'date',
  column,
  description,
  nullable,
});
export const text = (column: string, description: string, nullable = true): DimensionDef => ({
  type: 'string',
  column,
  description,
  nullable,
});
export const uuid = (column: string, description: string, nullable = true): DimensionDef => ({
  type: 'uuid',
  column,
  description,
  nullable,
});
export const flag = (column: string, description: string): DimensionDef => ({
  type: 'boolean',
  column,
  description,
  nullable: false,
});
export const oneOf = (
  column: string,
  values: readonly string[],
  description: string,
  nullable = false,
): DimensionDef => ({
  type: 'enum',
  column,
  description,
  nullable,
  enumValues: values,
});

/** The customer's country through the list's `customer` join (aliased c in every list that has one). */
export const customerCountry = (what: string): DimensionDef => ({
  type: 'string',
  column: 'c.country',
  join: 'customer',
  nullable: true,
  description: `Country (ISO 3166-1) of the ${what}'s customer; null when unknown.`,
});

/**
 * The names of a record's tags, one row per tag (`tags.name` of customers, orders and products): a join over the
 * organization's tag links, which the planner can hash once instead of probing per record.
 */
export function tagNames(kind: 'customer' | 'order' | 'product', recordColumn: string): ManyJoin {
  const links = sql.raw(`${kind}_tags`);
  const key = sql.raw(`${kind}_id`);
  const alias = sql.raw(`${kind}_tag_names`);
  return {
    name: `${kind}Tags`,
    join: (organizationId: RawBuilder<unknown>) => sql`left join (
      select tl.${key} as record_id, tn.name from ${links} tl
      join tags tn on tn.organization_id = tl.organization_id and tn.id = tl.tag_id
      where tl.organization_id = ${organizationId}) ${alias} on ${alias}.record_id = ${sql.raw(recordColumn)}`,
  };
}

export const tagsDimension = (
  kind: 'customer' | 'order' | 'product',
  recordColumn: string,
  what: string,
): DimensionDef => ({
  type: 'string',
  column: `${kind}_tag_names.name`,
  many: tagNames(kind, recordColumn),
  nullable: true,
  description: `A tag of the ${what}. A ${what} with several tags counts once under each; one without tags is grouped under null.`,
});
