// The order-import rows the import benchmarks send (bench/orders-import.ts, bench/orders-import-cpu.ts,
// bench/orders-import-loyalty.ts): the organization's site, customers and products to reference, one import body of
// BENCH_ROWS orders with 3 items each, and the clean-up that deletes what a run imported (remoteId "imp-…").
import pg from 'pg';
import { ITEMS_PER_ORDER } from '../datasets/store-dataset.js';
import { databaseUrl, log } from './harness.js';

/** Orders per import request (BENCH_ROWS, default 1,000). */
export const ROWS = Number(process.env.BENCH_ROWS ?? 1000);

export interface References {
  site: string;
  emails: string[];
  slugs: string[];
}

export async function references(organizationId: string, url = databaseUrl()): Promise<References> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const site = (
      await client.query<{ domain: string }>('select domain from sites where organization_id = $1 limit 1', [
        organizationId,
      ])
    ).rows[0]!.domain;
    const emails = (
      await client.query<{ email: string }>('select email from customers where organization_id = $1', [organizationId])
    ).rows.map((r) => r.email);
    const slugs = (
      await client.query<{ slug: string }>('select slug from products where organization_id = $1', [organizationId])
    ).rows.map((r) => r.slug);
    return { site, emails, slugs };
  } finally {
    await client.end();
  }
}

const pick = <T>(values: readonly T[]) => values[Math.floor(Math.random() * values.length)]!;
const int = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1));

/** One import body: `ROWS` orders with 3 items each; `version` changes totals and quantities between create and update. */
export function body(refs: References, prefix: string, batch: number, version: number) {
  const data = Array.from({ length: ROWS }, (_, i) => {
    const items = Array.from({ length: ITEMS_PER_ORDER }, () => ({
      product: pick(refs.slugs),
      quantity: int(1, 3) + version,
      unitPriceCents: int(500, 20000),
    }));
    const subtotal = items.reduce((sum, item) => sum + item.quantity * item.unitPriceCents, 0);
    const createdAt = new Date(Date.now() - int(0, 30 * 24 * 3600) * 1000).toISOString();
    return {
      site: refs.site,
      customer: pick(refs.emails),
      remoteId: `${prefix}-${batch}-${i}`,
      number: `#${prefix}-${batch}-${i}`,
      totalCents: subtotal + 500 + Math.round(subtotal / 10),
      subtotalCents: subtotal,
      shippingCents: 500,
      taxCents: Math.round(subtotal / 10),
      currencyCode: 'USD',
      shippedAt: version > 0 ? createdAt : null,
      metadata: { channel: pick(['web', 'pos', 'app']), batch: String(batch) },
      createdAt,
      items,
    };
  });
  return { data };
}

export async function cleanUp(organizationId: string, url = databaseUrl()): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const deleted = await client.query(`delete from orders where organization_id = $1 and remote_id like 'imp-%'`, [
      organizationId,
    ]);
    await client.query('delete from import_job_records where organization_id = $1', [organizationId]);
    await client.query(`delete from events where organization_id = $1 and name like 'order.%'`, [organizationId]);
    await client.query('vacuum (analyze) orders, order_items, import_job_records, events');
    log(`cleaned up: ${deleted.rowCount} imported orders deleted with their items, provenance and events`);
  } finally {
    await client.end();
  }
}
