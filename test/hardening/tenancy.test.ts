/**
 * Issue 8, tenancy: two organizations seeded alike; organization B's key sweeps every operation of the OpenAPI
 * document aimed at A's records (path ids, filters on ids, search, includes, bodies that reference A's records,
 * bulk updates, imports, analytics). Every answer must equal the answer for ids that exist nowhere, no answer may
 * carry anything of A's, and A's rows in every tenant table must be exactly as they were.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, createUser, type UserRow } from '../../src/auth/accounts.js';
import { queueMail } from '../../src/resources/mail/index.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';

let t: TestApp;
let a: Seeded;
let b: Seeded;

interface Seeded {
  tenant: Tenant;
  marker: string;
  /** Every id the organization's list endpoints show, by collection path (`/products`, `/loyalty-rewards`…). */
  ids: Map<string, string[]>;
  /** Items of the organization's wishlists (DELETE /wishlists/{id}/items/{itemId}). */
  wishlistItemIds: string[];
  variantIds: string[];
  deliveryIds: string[];
  rewardCodes: string[];
  ruleIds: string[];
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const db = () => t.testDatabase.database.db;

/** Who may call an operation (docs/api.md#dashboard-sessions): a key, only a dashboard session, or anyone. */
type Access = 'key' | 'session' | 'public';

/** Each organization's owner, whose dashboard session calls the session-only operations. */
const owners = new Map<string, UserRow>();

/**
 * A call as the organization: with its key, or for a session-only operation with a fresh session of its owner (so
 * signing out ends only that call's session), or with nothing for signing in.
 */
async function call(tenant: Tenant, method: string, url: string, body?: unknown, access: Access = 'key') {
  let headers: Record<string, string> = {};
  if (access === 'session') {
    let owner = owners.get(tenant.organization.id);
    if (!owner) {
      owner = await createUser(db(), {
        organizationId: tenant.organization.id,
        email: `owner@${tenant.organization.id}.example`,
        role: 'owner',
      });
      owners.set(tenant.organization.id, owner);
    }
    const { token, session } = await createSession(db(), owner);
    headers = { cookie: `patron_session=${token}`, 'x-csrf-token': session.csrf_token };
  }
  const response = await t.request({
    method: method as 'GET',
    url: `/v1${url}`,
    key: access === 'key' ? tenant.key : undefined,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  return response;
}

async function ok(tenant: Tenant, method: string, url: string, body: unknown, status = 200) {
  const response = await call(tenant, method, url, body);
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(status);
  return response.json();
}

/** The same records in each organization, each name carrying the organization's marker so a leak is visible. */
async function seed(marker: string): Promise<Seeded> {
  const tenant = await t.tenant({ name: `${marker} org`, apiRequestsPerMinute: 1_000_000 });
  const m = marker;
  await ok(
    tenant,
    'POST',
    '/sites',
    { data: { name: `${m} shop`, domain: `${m}.example`, platform: 'custom', currencyCode: 'EUR' } },
    201,
  );
  await ok(tenant, 'POST', '/products/import', {
    data: [
      {
        slug: `${m}-shirt`,
        title: `${m} Shirt`,
        tags: [`${m}-summer`],
        variants: [{ slug: `${m}-shirt-m`, title: `${m} M` }],
        sites: [`${m}.example`],
      },
      { slug: `${m}-mug`, title: `${m} Mug`, tags: [`${m}-kitchen`] },
    ],
  });
  await ok(tenant, 'POST', '/customers/import', {
    data: [
      { email: `${m}-alice@example.com`, firstName: `${m}Alice`, tags: [`${m}-vip`] },
      { email: `${m}-bob@example.com`, firstName: `${m}Bob` },
    ],
  });
  await ok(tenant, 'POST', '/orders/import', {
    data: [
      {
        site: `${m}.example`,
        customer: `${m}-alice@example.com`,
        remoteId: `${m}-r1`,
        number: `${m}-1001`,
        totalCents: 2500,
        currencyCode: 'EUR',
        tags: [`${m}-gift`],
        items: [{ product: `${m}-shirt`, variant: `${m}-shirt-m`, quantity: 1, unitPriceCents: 2500 }],
      },
    ],
  });
  const customers = (await ok(tenant, 'GET', '/customers?limit=250', undefined)).data as {
    id: string;
    email: string;
  }[];
  const alice = customers.find((customer) => customer.email.startsWith(`${m}-alice`))!;
  const membership = await ok(tenant, 'POST', '/loyalty-memberships', { data: { customerId: alice.id } }, 201);
  await ok(tenant, 'POST', `/loyalty-memberships/${membership.id}/points-adjustments`, {
    points: 1000,
    reason: `${m} welcome`,
  });
  await ok(tenant, 'POST', '/loyalty-tiers', { data: { name: `${m} Silver`, thresholdPoints: 100, position: 1 } }, 201);
  const coupon = { type: 'amountCoupon', amountCents: 500, productFilter: null, minimumOrderTotalCents: null };
  const rewardRule = await ok(
    tenant,
    'POST',
    '/loyalty-rules',
    { data: { section: 'rewards', name: `${m} five off`, config: { pointsCost: 100, reward: coupon } } },
    201,
  );
  await ok(
    tenant,
    'POST',
    '/loyalty-rules',
    { data: { section: 'stampCards', name: `${m} coffee`, config: { stampsRequired: 5, reward: coupon } } },
    201,
  );
  await ok(tenant, 'POST', `/loyalty-memberships/${membership.id}/claim`, { loyaltyRuleId: rewardRule.id }, 201);
  const issued = await ok(
    tenant,
    'POST',
    '/loyalty-rewards',
    { data: { loyaltyMembershipId: membership.id, reward: coupon, reason: `${m} sorry` } },
    201,
  );
  await ok(tenant, 'POST', '/loyalty-stamps', { customer: `${m}-alice@example.com` });
  const reviews = await call(tenant, 'POST', '/reviews/import', {
    data: [
      {
        product: `${m}-shirt`,
        customer: `${m}-alice@example.com`,
        rating: 5,
        title: `${m} great`,
        body: `${m} fits well.`,
        published: true,
      },
      {
        product: `${m}-mug`,
        customer: `${m}-bob@example.com`,
        rating: 2,
        title: `${m} meh`,
        body: `${m} chipped.`,
        published: false,
      },
    ],
  });
  if (reviews.statusCode !== 404) expect(reviews.statusCode, reviews.body).toBe(200);
  const hook = await ok(
    tenant,
    'POST',
    '/webhooks',
    {
      data: {
        url: `https://93.184.215.14/${m}`,
        events: ['order.updated', 'site.created'],
        hmacSecret: `${m}-secret-0123456789`,
      },
    },
    201,
  );
  await ok(tenant, 'POST', `/webhooks/${hook.id}/test`, undefined, 201);
  await ok(
    tenant,
    'POST',
    '/quick-filters',
    { data: { resource: 'customers', name: `${m} view`, filter: { 'metadata.marker': m } } },
    201,
  );
  await ok(
    tenant,
    'POST',
    '/email-templates',
    {
      data: {
        kind: 'rewardIssued',
        name: `${m} reward mail`,
        subject: `${m}: a reward for you, {{ customer.firstName }}`,
        html: `<p>${m} {{ reward.code }}</p>`,
      },
    },
    201,
  );
  // A survey flow, and an order that ships so that the flow schedules its survey (and queues its request).
  const surveyTemplate = await ok(
    tenant,
    'POST',
    '/email-templates',
    {
      data: {
        kind: 'surveyRequest',
        name: `${m} survey mail`,
        subject: `${m}: how was {{ order.number }}?`,
        html: `<p>${m} {{ survey.url }}</p>`,
      },
    },
    201,
  );
  await ok(
    tenant,
    'POST',
    '/survey-flows',
    {
      data: {
        name: `${m} after shipping`,
        trigger: 'orderShipped',
        delayDays: 0,
        emailTemplateId: surveyTemplate.id,
        questions: [{ id: 'overall', text: `${m} how was it?`, kind: 'rating' }],
      },
    },
    201,
  );
  const [shipped] = (await ok(tenant, 'GET', '/orders', undefined)).data as { id: string }[];
  await ok(tenant, 'PATCH', `/orders/${shipped!.id}`, { shippedAt: '2026-05-04T08:00:00Z' });
  // A mail queued directly too, as a feature that sends mail does, in a transaction.
  await t.testDatabase.database.db.transaction().execute((trx) =>
    queueMail(trx, {
      organizationId: tenant.organization.id,
      kind: 'rewardIssued',
      recipient: `${m}-alice@example.com`,
      subject: `${m} reward`,
      html: `<p>${m}</p>`,
      text: m,
    }),
  );
  // Queued, never run here: the sweep reads, downloads (409 for the owner, 404 for the other) and cancels it.
  await ok(tenant, 'POST', '/export-jobs', { resource: 'products', format: 'jsonl', search: m }, 202);
  // Queued too (a file sent as CSV): the sweep reads it, its skipped rows, and cancels it.
  const upload = await t.request({
    method: 'POST',
    url: '/v1/import-jobs?resource=customers',
    key: tenant.key,
    body: `email,firstName\n${m}-imported@example.com,Imported\n`,
    headers: { 'content-type': 'text/csv' },
  });
  expect(upload.statusCode, upload.body).toBe(202);
  await ok(tenant, 'POST', '/wishlists/import', {
    data: [
      {
        customer: `${m}-alice@example.com`,
        name: `${m} wishes`,
        remoteId: `${m}-W1`,
        metadata: { marker: m },
        items: [{ product: `${m}-shirt`, variant: `${m}-shirt-m`, note: `${m} note` }, { product: `${m}-mug` }],
      },
    ],
  });

  await ok(tenant, 'POST', '/product-questions/import', {
    data: [
      {
        product: `${m}-shirt`,
        customer: `${m}-alice@example.com`,
        remoteId: `${m}-Q1`,
        authorName: `${m} Alice`,
        authorEmail: `${m}-alice@example.com`,
        body: `${m} question: does it shrink?`,
        metadata: { marker: m },
        answers: [{ body: `${m} answer`, authorName: `${m} shop` }],
      },
    ],
  });

  const seeded: Seeded = {
    tenant,
    marker,
    ids: new Map(),
    variantIds: [],
    deliveryIds: [],
    wishlistItemIds: [],
    rewardCodes: [issued.code],
    ruleIds: [rewardRule.id],
  };
  return seeded;
}

interface Operation {
  method: string;
  path: string;
  access?: Access;
}

async function operations(): Promise<Operation[]> {
  const response = await t.app.inject({ url: '/openapi.json' });
  const document = response.json() as { paths: Record<string, Record<string, Record<string, unknown>>> };
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, operation]) => ({
        method: method.toUpperCase(),
        path: path.replace(/^\/v1/, ''),
        access: operation['x-session-only'] ? 'session' : operation['x-public'] ? 'public' : 'key',
      })),
  );
}

/** Fills in what only the organization's lists can tell: ids per collection, variant and delivery ids. */
async function collectIds(seeded: Seeded, ops: readonly Operation[]): Promise<void> {
  const lists = ops.filter((op) => op.method === 'GET' && !op.path.includes('{') && op.path !== '/organization');
  for (const list of lists) {
    const response = await call(
      seeded.tenant,
      'GET',
      // The dashboard's lists have every record on one page, and take no query.
      list.access === 'session' ? list.path : `${list.path}${list.path.includes('?') ? '&' : '?'}limit=100`,
      undefined,
      list.access,
    );
    if (response.statusCode !== 200) continue;
    const body = response.json();
    const ids = Array.isArray(body?.data)
      ? body.data.map((row: { id?: unknown }) => row.id).filter((id: unknown) => typeof id === 'string')
      : [];
    seeded.ids.set(list.path, ids);
  }
  const products = await ok(seeded.tenant, 'GET', '/products?include=variants&limit=100', undefined);
  seeded.variantIds = products.data.flatMap((product: { variants: { id: string }[] }) =>
    product.variants.map((variant) => variant.id),
  );
  const wishlists = await ok(seeded.tenant, 'GET', '/wishlists?include=items&limit=100', undefined);
  seeded.wishlistItemIds = wishlists.data.flatMap((wishlist: { items: { id: string }[] }) =>
    wishlist.items.map((item) => item.id),
  );
  // Answers have no list of their own: they are read through their questions.
  const questions = await ok(seeded.tenant, 'GET', '/product-questions?include=answers&limit=100', undefined);
  seeded.ids.set(
    '/product-question-answers',
    questions.data.flatMap((question: { answers: { id: string }[] }) => question.answers.map((answer) => answer.id)),
  );
  for (const hookId of seeded.ids.get('/webhooks') ?? []) {
    const deliveries = await ok(seeded.tenant, 'GET', `/webhooks/${hookId}/events?limit=50`, undefined);
    seeded.deliveryIds.push(...deliveries.data.map((delivery: { id: string }) => delivery.id));
  }
}

/** Which of the owner's ids a path parameter takes: the collection the path starts with, or the named kind. */
function idFor(owner: Seeded, path: string, parameter: string): string {
  if (parameter === 'variantId') return owner.variantIds[0]!;
  if (parameter === 'deliveryId') return owner.deliveryIds[0] ?? uuidv7();
  if (parameter === 'itemId') return owner.wishlistItemIds[0]!;
  const collection = `/${path.split('/')[1]}`;
  const ids = owner.ids.get(collection) ?? [];
  if (ids.length === 0) throw new Error(`No ${collection} of ${owner.marker} to aim ${path} at: seed one`);
  return ids[0]!;
}

/** Bodies that name the owner's records where an operation takes references; {} elsewhere. */
function bodyFor(op: Operation, owner: Seeded): unknown {
  const m = owner.marker;
  const customerId = owner.ids.get('/customers')?.[0];
  const membershipId = owner.ids.get('/loyalty-memberships')?.[0];
  const productId = owner.ids.get('/products')?.[0];
  const key = `${op.method} ${op.path}`;
  const bodies: Record<string, unknown> = {
    'POST /orders/import': {
      data: [
        {
          site: owner.ids.get('/sites')?.[0],
          customer: customerId,
          remoteId: `x-${m}`,
          number: 'x',
          totalCents: 1,
          currencyCode: 'EUR',
          items: [{ product: productId, quantity: 1, unitPriceCents: 1 }],
        },
      ],
    },
    'POST /customers/import': { data: [{ email: `${m}-alice@example.com`, firstName: 'Changed?' }] },
    'POST /products/import': { data: [{ slug: `${m}-shirt`, title: 'Changed?' }] },
    'POST /loyalty-memberships': { data: { customerId } },
    'POST /loyalty-memberships/import': { data: [{ customer: customerId }] },
    'POST /loyalty-rewards': {
      data: { loyaltyMembershipId: membershipId, reward: { type: 'freeShipping', maximumValueCents: null } },
    },
    'POST /loyalty-rewards/redeem': { code: owner.rewardCodes[0] },
    'POST /loyalty-memberships/{id}/claim': { loyaltyRuleId: owner.ruleIds[0] },
    'POST /loyalty-memberships/{id}/points-adjustments': { points: 5, reason: 'cross' },
    'POST /loyalty-events': { data: { loyaltyMembershipId: membershipId, event: 'signup' } },
    'POST /loyalty-stamps': { loyaltyMembershipId: membershipId },
    'POST /loyalty-history': {
      data: [{ loyaltyMembershipId: membershipId, kind: 'earned', points: 5, createdAt: '2024-01-01T00:00:00Z' }],
    },
    'POST /loyalty-activity/bulk-expire': { reason: 'cross' },
    'POST /export-jobs': { resource: 'customers', format: 'csv', quickFilter: owner.ids.get('/quick-filters')?.[0] },
    'PATCH /products/bulk-update': { addTags: ['cross'] },
    'PATCH /customers/bulk-update': { addTags: ['cross'] },
    'PATCH /orders/bulk-update': { addTags: ['cross'] },
    'PATCH /reviews/bulk-update': { flagged: true },
    'POST /reviews/import': {
      data: [{ product: productId, customer: customerId, rating: 5, title: 'x', body: 'x', published: true }],
    },
    'POST /loyalty-rules': {
      data: {
        section: 'rules',
        name: 'x',
        config: { type: 'orderSpend', pointsPerUnit: 1 },
        loyaltyProgramId: owner.ids.get('/loyalty-programs')?.[0],
      },
    },
    'POST /loyalty-tiers': {
      data: { name: 'x', thresholdPoints: 5000, loyaltyProgramId: owner.ids.get('/loyalty-programs')?.[0] },
    },
    'POST /analytics/query': {
      resource: 'orders',
      measures: ['count'],
      filter: JSON.stringify({ 'customer.id': customerId }),
    },
    'PATCH /products/{productId}': { tags: ['cross'] },
    'PATCH /orders/{id}': { tags: ['cross'] },
    'PATCH /customers/{id}': { tags: ['cross'] },
    'PATCH /products/{productId}/variants/{variantId}': { metadata: { cross: '1' } },
    'PATCH /reviews/{id}': { flagged: true },
    'PUT /reviews/{id}/reply': { body: 'cross' },
    'PATCH /products/{id}/review-summary': { suppressed: true },
    'PATCH /loyalty-memberships/{id}': { metadata: { cross: '1' } },
    'PUT /webhooks/{id}': { data: { isActive: false } },
  };
  if (key in bodies) return bodies[key];
  return op.method === 'GET' || op.method === 'DELETE' ? undefined : {};
}

/** The filters and searches a list takes, each naming the owner's records. */
function listQueries(op: Operation, owner: Seeded): string[] {
  const ids = owner.ids.get(op.path) ?? [];
  const filter = (document: unknown) => `filter=${encodeURIComponent(JSON.stringify(document))}`;
  const queries = [`search=${owner.marker}`, ...(ids[0] ? [filter({ id: ids[0] }), filter({ id: { in: ids } })] : [])];
  return queries;
}

/** Replaces every id of the owner's in a URL or body with an id that exists nowhere. */
function withMissingIds(value: string, owner: Seeded): string {
  const mine = new Set([...[...owner.ids.values()].flat(), ...owner.variantIds, ...owner.deliveryIds]);
  return value
    .replace(UUID, (id) => (mine.has(id) ? uuidv7() : id))
    .replaceAll(owner.rewardCodes[0]!, 'ZZZZ-ZZZZ-ZZZZ');
}

/** A's rows in every tenant table (any table with organization_id), hashed per table. */
async function snapshot(organizationId: string): Promise<Record<string, string>> {
  const { rows: tables } = await sql<{ table_name: string }>`
    select table_name from information_schema.columns
    where table_schema = current_schema() and column_name = 'organization_id' order by table_name`.execute(db());
  const result: Record<string, string> = {};
  for (const { table_name: table } of tables) {
    const { rows } = await sql<{
      row: unknown;
    }>`select to_jsonb(x) as row from ${sql.table(table)} x where organization_id = ${organizationId}::uuid`.execute(
      db(),
    );
    const texts = rows.map((row) => JSON.stringify(row.row)).sort();
    result[table] = `${texts.length}:${createHash('sha256').update(texts.join('\n')).digest('hex')}`;
  }
  return result;
}

/**
 * Anything of the owner's in an answer that the request did not itself name. An import matching by natural key
 * (A's slug or email) rightly creates B's own record with that text, so a request carrying the marker may echo it.
 */
function leaks(text: string, owner: Seeded, sent: string): string[] {
  const mine = new Set([
    ...[...owner.ids.values()].flat(),
    ...owner.variantIds,
    ...owner.deliveryIds,
    owner.tenant.organization.id,
  ]);
  const found = [...new Set(text.match(UUID) ?? [])].filter((id) => mine.has(id) && !sent.includes(id));
  const echoesMarker = sent.includes(owner.marker);
  if (!echoesMarker && (text.includes(`${owner.marker}-`) || text.includes(`${owner.marker} `)))
    found.push(`marker "${owner.marker}"`);
  return found;
}

/**
 * Every operation of the document the attacker may call, aimed at A's records (path ids, filters on ids, includes,
 * bodies), each compared with the same request for ids that exist nowhere: the failures found, and how many requests.
 */
async function sweep(attacker: Tenant, accesses: readonly Access[]): Promise<{ failures: string[]; requests: number }> {
  const ops = await operations();
  expect(ops.length).toBeGreaterThan(60);
  const failures: string[] = [];
  let requests = 0;

  for (const op of ops.filter((each) => accesses.includes(each.access ?? 'key'))) {
    const parameters = [...op.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
    const path = parameters.reduce(
      (current, parameter) => current.replace(`{${parameter}}`, idFor(a, op.path, parameter)),
      op.path,
    );
    const targets =
      op.method === 'GET' && parameters.length === 0 && op.access === 'key'
        ? listQueries(op, a).map((query) => `${path}?${query}`)
        : [path];
    if (op.method === 'GET' && parameters.length > 0) targets.push(`${path}?include=${includesOf(op)}`);
    for (const target of targets) {
      const body = bodyFor(op, a);
      const crossed = await call(attacker, op.method, target, body, op.access);
      const missingTarget = withMissingIds(target, a);
      const missingBody = body === undefined ? undefined : JSON.parse(withMissingIds(JSON.stringify(body), a));
      const missing = await call(attacker, op.method, missingTarget, missingBody, op.access);
      requests += 2;
      const label = `${op.method} ${target}`;
      if (crossed.statusCode >= 500) failures.push(`${label}: ${crossed.statusCode}`);
      // A session-only operation aimed at A's user or key reached the lookup: a refusal before it proves nothing.
      if (op.access === 'session' && parameters.length > 0 && crossed.statusCode !== 404)
        failures.push(`${label}: ${crossed.statusCode} where the session's lookup should answer 404`);
      // What the request itself named may be echoed ("Customer "<id>" does not exist in this organization").
      const sent = `${target} ${JSON.stringify(body ?? null)}`;
      const found = leaks(crossed.body, a, sent);
      if (found.length) failures.push(`${label}: shows A's ${found.join(', ')}`);
      if (crossed.statusCode !== missing.statusCode) {
        failures.push(`${label}: ${crossed.statusCode} for A's records, ${missing.statusCode} for missing ones`);
      } else if (crossed.statusCode >= 400) {
        const code = (response: typeof crossed) => (response.json() as { error?: { code?: string } }).error?.code;
        if (code(crossed) !== code(missing))
          failures.push(`${label}: ${code(crossed)} for A's records, ${code(missing)} for missing ones`);
      }
    }
  }
  return { failures, requests };
}

beforeAll(async () => {
  t = await startTestApp({ config: { webhookAllowPrivateHosts: false } });
  a = await seed('orga');
  b = await seed('orgb');
  const ops = await operations();
  await collectIds(a, ops);
  await collectIds(b, ops);
}, 120_000);
afterAll(() => t?.close());

describe("Tenancy sweep: organization B aims every operation at A's records", () => {
  it('answers exactly as for ids that exist nowhere, never shows anything of A, and leaves every row of A as it was', async () => {
    const before = await snapshot(a.tenant.organization.id);
    const { failures, requests } = await sweep(b.tenant, ['key', 'session', 'public']);
    expect(failures).toEqual([]);
    expect(requests).toBeGreaterThan(150);
    expect(await snapshot(a.tenant.organization.id)).toEqual(before);
  }, 300_000);

  // Test data is a tenant of its own (docs/api.md#test-mode): A's own test key is as foreign to A's live records as B.
  // Session-only operations are left out: a test-mode session is A's own user, who acts on A's users and keys by design.
  it("A's own test key gets exactly a missing record's answers for A's live records, and changes none of them", async () => {
    const before = await snapshot(a.tenant.organization.id);
    const twin: Tenant = {
      organization: { ...a.tenant.organization, id: a.tenant.testOrganizationId },
      key: await t.key(a.tenant.testOrganizationId),
      testOrganizationId: a.tenant.testOrganizationId,
    };
    // The twin starts with the live organization's name, which carries A's marker: renamed, so that a leak shows.
    await ok(twin, 'PATCH', '/organization', { name: 'the test twin' });
    const { failures, requests } = await sweep(twin, ['key']);
    expect(failures).toEqual([]);
    expect(requests).toBeGreaterThan(150);
    expect(await snapshot(a.tenant.organization.id)).toEqual(before);
  }, 300_000);

  it("bulk updates without a filter reach exactly B's records", async () => {
    const before = await snapshot(a.tenant.organization.id);
    for (const collection of ['products', 'customers', 'orders']) {
      const result = await ok(b.tenant, 'PATCH', `/${collection}/bulk-update`, { addMetadata: { sweep: 'b' } });
      const { rows } = await sql<{
        count: string;
      }>`select count(*) from ${sql.table(collection)} where organization_id = ${b.tenant.organization.id}::uuid`.execute(
        db(),
      );
      expect(result.count, collection).toBe(Number(rows[0]!.count));
    }
    expect(await snapshot(a.tenant.organization.id)).toEqual(before);
  });

  it("imports naming A's records by id resolve nothing of A's", async () => {
    const result = await ok(b.tenant, 'POST', '/orders/import', bodyFor({ method: 'POST', path: '/orders/import' }, a));
    expect(result.data).toEqual([]);
    expect(result.skipped.map((entry: { message: string }) => entry.message).join(' ')).toMatch(
      /does not exist in this organization/,
    );
  });

  it("A's webhook endpoints never hear of B's changes", async () => {
    await ok(
      b.tenant,
      'POST',
      '/sites',
      { data: { name: 'orgb second', domain: 'second.orgb.example', platform: 'custom', currencyCode: 'EUR' } },
      201,
    );
    const { rows } = await sql<{ count: string }>`
      select count(*) from webhook_deliveries d join events e on e.organization_id = d.organization_id and e.id = d.event_id
      where d.webhook_id = any(${a.ids.get('/webhooks')!}::uuid[]) and e.organization_id <> ${a.tenant.organization.id}::uuid`.execute(
      db(),
    );
    expect(Number(rows[0]!.count)).toBe(0);
    const own = await sql<{
      count: string;
    }>`select count(*) from webhook_deliveries where organization_id = ${a.tenant.organization.id}::uuid`.execute(db());
    expect(Number(own.rows[0]!.count)).toBeGreaterThan(0);
  });
});

/** Every include an item route documents, so embedded records are swept too. */
function includesOf(op: Operation): string {
  const names: Record<string, string> = {
    '/products/{productId}': 'importJob,reviewsCount,wishlistsCount,variantsCount,tags,variants',
    '/orders/{id}': 'importJob,itemsCount,customer,items,tags',
    '/customers/{id}': 'tags',
    '/loyalty-rewards/{id}': 'customer,membership,rule',
  };
  return names[op.path] ?? '';
}
