import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResourceModule } from '../../src/core/types.js';
import { cascadeRegistry, type CascadeParent } from '../../src/core/cascades.js';
import { CASCADE_PARENTS, CUSTOMER, ORDER, PRODUCT, PROGRAM, SITE } from '../../src/resource-kit/cascade-parents.js';
import { uuidv7 } from '../../src/util/ids.js';
import { allResources, startTestApp, type TestApp } from '../support/app.js';

/** Every parent's deletion, seen by a module that declares an edge under each (docs/architecture.md#declared-cascades). */
const reached: { parent: string; id: string }[] = [];
const probe: ResourceModule = {
  name: 'cascade-probe',
  routes: () => {},
  cascades: CASCADE_PARENTS.map((parent) => ({
    parent,
    references: [],
    action: 'delete' as const,
    order: 1000,
    run: async (_trx, _organizationId, id) => {
      reached.push({ parent: parent.name, id });
    },
  })),
};

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ resources: [...allResources, probe] });
});
afterAll(() => t.close());

const registry = cascadeRegistry(allResources);

describe('declared cascades', () => {
  it('declares an edge for every reference to a parent from another folder, as the database catalog reports them', async () => {
    const { rows } = await sql<{ parent: string; child: string; column: string; on_delete: string }>`
      select parent.relname as parent, child.relname as child, a.attname as column, f.confdeltype as on_delete
      from pg_constraint f
      join pg_class child on child.oid = f.conrelid
      join pg_class parent on parent.oid = f.confrelid
      join pg_namespace n on n.oid = child.relnamespace
      join lateral unnest(f.conkey) as k(attnum) on true
      join pg_attribute a on a.attrelid = child.oid and a.attnum = k.attnum
      where f.contype = 'f' and n.nspname = current_schema() and a.attname <> 'organization_id'
        and child.oid <> parent.oid`.execute(t.testDatabase.database.db);
    for (const parent of CASCADE_PARENTS) {
      const edges = registry.edges.get(parent) ?? [];
      const declared = new Set(edges.flatMap((edge) => edge.references.map((ref) => `${ref.table}.${ref.column}`)));
      const undeclared = rows
        .filter((row) => row.parent === parent.table && !parent.ownTables.includes(row.child))
        .map((row) => `${row.child}.${row.column}`)
        .filter((reference) => !declared.has(reference));
      expect(undeclared, `references to ${parent.table} with no edge`).toEqual([]);
      // A foreign-key edge leaves the work to the key, which must then cascade.
      for (const edge of edges.filter((each) => each.action === 'foreign-key')) {
        for (const ref of edge.references) {
          const key = rows.find(
            (row) => row.parent === parent.table && row.child === ref.table && row.column === ref.column,
          );
          expect(key?.on_delete, `${ref.table}.${ref.column} cascades from ${parent.table}`).toBe('c');
        }
      }
    }
  });

  it('names only columns that exist, under parents that are declared, each edge that acts with something to run', async () => {
    const { rows } = await sql<{ table: string; column: string }>`
      select table_name as table, column_name as column from information_schema.columns
      where table_schema = current_schema()`.execute(t.testDatabase.database.db);
    const columns = new Set(rows.map((row) => `${row.table}.${row.column}`));
    for (const [parent, edges] of registry.edges) {
      expect(CASCADE_PARENTS).toContain(parent);
      for (const edge of edges) {
        expect(edge.references.length).toBeGreaterThan(0);
        for (const ref of edge.references)
          expect(columns, `${ref.table}.${ref.column}`).toContain(`${ref.table}.${ref.column}`);
        expect(edge.action === 'foreign-key' ? edge.run : typeof edge.run).toBe(
          edge.action === 'foreign-key' ? undefined : 'function',
        );
      }
    }
  });

  it("reaches every parent's declared children from the parent's DELETE", async () => {
    const tenant = await t.tenant();
    const org = tenant.organization.id;
    const send = async (method: 'POST' | 'DELETE', url: string, body?: unknown) => {
      const response = await t.request({ method, url: `/v1${url}`, key: tenant.key, body });
      expect(response.statusCode, response.body).toBeLessThan(300);
      return response.json();
    };
    const customerId = uuidv7();
    await t.testDatabase.database.db
      .insertInto('customers')
      .values({ organization_id: org, id: customerId, email: 'ada@example.com', metadata: JSON.stringify({}) })
      .execute();
    const site = await send('POST', '/sites', { data: { name: 'Shop', domain: 'shop.example' } });
    await send('POST', '/products/import', { data: [{ slug: 'mug', title: 'Mug' }] });
    const product = (await t.testDatabase.database.db
      .selectFrom('products')
      .select('id')
      .where('organization_id', '=', org)
      .executeTakeFirstOrThrow())!;
    await send('POST', '/orders/import', {
      data: [{ site: 'shop.example', customer: 'ada@example.com', remoteId: 'o-1', number: '#1' }],
    });
    const order = (await t.testDatabase.database.db
      .selectFrom('orders')
      .select('id')
      .where('organization_id', '=', org)
      .executeTakeFirstOrThrow())!;
    const program = await send('POST', '/loyalty-programs', { data: { name: 'VIP' } });

    const deletions: [CascadeParent, string, string][] = [
      [ORDER, `/orders/${order.id}`, order.id],
      [CUSTOMER, `/customers/${customerId}`, customerId],
      [SITE, `/sites/${site.id}`, site.id],
      [PRODUCT, `/products/${product.id}`, product.id],
      [PROGRAM, `/loyalty-programs/${program.id}`, program.id],
    ];
    expect(deletions.map(([parent]) => parent).sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      [...CASCADE_PARENTS].sort((a, b) => a.name.localeCompare(b.name)),
    );
    for (const [parent, url, id] of deletions) {
      await send('DELETE', url);
      expect(reached.at(-1)).toEqual({ parent: parent.name, id });
    }
  });
});
