/**
 * The audit log through HTTP (docs/api.md#audit-log): what a write request, a refusal, a sign-in, a sign-out, a key and
 * a user change leave; what is never recorded; GET /v1/audit-log's filters, pages, permission and tenancy; the
 * monthly partitions.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, setPasswordHash } from '../../src/auth/accounts.js';
import { hashPassword } from '../../src/auth/passwords.js';
import {
  auditMonth,
  auditPartitionName,
  dropAuditPartitionsBefore,
  ensureAuditPartition,
} from '../../src/db/audit-partitions.js';
import { withAuditEntry, type AuditRow } from '../../src/db/audit.js';
import type { UserRole } from '../../src/db/schema.js';
import { startTestApp, type Tenant, type TestApp } from '../support/app.js';

let t: TestApp;
const db = () => t.testDatabase.database.db;
const PASSWORD = 'correct horse battery';
let counter = 0;

beforeAll(async () => {
  t = await startTestApp({ config: { webhookAllowPrivateHosts: true } });
});
afterAll(() => t.close());

const tenant = () => t.tenant({ apiRequestsPerMinute: 1_000_000 });

async function importProduct(who: Tenant, slug = `p-${++counter}`) {
  const response = await t.request({
    method: 'POST',
    url: '/v1/products/import',
    key: who.key,
    body: { data: [{ title: 'A product', slug, url: `https://shop.example/${slug}` }] },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data[0] as { id: string };
}

async function entries(who: Tenant, query = ''): Promise<any[]> {
  const response = await t.request({ url: `/v1/audit-log${query}`, key: who.key });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data;
}

/**
 * The whole log once it holds `count` entries: a refused request's entry is written after its answer, so it may land
 * a moment after the client has the answer.
 */
async function settled(who: Tenant, count: number): Promise<any[]> {
  await expect.poll(async () => (await entries(who, '?limit=250')).length, { timeout: 10_000 }).toBe(count);
  return entries(who);
}

async function member(organizationId: string, role: UserRole) {
  const email = `audit${++counter}-${Date.now()}@example.com`;
  const user = await createUser(db(), { organizationId, email, role });
  await setPasswordHash(db(), user, await hashPassword(PASSWORD), undefined);
  return { user, email };
}

async function signedIn(email: string) {
  const response = await t.request({ method: 'POST', url: '/v1/session', body: { email, password: PASSWORD } });
  expect(response.statusCode, response.body).toBe(201);
  const cookie = [response.headers['set-cookie']].flat().find((line) => line?.startsWith('patron_session='))!;
  return { cookie: cookie.split(';')[0]!, csrfToken: response.json().csrfToken as string };
}

function as(
  session: { cookie: string; csrfToken: string },
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  url: string,
  body?: unknown,
) {
  return t.request({
    method,
    url,
    body,
    headers: { cookie: session.cookie, ...(method === 'GET' ? {} : { 'x-csrf-token': session.csrfToken }) },
  });
}

const keyIdOf = async (organizationId: string) =>
  (
    await db()
      .selectFrom('api_keys')
      .select('id')
      .where('organization_id', '=', organizationId)
      .orderBy('created_at')
      .executeTakeFirstOrThrow()
  ).id;

describe('what a write request records', () => {
  it('records a PATCH with its caller, path, status, request id, client and record, in the same commit', async () => {
    const who = await tenant();
    const product = await importProduct(who);
    const response = await t.request({
      method: 'PATCH',
      url: `/v1/products/${product.id}`,
      key: who.key,
      body: { notes: 'Renamed' },
      headers: { 'user-agent': 'audit-test/1.0', 'x-request-id': 'audit-req-1' },
    });
    expect(response.statusCode, response.body).toBe(200);
    const [entry] = await entries(who, `?resourceId=${product.id}`);
    expect(entry).toEqual({
      id: expect.any(String),
      createdAt: expect.stringMatching(/^\d{4}-/),
      actor: { type: 'apiKey', id: await keyIdOf(who.organization.id), label: who.key.slice(0, 11) },
      method: 'PATCH',
      path: `/v1/products/${product.id}`,
      status: 200,
      requestId: 'audit-req-1',
      ip: '127.0.0.1',
      userAgent: 'audit-test/1.0',
      resourceType: 'products',
      resourceId: product.id,
    });
  });

  it('records a create with the id it answered, and an import under its resource', async () => {
    const who = await tenant();
    await importProduct(who);
    const created = await t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key: who.key,
      body: { data: { url: 'https://localhost/in', events: ['order.updated'] } },
    });
    expect(created.statusCode, created.body).toBe(201);
    const log = await entries(who);
    expect(log.map((entry) => [entry.method, entry.path, entry.status, entry.resourceType])).toEqual([
      ['POST', '/v1/webhooks', 201, 'webhooks'],
      ['POST', '/v1/products/import', 200, 'products'],
    ]);
    expect(log[0].resourceId).toBe(created.json().id);
    expect(log[1].resourceId).toBeNull();
  });

  it('records refused writes after their answer: a 404, a 400 and a 403 each leave their status', async () => {
    const who = await tenant();
    const readOnly = await t.key(who.organization.id, ['products:read']);
    const missing = '01900000-0000-7000-8000-000000000000';
    const statuses = [
      await t.request({ method: 'PATCH', url: `/v1/products/${missing}`, key: who.key, body: { notes: 'x' } }),
      await t.request({ method: 'PATCH', url: `/v1/products/${missing}`, key: who.key, body: { nope: 1 } }),
      await t.request({ method: 'PATCH', url: `/v1/products/${missing}`, key: readOnly, body: { notes: 'x' } }),
    ].map((response) => response.statusCode);
    expect(statuses).toEqual([404, 400, 403]);
    const log = await settled(who, 3);
    expect(log.map((entry) => entry.status)).toEqual([403, 400, 404]);
    expect(log[0].actor.label).toBe(readOnly.slice(0, 11));
    expect(log.every((entry) => entry.resourceId === missing)).toBe(true);
  });

  it('never records a read', async () => {
    const who = await tenant();
    await t.request({ url: '/v1/products', key: who.key });
    await t.request({ url: '/v1/organization', key: who.key });
    expect(await entries(who)).toEqual([]);
  });
});

describe('sessions, keys and users', () => {
  it('records sign-ins (succeeded and failed), password changes, key creation and revocation, user changes and sign-out, and never a secret', async () => {
    const who = await tenant();
    const owner = await member(who.organization.id, 'owner');
    const wrong = await t.request({
      method: 'POST',
      url: '/v1/session',
      body: { email: owner.email, password: 'not the password 123' },
    });
    expect(wrong.statusCode).toBe(401);
    const session = await signedIn(owner.email);
    const newPassword = 'a much longer passphrase 9931';
    const changed = await as(session, 'PUT', '/v1/session/password', { currentPassword: PASSWORD, newPassword });
    expect(changed.statusCode, changed.body).toBe(204);
    const again = await signedIn2(owner.email, newPassword);
    const key = await as(again, 'POST', '/v1/keys', { name: 'reporting', permissions: ['orders:read'] });
    expect(key.statusCode, key.body).toBe(201);
    const secret: string = key.json().key;
    const revoked = await as(again, 'POST', `/v1/keys/${key.json().id}/revoke`);
    expect(revoked.statusCode).toBe(200);
    const viewer = await as(again, 'POST', '/v1/users', { email: `v${++counter}@example.com`, role: 'viewer' });
    expect(viewer.statusCode, viewer.body).toBe(201);
    const signInLink: string = viewer.json().signInLink;
    const promoted = await as(again, 'PATCH', `/v1/users/${viewer.json().user.id}`, { role: 'admin' });
    expect(promoted.statusCode).toBe(200);
    const hookSecret = 'whsec-plain-0123456789abcdef';
    const hook = await as(again, 'POST', '/v1/webhooks', {
      data: { url: 'https://localhost/x', events: ['order.updated'], hmacSecret: hookSecret },
    });
    expect(hook.statusCode, hook.body).toBe(201);
    const out = await as(again, 'DELETE', '/v1/session');
    expect(out.statusCode).toBe(204);

    const log = (await settled(who, 10)).reverse();
    expect(log.map((entry) => `${entry.method} ${entry.path} ${entry.status}`)).toEqual([
      'POST /v1/session 401',
      'POST /v1/session 201',
      'PUT /v1/session/password 204',
      'POST /v1/session 201',
      'POST /v1/keys 201',
      `POST /v1/keys/${key.json().id}/revoke 200`,
      'POST /v1/users 201',
      `PATCH /v1/users/${viewer.json().user.id} 200`,
      'POST /v1/webhooks 201',
      'DELETE /v1/session 204',
    ]);
    for (const entry of log) expect(entry.actor).toEqual({ type: 'user', id: owner.user.id, label: owner.email });
    expect(log[4].resourceId).toBe(key.json().id);
    expect(log[6].resourceId).toBe(viewer.json().user.id);

    // Nothing sent or answered in a body is in the table, seen as text: no password, key, secret, token or link.
    const { rows } = await sql<{ line: string }>`select a::text as line from audit_log a`.execute(db());
    const table = rows.map((row) => row.line).join('\n');
    for (const secretText of [
      PASSWORD,
      newPassword,
      'not the password 123',
      secret,
      secret.slice(11),
      hookSecret,
      session.csrfToken,
      session.cookie.split('=')[1]!,
      signInLink.split('/').pop()!,
      who.key,
    ]) {
      expect(table).not.toContain(secretText);
    }
  });

  it('leaves no entry for a sign-in naming no user: there is no organization to put it in', async () => {
    const before = await sql<{ n: number }>`select count(*)::int as n from audit_log`.execute(db());
    const response = await t.request({
      method: 'POST',
      url: '/v1/session',
      body: { email: `nobody-${Date.now()}@example.com`, password: 'whatever it is 123' },
    });
    expect(response.statusCode).toBe(401);
    const after = await sql<{ n: number }>`select count(*)::int as n from audit_log`.execute(db());
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);
  });
});

async function signedIn2(email: string, password: string) {
  const response = await t.request({ method: 'POST', url: '/v1/session', body: { email, password } });
  expect(response.statusCode, response.body).toBe(201);
  const cookie = [response.headers['set-cookie']].flat().find((line) => line?.startsWith('patron_session='))!;
  return { cookie: cookie.split(';')[0]!, csrfToken: response.json().csrfToken as string };
}

describe('one commit for a change and its entry', () => {
  const pendingOf = (organizationId: string, id: string): AuditRow => ({
    organizationId,
    id,
    createdAt: new Date(),
    actor: { type: 'system', id: null, label: 'test' },
    method: 'POST',
    path: '/test',
    status: 200,
    requestId: null,
    ip: null,
    userAgent: null,
    resourceType: 'test',
    resourceId: null,
  });
  const count = async (id: string) =>
    (await sql<{ n: number }>`select count(*)::int as n from audit_log where id = ${id}::uuid`.execute(db())).rows[0]!
      .n;

  it('writes the entry with a single-statement change, and not with one that fails or changes nothing', async () => {
    const who = await tenant();
    const product = await importProduct(who);
    const ids = ['01900000-0000-7000-8000-00000000aa01', '01900000-0000-7000-8000-00000000aa02'];
    const lone = { row: () => pendingOf(who.organization.id, ids[0]!), written: null as AuditRow | null };
    await withAuditEntry(lone, () =>
      db().updateTable('products').set({ title: 'Lone' }).where('id', '=', product.id).execute(),
    );
    expect(await count(ids[0]!)).toBe(1);
    expect(lone.written).not.toBeNull();

    const nothing = { row: () => pendingOf(who.organization.id, ids[1]!), written: null as AuditRow | null };
    await withAuditEntry(nothing, () =>
      db().updateTable('products').set({ title: 'None' }).where('id', '=', ids[1]!).execute(),
    );
    await expect(
      withAuditEntry(nothing, () => sql`update products set title = null where id = ${product.id}::uuid`.execute(db())),
    ).rejects.toThrow();
    expect(await count(ids[1]!)).toBe(0);
    expect(nothing.written).toBeNull();
  });

  it('writes the entry in a transaction that commits, once, and not in one that rolls back', async () => {
    const who = await tenant();
    const product = await importProduct(who);
    const id = '01900000-0000-7000-8000-00000000aa03';
    const pending = { row: () => pendingOf(who.organization.id, id), written: null as AuditRow | null };
    await expect(
      withAuditEntry(pending, () =>
        db()
          .transaction()
          .execute(async (trx) => {
            await trx.updateTable('products').set({ title: 'Rolled back' }).where('id', '=', product.id).execute();
            throw new Error('no');
          }),
      ),
    ).rejects.toThrow('no');
    expect(await count(id)).toBe(0);
    for (const title of ['First', 'Second']) {
      await withAuditEntry(pending, () =>
        db()
          .transaction()
          .execute((trx) => trx.updateTable('products').set({ title }).where('id', '=', product.id).execute()),
      );
    }
    expect(await count(id)).toBe(1);
  });
});

describe('GET /v1/audit-log', () => {
  it('filters by actor, resource, status and time, and pages newest first through cursors', async () => {
    const who = await tenant();
    const other = await t.key(who.organization.id);
    const products = [await importProduct(who), await importProduct(who)];
    for (const product of products) {
      await t.request({ method: 'PATCH', url: `/v1/products/${product.id}`, key: other, body: { notes: 'B' } });
    }
    const missing = '01900000-0000-7000-8000-000000000001';
    await t.request({ method: 'DELETE', url: `/v1/customers/${missing}`, key: other });
    const all = await settled(who, 5);
    const times = all.map((entry) => entry.createdAt);
    expect([...times].sort().reverse()).toEqual(times);

    const otherId = (
      await db().selectFrom('api_keys').select('id').where('prefix', '=', other.slice(0, 11)).executeTakeFirstOrThrow()
    ).id;
    expect((await entries(who, `?actor=apiKey:${otherId}`)).map((entry) => entry.method)).toEqual([
      'DELETE',
      'PATCH',
      'PATCH',
    ]);
    expect(await entries(who, '?actor=user')).toEqual([]);
    expect((await entries(who, '?resourceType=customers')).map((entry) => entry.status)).toEqual([404]);
    expect((await entries(who, `?resourceId=${products[0]!.id}`)).map((entry) => entry.method)).toEqual(['PATCH']);
    expect(await entries(who, '?status=4xx')).toHaveLength(1);
    expect(await entries(who, '?status=200')).toHaveLength(4);
    const middle = all[2].createdAt;
    expect((await entries(who, `?createdBefore=${middle}`)).map((entry) => entry.id)).toEqual(
      all.slice(3).map((entry) => entry.id),
    );
    expect((await entries(who, `?createdAfter=${middle}`)).map((entry) => entry.id)).toEqual(
      all.slice(0, 3).map((entry) => entry.id),
    );
    const filtered = await entries(
      who,
      `?filter=${encodeURIComponent(JSON.stringify({ method: 'PATCH' }))}&resourceType=products`,
    );
    expect(filtered).toHaveLength(2);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response = await t.request({
        url: `/v1/audit-log?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        key: who.key,
      });
      expect(response.statusCode).toBe(200);
      seen.push(...response.json().data.map((entry: { id: string }) => entry.id));
      cursor = response.json().nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.map((entry) => entry.id));
  });

  it('refuses a bad filter or cursor with a 400 naming the parameter', async () => {
    const who = await tenant();
    for (const [query, path] of [
      ['actor=robot', 'query.actor'],
      ['actor=apiKey:%20', 'query.actor'],
      ['status=99', 'query.status'],
      ['status=2x', 'query.status'],
      ['createdAfter=yesterday', 'query.createdAfter'],
      ['resourceType=Products!', 'query.resourceType'],
      ['cursor=not-a-cursor', 'query.cursor'],
      ['filter=%7B%22nope%22%3A1%7D', 'query.filter'],
      ['sort=status', 'query.sort'],
    ] as const) {
      const response = await t.request({ url: `/v1/audit-log?${query}`, key: who.key });
      expect(response.statusCode, query).toBe(400);
      expect(JSON.stringify(response.json().error.details ?? response.json()), query).toContain(path);
    }
  });

  it("answers only the caller's organization", async () => {
    const [one, two] = [await tenant(), await tenant()];
    await importProduct(one);
    await importProduct(two);
    const mine = await entries(one);
    expect(mine).toHaveLength(1);
    expect(mine[0].actor.label).toBe(one.key.slice(0, 11));
  });

  it('needs auditLog:read: owners and admins hold it, viewers and other keys do not', async () => {
    const who = await tenant();
    const reader = await t.key(who.organization.id, ['auditLog:read']);
    expect((await t.request({ url: '/v1/audit-log', key: reader })).statusCode).toBe(200);
    const products = await t.key(who.organization.id, ['products:read', 'products:write']);
    expect((await t.request({ url: '/v1/audit-log', key: products })).statusCode).toBe(403);
    for (const [role, status] of [
      ['owner', 200],
      ['admin', 200],
      ['viewer', 403],
    ] as const) {
      const user = await member(who.organization.id, role);
      const session = await signedIn(user.email);
      expect((await as(session, 'GET', '/v1/audit-log')).statusCode, role).toBe(status);
      expect((await as(session, 'GET', '/v1/session')).json().permissions.includes('auditLog:read'), role).toBe(
        status === 200,
      );
    }
  });

  it('offers no way to change or delete an entry', async () => {
    const who = await tenant();
    await importProduct(who);
    const [entry] = await entries(who);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      for (const url of ['/v1/audit-log', `/v1/audit-log/${entry.id}`]) {
        const response = await t.request({ method, url, key: who.key, body: { status: 200 } });
        expect(response.statusCode, `${method} ${url}`).toBe(404);
      }
    }
    const after = await entries(who);
    expect(after.find((each) => each.id === entry.id)).toEqual(entry);
  });
});

describe('monthly partitions', () => {
  it('is partitioned by month from its first migration, with this month and the next made', async () => {
    const { rows } = await sql<{ name: string }>`
      select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = 'audit_log'::regclass order by 1`.execute(db());
    const now = new Date();
    expect(rows.map((row) => row.name)).toEqual(
      expect.arrayContaining([
        'audit_log_default',
        auditPartitionName(auditMonth(now)),
        auditPartitionName(auditMonth(now, 1)),
      ]),
    );
    const kind = await sql<{ strategy: string }>`
      select partstrat as strategy from pg_partitioned_table where partrelid = 'audit_log'::regclass`.execute(db());
    expect(kind.rows[0]!.strategy).toBe('r');
  });

  it('takes an entry of a month without a partition, moves it when the month is made, and drops whole months', async () => {
    const who = await tenant();
    const far = new Date(Date.UTC(2031, 4, 15));
    const id = '01900000-0000-7000-8000-00000000bb01';
    const pending = {
      row: (): AuditRow => ({
        organizationId: who.organization.id,
        id,
        createdAt: far,
        actor: { type: 'system', id: null, label: null },
        method: 'POST',
        path: '/later',
        status: 200,
        requestId: null,
        ip: null,
        userAgent: null,
        resourceType: null,
        resourceId: null,
      }),
      written: null as AuditRow | null,
    };
    const product = await importProduct(who);
    await withAuditEntry(pending, () =>
      db().updateTable('products').set({ title: 'Later' }).where('id', '=', product.id).execute(),
    );
    const where = async () =>
      (
        await sql<{
          partition: string;
        }>`select tableoid::regclass::text as partition from audit_log where id = ${id}::uuid`.execute(db())
      ).rows.map((row) => row.partition);
    expect(await where()).toEqual(['audit_log_default']);
    expect(await ensureAuditPartition(db(), auditMonth(far))).toBe(true);
    expect(await ensureAuditPartition(db(), auditMonth(far))).toBe(false);
    expect(await where()).toEqual(['audit_log_p203105']);
    const dropped = await dropAuditPartitionsBefore(db(), new Date(Date.UTC(2031, 5, 1)));
    expect(dropped).toContain('audit_log_p203105');
    expect(await where()).toEqual([]);
  });
});
