import { sql } from 'kysely';
import type { Executor } from '../db/executor.js';
import { isUuid } from '../util/uuid.js';

/** Sites named by id or domain (docs/api.md#sites), resolved in one query: returns reference → site id. */
export async function resolveSites(
  db: Executor,
  organizationId: string,
  references: readonly string[],
): Promise<Map<string, string>> {
  const resolved = new Map<string, string>();
  if (references.length === 0) return resolved;
  const uuids = references.filter((ref) => isUuid(ref));
  const rows = await db
    .selectFrom('sites')
    .select(['id', 'domain'])
    .where('organization_id', '=', organizationId)
    .where((eb) =>
      eb.or([
        ...(uuids.length
          ? [
              eb(
                'id',
                'in',
                uuids.map((id) => id.toLowerCase()),
              ),
            ]
          : []),
        eb(
          sql`lower(domain)`,
          'in',
          references.map((ref) => ref.toLowerCase()),
        ),
      ]),
    )
    .execute();
  for (const reference of references) {
    const lower = reference.toLowerCase();
    const site = rows.find((row) => row.id === lower || row.domain.toLowerCase() === lower);
    if (site) resolved.set(reference, site.id);
  }
  return resolved;
}

/**
 * Customers named by id or email (docs/api.md#customers), resolved in one query: returns reference → customer id.
 * Emails match case-insensitively (the unique index is on lower(email)).
 */
export async function resolveCustomers(
  db: Executor,
  organizationId: string,
  references: readonly string[],
): Promise<Map<string, string>> {
  const resolved = new Map<string, string>();
  if (references.length === 0) return resolved;
  const uuids = [...new Set(references.filter((ref) => isUuid(ref)).map((ref) => ref.toLowerCase()))];
  const emails = [...new Set(references.map((ref) => ref.toLowerCase()))];
  const { rows } = await sql<{ id: string; email: string }>`
    select id, lower(email) as email from customers
    where organization_id = ${organizationId}::uuid
      and (id = any(${uuids}::uuid[]) or lower(email) = any(${emails}::text[]))`.execute(db);
  const byId = new Map(rows.map((row) => [row.id, row.id]));
  const byEmail = new Map(rows.map((row) => [row.email, row.id]));
  for (const reference of references) {
    const lower = reference.toLowerCase();
    const id = byId.get(lower) ?? byEmail.get(lower);
    if (id) resolved.set(reference, id);
  }
  return resolved;
}

/**
 * Products named by id or slug (docs/api.md#import-rows), resolved in one query: returns reference → product id.
 * Slugs match exactly (they are case-sensitive); an id wins over a slug that happens to look like one.
 */
export async function resolveProducts(
  db: Executor,
  organizationId: string,
  references: readonly string[],
): Promise<Map<string, string>> {
  if (references.length === 0) return new Map();
  const { rows } = await productsByReference(organizationId, references).execute(db);
  return productOfReference(references, rows);
}

/** `select id, slug` of the products named by id or slug (each found once per way it is named). */
const productsByReference = (organizationId: string, references: readonly string[]) => {
  const uuids = [...new Set(references.filter((ref) => isUuid(ref)).map((ref) => ref.toLowerCase()))];
  return sql<{ id: string; slug: string }>`
    select id, slug from products where organization_id = ${organizationId}::uuid and id = any(${uuids}::uuid[])
    union all
    ${productsBySlug(organizationId, [...new Set(references)])}`;
};

/** Reference → product id of the products found: by id (any case) first, else by exact slug. */
function productOfReference(
  references: readonly string[],
  found: readonly { id: string; slug: string }[],
): Map<string, string> {
  const byId = new Map(found.map((row) => [row.id, row.id]));
  const bySlug = new Map(found.map((row) => [row.slug, row.id]));
  const resolved = new Map<string, string>();
  for (const reference of references) {
    const id = byId.get(reference.toLowerCase()) ?? bySlug.get(reference);
    if (id) resolved.set(reference, id);
  }
  return resolved;
}

/**
 * `select id, slug` of the organization's products with these slugs, one probe of the unique (organization_id, slug)
 * index per slug (a lateral subquery is always planned that way): `slug = any(…)` with a thousand values cost more to
 * plan than to run and could be matched against the trigram index, and a plain join is hashed over the whole
 * organization when it is a large part of the table.
 */
export const productsBySlug = (organizationId: string, slugs: readonly string[]) => sql<{ id: string; slug: string }>`
  select p.id, p.slug from unnest(${[...slugs]}::text[]) as s(slug)
  cross join lateral (select id, slug from products where organization_id = ${organizationId}::uuid and slug = s.slug) p`;

/** A product's variants, for resolving one by id or slug within it. */
export interface ProductVariants {
  /** Variant ids of the product, in position order. */
  ids: string[];
  /** Variant id or slug → variant id. */
  byReference: Map<string, string>;
}

/**
 * Products named by id or slug (docs/api.md#import-rows) and the variants of each, in one statement (an order
 * import's items name both): reference → product id, and product id → its variants for resolveVariant.
 */
export async function resolveProductsWithVariants(
  db: Executor,
  organizationId: string,
  references: readonly string[],
): Promise<{ products: Map<string, string>; variants: Map<string, ProductVariants> }> {
  const variants = new Map<string, ProductVariants>();
  if (references.length === 0) return { products: new Map(), variants };
  const { rows } = await sql<{ id: string; slug: string; variants: [id: string, slug: string][] | null }>`
    with found as (${productsByReference(organizationId, references)})
    select f.id, f.slug, (
      select json_agg(json_build_array(v.id, v.slug) order by v.position, v.id) from product_variants v
      where v.organization_id = ${organizationId}::uuid and v.product_id = f.id) as variants
    from found f`.execute(db);
  for (const row of rows) {
    if (variants.has(row.id)) continue;
    const entry: ProductVariants = { ids: [], byReference: new Map() };
    for (const [id, slug] of row.variants ?? []) {
      entry.ids.push(id);
      if (!entry.byReference.has(slug)) entry.byReference.set(slug, id);
    }
    for (const id of entry.ids) entry.byReference.set(id, id);
    variants.set(row.id, entry);
  }
  return { products: productOfReference(references, rows), variants };
}

/**
 * A variant named by id or slug within its product, or omitted when the product has exactly one
 * (docs/api.md#import-rows). Returns the variant id, or why it cannot be resolved.
 */
export function resolveVariant(
  variants: ProductVariants | undefined,
  reference: string | undefined,
  productReference: string,
): { id: string } | { error: string } {
  const count = variants?.ids.length ?? 0;
  if (reference === undefined) {
    if (count === 1) return { id: variants!.ids[0]! };
    return count === 0
      ? { error: `Product "${productReference}" has no variants.` }
      : { error: `Product "${productReference}" has ${count} variants; name one with variant (id or slug).` };
  }
  const id =
    variants?.byReference.get(reference) ??
    (isUuid(reference) ? variants?.byReference.get(reference.toLowerCase()) : undefined);
  return id ? { id } : { error: `Variant "${reference}" does not exist on product "${productReference}".` };
}
