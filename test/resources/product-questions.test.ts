import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { eventsDuring } from '../support/events.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const QUESTION_KEYS = [
  'authorEmail',
  'authorName',
  'body',
  'createdAt',
  'customerId',
  'id',
  'metadata',
  'productId',
  'publishedAt',
  'remoteId',
  'source',
  'status',
  'updatedAt',
];
const ANSWER_KEYS = [
  'authorName',
  'body',
  'createdAt',
  'id',
  'publishedAt',
  'questionId',
  'source',
  'status',
  'updatedAt',
];

interface Fixture {
  tenant: Tenant;
  org: string;
  key: string;
  ada: { id: string; email: string };
  products: Record<'shirt' | 'mug', { id: string; slug: string }>;
}

async function insertCustomer(organizationId: string, email: string) {
  const id = uuidv7();
  await db().insertInto('customers').values({ organization_id: organizationId, id, email, metadata: '{}' }).execute();
  return { id, email };
}

async function fixture(name = 'Acme Outfitters'): Promise<Fixture> {
  const tenant = await t.tenant({ name, apiRequestsPerMinute: 1_000_000 });
  const org = tenant.organization.id;
  const ada = await insertCustomer(org, 'ada@example.com');
  const response = await t.request({
    method: 'POST',
    url: '/v1/products/import',
    key: tenant.key,
    body: {
      data: [
        { slug: 'shirt', title: 'Linen Shirt' },
        { slug: 'mug', title: 'Mug' },
      ],
    },
  });
  expect(response.statusCode, response.body).toBe(200);
  const [shirt, mug] = response.json().data.map((product: any) => ({ id: product.id, slug: product.slug }));
  return { tenant, org, key: tenant.key, ada, products: { shirt, mug } };
}

async function send(key: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) {
  return t.request({ method, url, key, ...(body === undefined ? {} : { body }) });
}
async function ok(key: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown, status = 200) {
  const response = await send(key, method, url, body);
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(status);
  return response.json();
}
async function imported(key: string, body: unknown) {
  return (await ok(key, 'POST', '/v1/product-questions/import', body)) as {
    data: any[];
    skipped: any[];
    created: number;
    updated: number;
    unchanged: number;
  };
}
const shopperQuestion = (overrides: Record<string, unknown> = {}) => ({
  product: 'shirt',
  authorName: 'Grace H.',
  authorEmail: 'grace@example.com',
  body: 'Does it shrink in the wash?',
  ...overrides,
});

describe('POST /v1/product-questions', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture();
  });

  it("records the merchant's question, published by default, and sends productQuestion.created", async () => {
    const { result, events } = await eventsDuring(t, f.org, () =>
      ok(
        f.key,
        'POST',
        '/v1/product-questions',
        { data: { product: 'shirt', body: 'Is it lined?', authorName: 'Caller', customer: 'ADA@example.com' } },
        201,
      ),
    );
    expect(Object.keys(result).sort()).toEqual(QUESTION_KEYS);
    expect(result).toMatchObject({
      id: expect.stringMatching(UUID),
      productId: f.products.shirt.id,
      customerId: f.ada.id,
      authorName: 'Caller',
      authorEmail: null,
      body: 'Is it lined?',
      status: 'published',
      source: 'merchant',
      remoteId: null,
      metadata: {},
    });
    expect(result.publishedAt).toBe(result.createdAt);
    expect(events.map((event) => event.name)).toEqual(['productQuestion.created']);
    expect(events[0]!.payload).toMatchObject({ id: result.id, answers: [], answersCount: 0 });
    expect(await ok(f.key, 'GET', `/v1/product-questions/${result.id}`)).toEqual(result);
  });

  it('takes the fields at the top level too, and a pending status with no publication time', async () => {
    const created = await ok(
      f.key,
      'POST',
      '/v1/product-questions',
      { product: f.products.mug.id, body: 'Dishwasher safe?', authorName: 'Sam', status: 'pending' },
      201,
    );
    expect(created).toMatchObject({ productId: f.products.mug.id, status: 'pending', publishedAt: null });
  });

  it('names every missing field at once, and refuses both body forms together, writing nothing', async () => {
    const { result: missing, events } = await eventsDuring(t, f.org, () =>
      send(f.key, 'POST', '/v1/product-questions', { data: { status: 'pending' } }),
    );
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.details.map((detail: any) => detail.path)).toEqual([
      'body.data.product',
      'body.data.body',
      'body.data.authorName',
    ]);
    const both = await send(f.key, 'POST', '/v1/product-questions', {
      data: { product: 'shirt', body: 'x', authorName: 'y' },
      body: 'x',
    });
    expect(both.statusCode).toBe(400);
    const blank = await send(f.key, 'POST', '/v1/product-questions', {
      product: 'shirt',
      body: '   ',
      authorName: 'y',
    });
    expect(blank.statusCode).toBe(400);
    expect(events).toEqual([]);
  });

  it('is 422 for a product or customer that does not exist here (another organization’s included)', async () => {
    const other = await fixture('Other shop');
    const product = await send(f.key, 'POST', '/v1/product-questions', {
      product: other.products.shirt.id,
      body: 'Hello?',
      authorName: 'A',
    });
    expect(product.statusCode).toBe(422);
    expect(product.json().error.details[0].path).toBe('body.product');
    const customer = await send(f.key, 'POST', '/v1/product-questions', {
      product: 'shirt',
      body: 'Hello?',
      authorName: 'A',
      customer: other.ada.id,
    });
    expect(customer.statusCode).toBe(422);
    expect(customer.json().error.details[0].path).toBe('body.customer');
  });
});

describe('POST /v1/product-questions/import', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture();
  });

  it("creates shoppers' questions, pending by default, with their answers, and matches them again on re-import", async () => {
    const rows = [
      shopperQuestion({
        remoteId: 'q-1',
        customer: f.ada.email,
        createdAt: '2026-03-01T10:00:00Z',
        answers: [
          { body: 'No, it is pre-washed.', authorName: 'Acme team', createdAt: '2026-03-02T10:00:00Z' },
          { body: 'Mine did not.', authorName: 'Tom', source: 'shopper', status: 'pending' },
        ],
      }),
      shopperQuestion({ product: f.products.mug.id, body: 'How big is it?', status: 'published' }),
    ];
    const { result, events } = await eventsDuring(t, f.org, () => imported(f.key, { data: rows }));
    expect(result).toMatchObject({ skipped: [], created: 2, updated: 0, unchanged: 0 });
    const [first, second] = result.data;
    expect(first).toMatchObject({
      productId: f.products.shirt.id,
      customerId: f.ada.id,
      status: 'pending',
      source: 'shopper',
      remoteId: 'q-1',
      publishedAt: null,
      createdAt: '2026-03-01T10:00:00.000Z',
      answersCount: 2,
    });
    expect(first.answers.map((answer: any) => Object.keys(answer).sort())).toEqual([ANSWER_KEYS, ANSWER_KEYS]);
    expect(first.answers[0]).toMatchObject({
      questionId: first.id,
      source: 'merchant',
      status: 'published',
      createdAt: '2026-03-02T10:00:00.000Z',
      publishedAt: '2026-03-02T10:00:00.000Z',
    });
    expect(first.answers[1]).toMatchObject({ source: 'shopper', status: 'pending', publishedAt: null });
    expect(second).toMatchObject({ customerId: null, status: 'published', remoteId: null, answers: [] });
    // Each question's own event first, then those of its answers.
    expect(events.map((event) => event.name)).toEqual([
      'productQuestion.created',
      'productQuestionAnswer.created',
      'productQuestionAnswer.created',
      'productQuestion.created',
    ]);
    expect(events[0]!.payload.answers).toHaveLength(2);

    const again = await eventsDuring(t, f.org, () => imported(f.key, { data: rows }));
    expect(again.result).toMatchObject({ created: 0, updated: 0, unchanged: 2 });
    expect(again.result.data.map((question: any) => question.id)).toEqual([first.id, second.id]);
    expect(again.result.data[0].updatedAt).toBe(first.updatedAt);
    expect(again.events).toEqual([]);
  });

  it('updates by remoteId: fields change, kept answers keep their ids, left-out answers go, new ones come', async () => {
    const before = (
      await imported(f.key, {
        data: [
          shopperQuestion({
            remoteId: 'q-2',
            answers: [
              { body: 'A', authorName: 'X' },
              { body: 'B', authorName: 'Y' },
            ],
          }),
        ],
      })
    ).data[0];
    const { result, events } = await eventsDuring(t, f.org, () =>
      imported(f.key, {
        data: [
          shopperQuestion({
            remoteId: 'q-2',
            body: 'Does it shrink at 40 degrees?',
            status: 'published',
            answers: [
              { body: 'B', authorName: 'Y', status: 'hidden' },
              { body: 'C', authorName: 'Z' },
            ],
          }),
        ],
      }),
    );
    expect(result).toMatchObject({ created: 0, updated: 1, unchanged: 0 });
    const after = result.data[0];
    expect(after).toMatchObject({ id: before.id, body: 'Does it shrink at 40 degrees?', status: 'published' });
    expect(after.publishedAt).not.toBeNull();
    expect(after.answers.map((answer: any) => [answer.body, answer.status])).toEqual([
      ['B', 'hidden'],
      ['C', 'published'],
    ]);
    expect(after.answers[0].id).toBe(before.answers[1].id);
    expect(after.answers[0].publishedAt).toBeNull();
    expect(events.map((event) => event.name)).toEqual([
      'productQuestion.updated',
      'productQuestionAnswer.deleted',
      'productQuestionAnswer.updated',
      'productQuestionAnswer.created',
    ]);
    expect(events[1]!.payload).toMatchObject({ id: before.answers[0].id, body: 'A' });
  });

  it('counts a row that changes only its answers as updated, without a question event', async () => {
    const before = (await imported(f.key, { data: [shopperQuestion({ remoteId: 'q-3', body: 'Colours?' })] })).data[0];
    const { result, events } = await eventsDuring(t, f.org, () =>
      imported(f.key, {
        data: [shopperQuestion({ remoteId: 'q-3', body: 'Colours?', answers: [{ body: 'Blue', authorName: 'Acme' }] })],
      }),
    );
    expect(result).toMatchObject({ updated: 1, unchanged: 0 });
    expect(result.data[0].updatedAt).toBe(before.updatedAt);
    expect(events.map((event) => event.name)).toEqual(['productQuestionAnswer.created']);
  });

  it('matches a row without remoteId on product, author and text, so importing twice never duplicates', async () => {
    const row = shopperQuestion({ product: 'mug', body: 'Is the glaze lead-free?' });
    const first = (await imported(f.key, { data: [row] })).data[0];
    const second = await imported(f.key, { data: [{ ...row, remoteId: 'q-glaze', metadata: { from: 'shop' } }] });
    expect(second).toMatchObject({ created: 0, updated: 1 });
    expect(second.data[0]).toMatchObject({ id: first.id, remoteId: 'q-glaze', metadata: { from: 'shop' } });
    const merged = await imported(f.key, {
      data: [{ ...row, remoteId: 'q-glaze', metadata: { lang: 'en' } }],
      mergeMetadata: true,
    });
    expect(merged.data[0].metadata).toEqual({ from: 'shop', lang: 'en' });
  });

  it('refuses a merge that would leave more than 50 metadata keys, importing nothing', async () => {
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`a${i}`, 'x']));
    const more = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`b${i}`, 'y']));
    await imported(f.key, { data: [shopperQuestion({ remoteId: 'q-meta', metadata: many })] });
    const { result, events } = await eventsDuring(t, f.org, () =>
      send(f.key, 'POST', '/v1/product-questions/import', {
        data: [shopperQuestion({ remoteId: 'q-meta-new' }), shopperQuestion({ remoteId: 'q-meta', metadata: more })],
        mergeMetadata: true,
      }),
    );
    expect(result.statusCode).toBe(400);
    expect(result.json().error.details[0].path).toBe('body.data[1].metadata');
    expect(events).toEqual([]);
    const list = await ok(
      f.key,
      'GET',
      `/v1/product-questions?filter=${encodeURIComponent('{"remoteId":"q-meta-new"}')}`,
    );
    expect(list.data).toEqual([]);
  });

  it('skips a row whose product or customer is missing, or with strict fails with 422 and writes nothing', async () => {
    const rows = [
      shopperQuestion({ product: 'no-such-product', remoteId: 'q-miss-1' }),
      shopperQuestion({ customer: 'nobody@example.com', remoteId: 'q-miss-2' }),
      shopperQuestion({ remoteId: 'q-fine' }),
    ];
    const result = await imported(f.key, { data: rows });
    expect(result.skipped).toEqual([
      { index: 0, message: 'Product "no-such-product" does not exist in this organization.' },
      { index: 1, message: 'Customer "nobody@example.com" does not exist in this organization.' },
    ]);
    expect(result.created).toBe(1);
    const { result: strict, events } = await eventsDuring(t, f.org, () =>
      send(f.key, 'POST', '/v1/product-questions/import', {
        data: [shopperQuestion({ remoteId: 'q-strict' }), rows[0]],
        strict: true,
      }),
    );
    expect(strict.statusCode).toBe(422);
    expect(strict.json().error.details[0].path).toBe('body.data[1]');
    expect(events).toEqual([]);
    const list = await ok(
      f.key,
      'GET',
      `/v1/product-questions?filter=${encodeURIComponent('{"remoteId":"q-strict"}')}`,
    );
    expect(list.data).toEqual([]);
  });

  it('refuses two rows with one remoteId, or the same question twice without one', async () => {
    const twice = await send(f.key, 'POST', '/v1/product-questions/import', {
      data: [shopperQuestion({ remoteId: 'dup' }), shopperQuestion({ remoteId: 'dup', body: 'Other' })],
    });
    expect(twice.statusCode).toBe(400);
    expect(twice.json().error.details[0].path).toBe('body.data[1].remoteId');
    const same = await send(f.key, 'POST', '/v1/product-questions/import', {
      data: [shopperQuestion({ body: 'Twin' }), shopperQuestion({ body: 'Twin' })],
    });
    expect(same.statusCode).toBe(400);
    expect(same.json().error.details[0].path).toBe('body.data[1]');
  });
});

describe('PATCH /v1/product-questions/{id}', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture();
  });

  it('publishes a question that arrived pending: created, then updated with publishedAt', async () => {
    const { result: importedQuestion, events: arrival } = await eventsDuring(t, f.org, () =>
      imported(f.key, { data: [shopperQuestion({ remoteId: 'q-pub' })] }),
    );
    const question = importedQuestion.data[0];
    expect(arrival.map((event) => event.name)).toEqual(['productQuestion.created']);
    expect(arrival[0]!.payload.status).toBe('pending');

    const { result: published, events } = await eventsDuring(t, f.org, () =>
      ok(f.key, 'PATCH', `/v1/product-questions/${question.id}`, { status: 'published' }),
    );
    expect(published).toMatchObject({ status: 'published', publishedAt: published.updatedAt });
    expect(events.map((event) => event.name)).toEqual(['productQuestion.updated']);
    expect(events[0]!.payload).toMatchObject({ status: 'published', answers: [], answersCount: 0 });

    // Editing the text of a published question keeps its publication time.
    const edited = await ok(f.key, 'PATCH', `/v1/product-questions/${question.id}`, {
      body: 'Does it shrink?',
      status: 'published',
    });
    expect(edited.publishedAt).toBe(published.publishedAt);

    const rejected = await ok(f.key, 'PATCH', `/v1/product-questions/${question.id}`, { status: 'rejected' });
    expect(rejected).toMatchObject({ status: 'rejected', publishedAt: null });
  });

  it('changes nothing, and sends nothing, when the values are the stored ones', async () => {
    const question = (await imported(f.key, { data: [shopperQuestion({ remoteId: 'q-same', metadata: { a: '1' } })] }))
      .data[0];
    const { result, events } = await eventsDuring(t, f.org, () =>
      ok(f.key, 'PATCH', `/v1/product-questions/${question.id}`, {
        status: 'pending',
        metadata: { a: '1' },
        body: question.body,
      }),
    );
    expect(result.updatedAt).toBe(question.updatedAt);
    expect(events).toEqual([]);
  });

  it('refuses an empty body, an unknown status and fields set by the store', async () => {
    const question = (await imported(f.key, { data: [shopperQuestion({ remoteId: 'q-bad' })] })).data[0];
    for (const body of [{}, { status: 'approved' }, { source: 'merchant' }, { productId: f.products.mug.id }]) {
      const response = await send(f.key, 'PATCH', `/v1/product-questions/${question.id}`, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
    }
  });

  it("answers another organization's question like a missing one", async () => {
    const other = await fixture('Other shop');
    const theirs = (await imported(other.key, { data: [shopperQuestion()] })).data[0];
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { status: 'published' }],
      ['DELETE', undefined],
    ] as const) {
      const response = await send(f.key, method, `/v1/product-questions/${theirs.id}`, body);
      expect(response.statusCode).toBe(404);
      expect(response.json().error.message).toBe('The product question was not found.');
    }
    const answer = await send(f.key, 'POST', `/v1/product-questions/${theirs.id}/answers`, { body: 'Hi' });
    expect(answer.statusCode).toBe(404);
  });
});

describe('GET /v1/product-questions', () => {
  let f: Fixture;
  let ids: Record<string, string>;
  beforeAll(async () => {
    f = await fixture();
    const result = await imported(f.key, {
      data: [
        shopperQuestion({
          remoteId: 'l-1',
          customer: f.ada.id,
          authorEmail: 'ada@example.com',
          createdAt: '2026-01-01T00:00:00Z',
        }),
        shopperQuestion({
          remoteId: 'l-2',
          product: 'mug',
          body: 'Microwave safe?',
          authorName: 'Linus',
          authorEmail: null,
          status: 'published',
          publishedAt: '2026-02-01T00:00:00Z',
          createdAt: '2026-01-02T00:00:00Z',
          answers: [{ body: 'Yes', authorName: 'Acme' }],
        }),
        shopperQuestion({
          remoteId: 'l-3',
          body: 'Ironing?',
          status: 'published',
          publishedAt: '2026-01-15T00:00:00Z',
          createdAt: '2026-01-03T00:00:00Z',
        }),
      ],
    });
    ids = Object.fromEntries(result.data.map((question) => [question.remoteId, question.id]));
  });
  const list = (query: string) => ok(f.key, 'GET', `/v1/product-questions?${query}`);
  const filter = (value: unknown) => `filter=${encodeURIComponent(JSON.stringify(value))}`;

  it('lists newest first, filters by status, source, product and customer email', async () => {
    expect((await list('')).data.map((q: any) => q.remoteId)).toEqual(['l-3', 'l-2', 'l-1']);
    expect((await list(filter({ status: 'published' }))).data.map((q: any) => q.remoteId)).toEqual(['l-3', 'l-2']);
    expect((await list(filter({ productId: f.products.mug.id }))).data.map((q: any) => q.remoteId)).toEqual(['l-2']);
    expect((await list(filter({ 'customer.email': 'ada@example.com' }))).data.map((q: any) => q.remoteId)).toEqual([
      'l-1',
    ]);
    expect((await list(filter({ source: 'merchant' }))).data).toEqual([]);
    const bad = await send(f.key, 'GET', `/v1/product-questions?${filter({ status: 'approved' })}`);
    expect(bad.statusCode).toBe(400);
  });

  it('searches the text, the author name and the author email', async () => {
    expect((await list('search=microwave')).data.map((q: any) => q.id)).toEqual([ids['l-2']]);
    expect((await list('search=linus')).data.map((q: any) => q.id)).toEqual([ids['l-2']]);
    expect((await list('search=ada%40example')).data.map((q: any) => q.id)).toEqual([ids['l-1']]);
  });

  it('sorts by publishedAt, unpublished questions last, paging through both ranges', async () => {
    const seen: string[] = [];
    let url = 'sort=publishedAt&limit=1';
    for (;;) {
      const page = await list(url);
      seen.push(...page.data.map((q: any) => q.remoteId));
      if (!page.nextCursor) break;
      url = `sort=publishedAt&limit=1&cursor=${encodeURIComponent(page.nextCursor)}`;
    }
    expect(seen).toEqual(['l-3', 'l-2', 'l-1']);
  });

  it('includes answers, answersCount, product and customer', async () => {
    const page = await list(
      `include=answers,answersCount,product,customer&${filter({ remoteId: { $in: ['l-1', 'l-2'] } })}`,
    );
    const [mug, shirt] = page.data;
    expect(mug.answers.map((answer: any) => answer.body)).toEqual(['Yes']);
    expect(mug.answersCount).toBe(1);
    expect(mug.product).toMatchObject({ id: f.products.mug.id, slug: 'mug' });
    expect(mug.customer).toBeNull();
    expect(shirt).toMatchObject({ answers: [], answersCount: 0, customer: { id: f.ada.id, email: 'ada@example.com' } });
    const one = await ok(f.key, 'GET', `/v1/product-questions/${ids['l-2']}?include=answersCount`);
    expect(one.answersCount).toBe(1);
  });

  it('takes a quick filter of product questions', async () => {
    const saved = await ok(
      f.key,
      'POST',
      '/v1/quick-filters',
      { resource: 'product-questions', name: 'To moderate', filter: { status: 'pending' } },
      201,
    );
    expect((await list(`quickFilter=${saved.id}`)).data.map((q: any) => q.remoteId)).toEqual(['l-1']);
  });
});

describe('PATCH /v1/product-questions/bulk-update', () => {
  it('publishes what the filter, search and quick filter select, sending updated only for the questions that change', async () => {
    const f = await fixture();
    const [pending, spam, published] = (
      await imported(f.key, {
        data: [
          shopperQuestion({ remoteId: 'b-1', body: 'Is it warm?' }),
          shopperQuestion({ remoteId: 'b-2', body: 'Cheap watches here' }),
          shopperQuestion({ remoteId: 'b-3', body: 'Is it soft?', status: 'published' }),
        ],
      })
    ).data;
    const bulk = (query: string, body: unknown) =>
      send(f.key, 'PATCH', `/v1/product-questions/bulk-update${query}`, body);

    const rejected = await eventsDuring(t, f.org, () => bulk('?search=watches', { status: 'rejected' }));
    expect(rejected.result.json()).toEqual({ count: 1 });
    expect(rejected.events.map((event) => [event.name, event.payload.id])).toEqual([
      ['productQuestion.updated', spam.id],
    ]);

    const saved = await ok(
      f.key,
      'POST',
      '/v1/quick-filters',
      { resource: 'product-questions', name: 'Not rejected', filter: { status: { $ne: 'rejected' } } },
      201,
    );
    const all = await eventsDuring(t, f.org, () =>
      bulk(`?quickFilter=${saved.id}`, { status: 'published', addMetadata: { moderated: 'yes' } }),
    );
    expect(all.result.json()).toEqual({ count: 2 });
    expect(all.events.map((event) => event.payload.id).sort()).toEqual([pending.id, published.id].sort());
    const after = await ok(f.key, 'GET', `/v1/product-questions/${published.id}`);
    // Already published: its publication time stays.
    expect(after.publishedAt).toBe(published.publishedAt);
    expect((await ok(f.key, 'GET', `/v1/product-questions/${pending.id}`)).status).toBe('published');

    const again = await eventsDuring(t, f.org, () =>
      bulk(`?quickFilter=${saved.id}`, { status: 'published', addMetadata: { moderated: 'yes' } }),
    );
    expect(again.result.json()).toEqual({ count: 2 });
    expect(again.events).toEqual([]);

    for (const body of [{}, { status: 'approved' }, { published: true }]) {
      expect((await bulk('', body)).statusCode, JSON.stringify(body)).toBe(400);
    }
  });
});

describe('answers: POST /v1/product-questions/{id}/answers, PATCH and DELETE /v1/product-question-answers/{id}', () => {
  let f: Fixture;
  let question: any;
  beforeAll(async () => {
    f = await fixture('Acme Outfitters');
    question = (await imported(f.key, { data: [shopperQuestion({ remoteId: 'a-1' })] })).data[0];
  });

  it("writes the merchant's answer under the organization's name, published, and sends productQuestionAnswer.created", async () => {
    const { result, events } = await eventsDuring(t, f.org, () =>
      ok(f.key, 'POST', `/v1/product-questions/${question.id}/answers`, { data: { body: 'It does not.' } }, 201),
    );
    expect(Object.keys(result).sort()).toEqual(ANSWER_KEYS);
    expect(result).toMatchObject({
      questionId: question.id,
      body: 'It does not.',
      authorName: 'Acme Outfitters',
      source: 'merchant',
      status: 'published',
      publishedAt: result.createdAt,
    });
    expect(events.map((event) => event.name)).toEqual(['productQuestionAnswer.created']);
    expect(events[0]!.payload).toEqual(result);
  });

  it("needs an author's name for a shopper's answer, and the text always", async () => {
    const shopper = await send(f.key, 'POST', `/v1/product-questions/${question.id}/answers`, {
      body: 'Mine did',
      source: 'shopper',
    });
    expect(shopper.statusCode).toBe(400);
    expect(shopper.json().error.details[0].path).toBe('body.authorName');
    const empty = await send(f.key, 'POST', `/v1/product-questions/${question.id}/answers`, {});
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error.details[0].path).toBe('body.body');
    const named = await ok(
      f.key,
      'POST',
      `/v1/product-questions/${question.id}/answers`,
      { body: 'Mine did', source: 'shopper', authorName: 'Tom', status: 'pending' },
      201,
    );
    expect(named).toMatchObject({ authorName: 'Tom', source: 'shopper', status: 'pending', publishedAt: null });
  });

  it('hides, edits and deletes an answer, each with its event; a PATCH that changes nothing sends nothing', async () => {
    const answer = await ok(f.key, 'POST', `/v1/product-questions/${question.id}/answers`, { body: 'Yes' }, 201);
    const hidden = await eventsDuring(t, f.org, () =>
      ok(f.key, 'PATCH', `/v1/product-question-answers/${answer.id}`, { status: 'hidden' }),
    );
    expect(hidden.result).toMatchObject({ status: 'hidden', publishedAt: null });
    expect(hidden.events.map((event) => event.name)).toEqual(['productQuestionAnswer.updated']);
    const same = await eventsDuring(t, f.org, () =>
      ok(f.key, 'PATCH', `/v1/product-question-answers/${answer.id}`, { status: 'hidden', body: 'Yes' }),
    );
    expect(same.result.updatedAt).toBe(hidden.result.updatedAt);
    expect(same.events).toEqual([]);
    const deleted = await eventsDuring(t, f.org, () =>
      ok(f.key, 'DELETE', `/v1/product-question-answers/${answer.id}`),
    );
    expect(deleted.result.id).toBe(answer.id);
    expect(deleted.events.map((event) => event.name)).toEqual(['productQuestionAnswer.deleted']);
    expect((await send(f.key, 'PATCH', `/v1/product-question-answers/${answer.id}`, { body: 'x' })).statusCode).toBe(
      404,
    );
  });

  it("answers another organization's answer like a missing one", async () => {
    const other = await fixture('Other shop');
    const theirs = (
      await imported(other.key, { data: [shopperQuestion({ answers: [{ body: 'Theirs', authorName: 'O' }] })] })
    ).data[0].answers[0];
    for (const [method, body] of [
      ['PATCH', { status: 'hidden' }],
      ['DELETE', undefined],
    ] as const) {
      const response = await send(f.key, method, `/v1/product-question-answers/${theirs.id}`, body);
      expect(response.statusCode).toBe(404);
      expect(response.json().error.message).toBe('The answer was not found.');
    }
  });
});

describe('DELETE /v1/product-questions/{id}', () => {
  it('deletes the question with its answers: one productQuestion.deleted carrying them, no answer events', async () => {
    const f = await fixture();
    const question = (
      await imported(f.key, {
        data: [
          shopperQuestion({
            answers: [
              { body: 'A', authorName: 'X' },
              { body: 'B', authorName: 'Y' },
            ],
          }),
        ],
      })
    ).data[0];
    const { result, events } = await eventsDuring(t, f.org, () =>
      ok(f.key, 'DELETE', `/v1/product-questions/${question.id}`),
    );
    expect(result.id).toBe(question.id);
    expect(events.map((event) => event.name)).toEqual(['productQuestion.deleted']);
    expect(events[0]!.payload.answers.map((answer: any) => answer.body)).toEqual(['A', 'B']);
    expect(events[0]!.payload.answersCount).toBe(2);
    expect((await send(f.key, 'GET', `/v1/product-questions/${question.id}`)).statusCode).toBe(404);
    const orphan = await send(f.key, 'DELETE', `/v1/product-question-answers/${question.answers[0].id}`);
    expect(orphan.statusCode).toBe(404);
  });
});

describe('concurrent answers and deletion', () => {
  it('answers written while the question is deleted are either in its deletion event or refused with 404', async () => {
    const f = await fixture();
    const question = (await imported(f.key, { data: [shopperQuestion({ remoteId: 'race' })] })).data[0];
    const writes = Array.from({ length: 12 }, (_, i) =>
      send(f.key, 'POST', `/v1/product-questions/${question.id}/answers`, { body: `Answer ${i}` }),
    );
    const { result: responses, events } = await eventsDuring(t, f.org, async () => {
      const all = await Promise.all([
        ...writes.slice(0, 6),
        send(f.key, 'DELETE', `/v1/product-questions/${question.id}`),
        ...writes.slice(6),
      ]);
      return all;
    });
    const deletion = responses[6]!;
    expect(deletion.statusCode, deletion.body).toBe(200);
    const answers = [...responses.slice(0, 6), ...responses.slice(7)];
    for (const answer of answers) expect([201, 404], answer.body).toContain(answer.statusCode);
    const written = answers.filter((answer) => answer.statusCode === 201).map((answer) => answer.json().id);
    const deleted = events.find((event) => event.name === 'productQuestion.deleted')!;
    expect(deleted.payload.answers.map((answer: any) => answer.id).sort()).toEqual([...written].sort());
    expect(
      events
        .filter((event) => event.name === 'productQuestionAnswer.created')
        .map((event) => event.payload.id)
        .sort(),
    ).toEqual([...written].sort());
    const left = await db()
      .selectFrom('product_question_answers')
      .select('id')
      .where('organization_id', '=', f.org)
      .execute();
    expect(left).toEqual([]);
  });
});

describe('deleting the product or the customer', () => {
  it('unlinks the questions of a deleted product (a published one back to pending), before product.deleted', async () => {
    const f = await fixture();
    const [published, rejected] = (
      await imported(f.key, {
        data: [
          shopperQuestion({ remoteId: 'd-1', status: 'published', answers: [{ body: 'A', authorName: 'X' }] }),
          shopperQuestion({ remoteId: 'd-2', status: 'rejected' }),
          shopperQuestion({ remoteId: 'd-3', product: 'mug' }),
        ],
      })
    ).data;
    const { events } = await eventsDuring(t, f.org, () => ok(f.key, 'DELETE', `/v1/products/${f.products.shirt.id}`));
    expect(events.map((event) => event.name)).toEqual([
      'productQuestion.updated',
      'productQuestion.updated',
      'product.deleted',
    ]);
    const after = await ok(f.key, 'GET', `/v1/product-questions/${published.id}?include=answers`);
    expect(after).toMatchObject({ productId: null, status: 'pending', publishedAt: null });
    expect(after.answers).toHaveLength(1);
    expect(await ok(f.key, 'GET', `/v1/product-questions/${rejected.id}`)).toMatchObject({
      productId: null,
      status: 'rejected',
    });
    const unlinked = await ok(f.key, 'GET', `/v1/product-questions?filter=${encodeURIComponent('{"productId":null}')}`);
    expect(unlinked.data).toHaveLength(2);
  });

  it('deletes them with the product under cascadeDeleteReviews', async () => {
    const f = await fixture();
    await ok(f.key, 'PATCH', '/v1/organization', { settings: { cascadeDeleteReviews: true } });
    const question = (await imported(f.key, { data: [shopperQuestion({ answers: [{ body: 'A', authorName: 'X' }] })] }))
      .data[0];
    const { events } = await eventsDuring(t, f.org, () => ok(f.key, 'DELETE', `/v1/products/${f.products.shirt.id}`));
    expect(events.map((event) => event.name)).toEqual(['productQuestion.deleted', 'product.deleted']);
    expect(events[0]!.payload.answers).toHaveLength(1);
    expect((await send(f.key, 'GET', `/v1/product-questions/${question.id}`)).statusCode).toBe(404);
  });

  it("deletes a deleted customer's questions, before customer.deleted", async () => {
    const f = await fixture();
    const [theirs, anonymous] = (
      await imported(f.key, {
        data: [shopperQuestion({ customer: f.ada.email, remoteId: 'c-1' }), shopperQuestion({ remoteId: 'c-2' })],
      })
    ).data;
    const { events } = await eventsDuring(t, f.org, () => ok(f.key, 'DELETE', `/v1/customers/${f.ada.id}`));
    expect(events.map((event) => event.name)).toEqual(['productQuestion.deleted', 'customer.deleted']);
    expect((await send(f.key, 'GET', `/v1/product-questions/${theirs.id}`)).statusCode).toBe(404);
    expect((await send(f.key, 'GET', `/v1/product-questions/${anonymous.id}`)).statusCode).toBe(200);
  });
});

describe('permissions', () => {
  it('reads with reviews:read and writes with reviews:write', async () => {
    const f = await fixture();
    const reader = await t.key(f.org, ['reviews:read']);
    expect((await send(reader, 'GET', '/v1/product-questions')).statusCode).toBe(200);
    const write = await send(reader, 'POST', '/v1/product-questions/import', { data: [shopperQuestion()] });
    expect(write.statusCode).toBe(403);
  });
});
