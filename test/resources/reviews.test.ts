import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { eventsOf, eventsDuring } from '../support/events.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const REVIEW_KEYS = [
  'answers',
  'body',
  'createdAt',
  'customerId',
  'flagged',
  'id',
  'language',
  'metadata',
  'productId',
  'published',
  'rating',
  'reply',
  'title',
  'updatedAt',
  'verifiedBuyer',
].sort();
const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

interface Fixture {
  tenant: Tenant;
  org: string;
  key: string;
  alice: { id: string; email: string };
  bob: { id: string; email: string };
  products: Record<'shirt' | 'mug' | 'hat', { id: string; slug: string }>;
}

async function insertCustomer(organizationId: string, email: string) {
  const id = uuidv7();
  await db().insertInto('customers').values({ organization_id: organizationId, id, email, metadata: '{}' }).execute();
  return { id, email };
}

async function fixture(): Promise<Fixture> {
  const tenant = await t.tenant({ apiRequestsPerMinute: 1_000_000 });
  const org = tenant.organization.id;
  const alice = await insertCustomer(org, 'alice@example.com');
  const bob = await insertCustomer(org, 'Bob@Example.com');
  const response = await t.request({
    method: 'POST',
    url: '/v1/products/import',
    key: tenant.key,
    body: {
      data: [
        { slug: 'shirt', title: 'Linen Shirt' },
        { slug: 'mug', title: 'Mug' },
        { slug: 'hat', title: 'Sun Hat' },
      ],
    },
  });
  expect(response.statusCode, response.body).toBe(200);
  const [shirt, mug, hat] = response.json().data;
  return { tenant, org, key: tenant.key, alice, bob, products: { shirt, mug, hat } };
}

const importReviews = (key: string, body: unknown) =>
  t.request({ method: 'POST', url: '/v1/reviews/import', key, body });
async function imported(key: string, body: unknown) {
  const response = await importReviews(key, body);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { data: any[]; skipped: any[] };
}
async function get(key: string, url: string) {
  const response = await t.request({ url, key });
  expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
  return response.json();
}
const patch = (key: string, id: string, body: unknown) =>
  t.request({ method: 'PATCH', url: `/v1/reviews/${id}`, key, body });

describe('POST /v1/reviews/import', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await fixture();
  });

  it('creates reviews by product id or slug and customer id or email, keeping createdAt, with review.created each', async () => {
    const { result, events } = await eventsDuring(t, f.org, () =>
      imported(f.key, {
        data: [
          {
            product: 'shirt',
            customer: 'ALICE@example.com',
            remoteId: 'jm-1',
            rating: 5,
            title: 'Great fit',
            body: 'Fits perfectly.',
            published: true,
            verifiedBuyer: true,
            language: 'en',
            answers: [{ question: 'How is the fit?', step: 3 }],
            metadata: { source: 'judgeme' },
            createdAt: '2024-05-01T12:00:00+02:00',
          },
          { product: f.products.mug.id, customer: f.bob.id, rating: 2 },
        ],
      }),
    );
    expect(result.skipped).toEqual([]);
    const [first, second] = result.data;
    expect(Object.keys(first).sort()).toEqual(REVIEW_KEYS);
    expect(first).toEqual({
      id: expect.stringMatching(UUID),
      productId: f.products.shirt.id,
      customerId: f.alice.id,
      rating: 5,
      title: 'Great fit',
      body: 'Fits perfectly.',
      published: true,
      verifiedBuyer: true,
      flagged: false,
      language: 'en',
      answers: [{ question: 'How is the fit?', step: 3 }],
      metadata: { source: 'judgeme' },
      reply: null,
      createdAt: '2024-05-01T10:00:00.000Z',
      updatedAt: '2024-05-01T10:00:00.000Z',
    });
    // Defaults: unpublished, no text, no language, createdAt now.
    expect(second).toMatchObject({
      productId: f.products.mug.id,
      customerId: f.bob.id,
      rating: 2,
      title: '',
      body: '',
      published: false,
      verifiedBuyer: false,
      flagged: false,
      language: null,
      answers: [],
      metadata: {},
    });
    expect(second.createdAt).toMatch(ISO_MS);
    expect(Date.now() - Date.parse(second.createdAt)).toBeLessThan(60_000);
    expect(events).toEqual([
      { name: 'review.created', payload: first },
      { name: 'review.created', payload: second },
    ]);
    expect(await get(f.key, `/v1/reviews/${first.id}`)).toEqual(first);
  });

  it('re-importing the same rows changes nothing and sends nothing; a changed row updates in place with review.updated', async () => {
    const rows = [
      { product: 'hat', customer: f.alice.email, remoteId: 'again-1', rating: 4, title: 'Nice', published: false },
      { product: 'hat', customer: f.bob.email, rating: 3, body: 'ok' },
    ];
    const first = await imported(f.key, { data: rows });
    const { result: second, events } = await eventsDuring(t, f.org, () => imported(f.key, { data: rows }));
    expect(second.data).toEqual(first.data);
    expect(events).toEqual([]);
    // The same rows by other references (ids, other case) are the same reviews too.
    const byIds = await imported(f.key, {
      data: [
        { ...rows[0], product: f.products.hat.id, customer: f.alice.id.toUpperCase() },
        { ...rows[1], product: f.products.hat.id, customer: 'BOB@example.COM' },
      ],
    });
    expect(byIds.data).toEqual(first.data);

    const { result: changed, events: changeEvents } = await eventsDuring(t, f.org, () =>
      imported(f.key, {
        data: [
          { ...rows[0], rating: 5 },
          { ...rows[1], published: true },
        ],
      }),
    );
    expect(changed.data.map((review) => review.id)).toEqual(first.data.map((review) => review.id));
    expect(changed.data[0]).toMatchObject({ rating: 5, title: 'Nice', published: false });
    expect(changed.data[1]).toMatchObject({ rating: 3, body: 'ok', published: true });
    expect(changed.data[0].updatedAt > first.data[0].updatedAt).toBe(true);
    expect(changeEvents).toEqual(changed.data.map((payload) => ({ name: 'review.updated', payload })));
    const count = await db()
      .selectFrom('reviews')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('organization_id', '=', f.org)
      .where('product_id', '=', f.products.hat.id)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(2);
  });

  it('omitted fields keep their stored values; language null clears; answers and metadata replace (or merge with mergeMetadata)', async () => {
    const [review] = (
      await imported(f.key, {
        data: [
          {
            product: 'mug',
            customer: f.alice.id,
            remoteId: 'keep-1',
            rating: 4,
            title: 'T',
            body: 'B',
            language: 'de',
            answers: [{ question: 'q', step: 1 }],
            metadata: { a: '1' },
            flagged: true,
          },
        ],
      })
    ).data;
    const [kept] = (
      await imported(f.key, { data: [{ product: 'mug', customer: f.alice.id, remoteId: 'keep-1', rating: 4 }] })
    ).data;
    expect(kept).toEqual(review);
    const [merged] = (
      await imported(f.key, {
        data: [
          { product: 'mug', customer: f.alice.id, remoteId: 'keep-1', rating: 4, metadata: { b: '2' }, language: null },
        ],
        mergeMetadata: true,
      })
    ).data;
    expect(merged).toMatchObject({
      metadata: { a: '1', b: '2' },
      language: null,
      title: 'T',
      body: 'B',
      flagged: true,
      answers: [{ question: 'q', step: 1 }],
    });
    const [replaced] = (
      await imported(f.key, {
        data: [
          { product: 'mug', customer: f.alice.id, remoteId: 'keep-1', rating: 4, metadata: { c: '3' }, answers: [] },
        ],
      })
    ).data;
    expect(replaced).toMatchObject({ metadata: { c: '3' }, answers: [] });
    expect(replaced.createdAt).toBe(review.createdAt);
  });

  it('matches a row without remoteId to the review of the same customer and product without one, which a later remoteId adopts', async () => {
    const g = await fixture();
    const [legacy] = (await imported(g.key, { data: [{ product: 'shirt', customer: g.alice.email, rating: 3 }] })).data;
    const [adopted, fresh] = (
      await imported(g.key, {
        data: [
          { product: 'shirt', customer: g.alice.email, remoteId: 'r-1', rating: 3 },
          { product: 'shirt', customer: g.alice.email, remoteId: 'r-2', rating: 1 },
        ],
      })
    ).data;
    expect(adopted.id).toBe(legacy.id);
    expect(fresh.id).not.toBe(legacy.id);
    // A second review by the same customer, made without a remoteId, is a new one (the adopted one has a remoteId now).
    const [third] = (await imported(g.key, { data: [{ product: 'shirt', customer: g.alice.email, rating: 2 }] })).data;
    expect([legacy.id, fresh.id]).not.toContain(third.id);
    expect((await get(g.key, '/v1/reviews')).data).toHaveLength(3);
    const stored = await db()
      .selectFrom('reviews')
      .select(['id', 'remote_id'])
      .where('organization_id', '=', g.org)
      .execute();
    expect(new Map(stored.map((row) => [row.id, row.remote_id]))).toEqual(
      new Map([
        [legacy.id, 'r-1'],
        [fresh.id, 'r-2'],
        [third.id, null],
      ]),
    );
  });

  it('skips rows whose product or customer is missing (another organization counts as missing), reporting each', async () => {
    const other = await fixture();
    const { result, events } = await eventsDuring(t, f.org, () =>
      imported(f.key, {
        data: [
          { product: 'nope', customer: f.alice.email, rating: 5 },
          { product: 'shirt', customer: 'ghost@example.com', rating: 5 },
          { product: 'shirt', customer: f.alice.email, remoteId: 'ok-1', rating: 5 },
          { product: other.products.shirt.id, customer: other.alice.id, rating: 5 },
        ],
      }),
    );
    expect(result.skipped).toEqual([
      { index: 0, message: 'Product "nope" does not exist in this organization.' },
      { index: 1, message: 'Customer "ghost@example.com" does not exist in this organization.' },
      {
        index: 3,
        message: `Product "${other.products.shirt.id}" and customer "${other.alice.id}" do not exist in this organization.`,
      },
    ]);
    expect(result.data).toHaveLength(1);
    expect(events.map((event) => event.name)).toEqual(['review.created']);
    expect((await get(other.key, '/v1/reviews')).data).toEqual([]);
  });

  it('with strict, the first miss fails the whole import with 422 naming the row, and nothing is written', async () => {
    const g = await fixture();
    const { result: response, events } = await eventsDuring(t, g.org, () =>
      importReviews(g.key, {
        strict: true,
        data: [
          { product: 'shirt', customer: g.alice.email, rating: 5 },
          { product: 'shirt', customer: 'ghost@example.com', rating: 5 },
          { product: 'nope', customer: g.alice.email, rating: 5 },
        ],
      }),
    );
    expect(response.statusCode).toBe(422);
    expect(response.json().error).toEqual({
      code: 'UNPROCESSABLE',
      message: 'Import stopped at row 1: Customer "ghost@example.com" does not exist in this organization.',
      details: [{ path: 'body.data[1]', message: 'Customer "ghost@example.com" does not exist in this organization.' }],
    });
    expect((await get(g.key, '/v1/reviews')).data).toEqual([]);
    expect(events).toEqual([]);
  });

  it.each([
    ['rating 0', { rating: 0 }, 'body.data[0].rating'],
    ['rating 6', { rating: 6 }, 'body.data[0].rating'],
    ['rating 4.5', { rating: 4.5 }, 'body.data[0].rating'],
    ['rating as text', { rating: '5' }, 'body.data[0].rating'],
    ['an answer step of 6', { answers: [{ question: 'q', step: 6 }] }, 'body.data[0].answers[0].step'],
    ['an answer without question', { answers: [{ step: 2 }] }, 'body.data[0].answers[0].question'],
    ['an unknown field', { stars: 5 }, 'body.data[0].stars'],
    ['a bad language', { language: 'english!' }, 'body.data[0].language'],
    ['createdAt without offset', { createdAt: '2024-05-01T12:00:00' }, 'body.data[0].createdAt'],
    ['a huge title', { title: 'x'.repeat(501) }, 'body.data[0].title'],
    ['metadata with a number', { metadata: { a: 1 } }, 'body.data[0].metadata.a'],
  ])('refuses %s with 400 naming the field, writing nothing', async (_name, change, path) => {
    const g = await fixture();
    const response = await importReviews(g.key, {
      data: [{ product: 'shirt', customer: g.alice.email, rating: 5, ...change }],
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().error.code).toBe('VALIDATION_ERROR');
    expect(response.json().error.details.map((detail: { path: string }) => detail.path)).toContain(path);
    expect((await get(g.key, '/v1/reviews')).data).toEqual([]);
  });

  it('refuses repeated remoteIds, two rows of one customer and product without remoteId, a missing rating, malformed bodies and more than 1,000 rows', async () => {
    const g = await fixture();
    const row = { product: 'shirt', customer: g.alice.email, rating: 5 };
    const repeated = await importReviews(g.key, {
      data: [
        { ...row, remoteId: 'x' },
        { ...row, remoteId: 'x' },
      ],
    });
    expect(repeated.statusCode).toBe(400);
    expect(repeated.json().error.details).toEqual([
      { path: 'body.data[1].remoteId', message: 'repeats body.data[0].remoteId' },
    ]);
    const sameAuthor = await importReviews(g.key, { data: [row, { ...row, product: g.products.shirt.id, rating: 1 }] });
    expect(sameAuthor.statusCode).toBe(400);
    expect(sameAuthor.json().error.details[0].path).toBe('body.data[1]');
    const noRating = await importReviews(g.key, { data: [{ product: 'shirt', customer: g.alice.email }] });
    expect(noRating.statusCode).toBe(400);
    expect((await importReviews(g.key, { data: {} })).statusCode).toBe(400);
    expect((await importReviews(g.key, { rows: [] })).statusCode).toBe(400);
    const malformed = await t.request({
      method: 'POST',
      url: '/v1/reviews/import',
      key: g.key,
      body: '{"data": [',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.statusCode).toBe(400);
    const tooMany = await importReviews(g.key, {
      data: Array.from({ length: 1001 }, (_, i) => ({ ...row, remoteId: `r${i}` })),
    });
    expect(tooMany.statusCode).toBe(413);
    expect((await get(g.key, '/v1/reviews')).data).toEqual([]);
  });

  it('imports 1,000 rows in one request and re-imports them without duplicates', async () => {
    const g = await fixture();
    const data = Array.from({ length: 1000 }, (_, i) => ({
      product: ['shirt', 'mug', 'hat'][i % 3],
      customer: i % 2 ? g.alice.email : g.bob.id,
      remoteId: `bulk-${i}`,
      rating: (i % 5) + 1,
      body: `review number ${i}`,
      published: i % 4 !== 0,
    }));
    const first = await imported(g.key, { data });
    expect(first.data).toHaveLength(1000);
    const { result: second, events } = await eventsDuring(t, g.org, () => imported(g.key, { data }));
    expect(second.data.map((review) => review.id)).toEqual(first.data.map((review) => review.id));
    expect(events).toEqual([]);
    const count = await db()
      .selectFrom('reviews')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('organization_id', '=', g.org)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1000);
  });
});

describe('GET /v1/reviews', () => {
  let f: Fixture;
  let reviews: any[];
  const list = (query: Record<string, string>, key = f.key) => t.request({ url: `/v1/reviews?${q(query)}`, key });
  const ids = async (query: Record<string, string>) => {
    const response = await list({ limit: '250', ...query });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data.map((review: { id: string }) => review.id) as string[];
  };
  const idsWhere = (predicate: (review: any, index: number) => boolean) =>
    reviews.filter(predicate).map((review) => review.id);
  const sameSet = (a: string[], b: string[]) => expect([...a].sort()).toEqual([...b].sort());

  beforeAll(async () => {
    f = await fixture();
    const other = await fixture();
    const data = Array.from({ length: 12 }, (_, i) => ({
      product: (['shirt', 'mug', 'hat'] as const)[i % 3],
      customer: i % 2 ? f.alice.email : f.bob.email,
      remoteId: `L-${i}`,
      rating: [5, 3, 4, 1, 5, 2, 3, 5, 4, 4, 1, 2][i]!,
      title: i === 4 ? 'Runs SMALL' : `Title ${i}`,
      body: i === 7 ? 'The zipper broke after a week' : `Body ${i}`,
      published: i % 3 !== 2,
      verifiedBuyer: i % 4 === 0,
      flagged: i === 5,
      ...(i % 2 ? { language: 'en' } : i === 2 ? { language: 'de' } : {}),
      metadata: i < 6 ? { source: 'judgeme' } : { source: 'csv' },
      // Two share a createdAt: ties break on id.
      createdAt: i === 9 ? '2025-01-09T00:00:00Z' : `2025-01-${String(i + 1).padStart(2, '0')}T00:00:00Z`,
    }));
    reviews = (await imported(f.key, { data })).data;
    await imported(other.key, {
      data: [{ product: 'shirt', customer: other.alice.email, rating: 5, title: 'Title 1', published: true }],
    });
  });

  it('lists newest first by default, base records only, with ties on createdAt broken by id', async () => {
    const body = await get(f.key, '/v1/reviews');
    expect(body.nextCursor).toBeNull();
    const expected = [...reviews].sort((a, b) =>
      a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
    );
    expect(body.data).toEqual(expected);
  });

  it.each(['createdAt', '-createdAt', 'rating', '-rating', 'updatedAt', '-updatedAt'])(
    'pages through every review sorted by %s',
    async (sort) => {
      const descending = sort.startsWith('-');
      const key = descending ? sort.slice(1) : sort;
      const expected = [...reviews].sort((a, b) => {
        const compare = a[key] === b[key] ? (a.id < b.id ? -1 : 1) : a[key] < b[key] ? -1 : 1;
        return descending ? -compare : compare;
      });
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const response = await list({ sort, limit: '5', ...(cursor ? { cursor } : {}) });
        expect(response.statusCode, response.body).toBe(200);
        seen.push(...response.json().data.map((review: { id: string }) => review.id));
        cursor = response.json().nextCursor;
        pages++;
      } while (cursor && pages < 10);
      expect(pages).toBe(3);
      expect(seen).toEqual(expected.map((review) => review.id));
    },
  );

  it('filters on every listed field', async () => {
    sameSet(
      await ids({ filter: JSON.stringify({ productId: f.products.mug.id }) }),
      idsWhere((_, i) => i % 3 === 1),
    );
    sameSet(
      await ids({ filter: JSON.stringify({ customerId: f.alice.id }) }),
      idsWhere((_, i) => i % 2 === 1),
    );
    sameSet(
      await ids({ filter: JSON.stringify({ rating: { $gte: 4 } }) }),
      idsWhere((review) => review.rating >= 4),
    );
    sameSet(
      await ids({ filter: JSON.stringify({ rating: { $in: [1, 2] } }) }),
      idsWhere((review) => review.rating <= 2),
    );
    sameSet(
      await ids({ filter: JSON.stringify({ published: false }) }),
      idsWhere((_, i) => i % 3 === 2),
    );
    sameSet(
      await ids({ filter: JSON.stringify({ verifiedBuyer: true }) }),
      idsWhere((_, i) => i % 4 === 0),
    );
    sameSet(await ids({ filter: JSON.stringify({ flagged: true }) }), [reviews[5].id]);
    sameSet(
      await ids({ filter: JSON.stringify({ language: 'en' }) }),
      idsWhere((_, i) => i % 2 === 1),
    );
    sameSet(
      await ids({ filter: JSON.stringify({ language: null }) }),
      idsWhere((_, i) => i % 2 === 0 && i !== 2),
    );
    sameSet(
      await ids({ filter: JSON.stringify({ 'metadata.source': 'csv' }) }),
      idsWhere((_, i) => i >= 6),
    );
    sameSet(
      await ids({ filter: JSON.stringify({ createdAt: { $gte: '2025-01-10T00:00:00Z' } }) }),
      idsWhere((_, i) => i >= 10 - 1 && i !== 9),
    );
    sameSet(await ids({ filter: JSON.stringify({ updatedAt: { $lt: '2025-01-03T00:00:00Z' } }) }), [
      reviews[0].id,
      reviews[1].id,
    ]);
    sameSet(await ids({ filter: JSON.stringify({ id: { $in: [reviews[0].id, reviews[3].id] } }) }), [
      reviews[0].id,
      reviews[3].id,
    ]);
    sameSet(await ids({ filter: JSON.stringify({ remoteId: 'L-7' }) }), [reviews[7].id]);
    sameSet(
      await ids({ filter: JSON.stringify({ 'customer.email': { $startsWith: 'BOB@' } }) }),
      idsWhere((_, i) => i % 2 === 0),
    );
    sameSet(
      await ids({ filter: JSON.stringify({ 'customer.id': f.bob.id }) }),
      idsWhere((_, i) => i % 2 === 0),
    );
    sameSet(
      await ids({ filter: JSON.stringify({ 'product.slug': 'hat' }) }),
      idsWhere((_, i) => i % 3 === 2),
    );
    sameSet(
      await ids({ filter: JSON.stringify({ 'product.title': { $contains: 'linen' } }) }),
      idsWhere((_, i) => i % 3 === 0),
    );
    sameSet(
      await ids({ filter: JSON.stringify({ $or: [{ rating: 1 }, { flagged: true }], published: true }) }),
      idsWhere((review) => (review.rating === 1 || review.flagged) && review.published),
    );
  });

  it('searches title, body and the customer email case-insensitively, ANDed with the filter', async () => {
    sameSet(await ids({ search: 'runs small' }), [reviews[4].id]);
    sameSet(await ids({ search: 'ZIPPER' }), [reviews[7].id]);
    sameSet(
      await ids({ search: 'bob@example' }),
      idsWhere((_, i) => i % 2 === 0),
    );
    sameSet(await ids({ search: 'Title 1' }), [reviews[1].id, reviews[10].id, reviews[11].id]);
    sameSet(
      await ids({ search: 'bob@', filter: JSON.stringify({ rating: 5 }) }),
      idsWhere((review, i) => i % 2 === 0 && review.rating === 5),
    );
    sameSet(await ids({ search: '100%_' }), []);
  });

  it('includes product and customer with exact shapes, on the list and on GET /reviews/{id}', async () => {
    const body = await get(
      f.key,
      `/v1/reviews?include=product,customer&filter=${encodeURIComponent(JSON.stringify({ id: reviews[0].id }))}`,
    );
    const [review] = body.data;
    expect(review.product).toEqual(await get(f.key, `/v1/products/${f.products.shirt.id}`));
    expect(review.customer).toEqual({
      id: f.bob.id,
      email: 'Bob@Example.com',
      phone: null,
      firstName: null,
      lastName: null,
      country: null,
      birthday: null,
      metadata: {},
      notes: null,
      emailOptOut: false,
      emailOptOutAt: null,
      emailOptOutSource: null,
      createdAt: expect.stringMatching(ISO_MS),
      updatedAt: expect.stringMatching(ISO_MS),
    });
    expect(await get(f.key, `/v1/reviews/${reviews[0].id}?include=customer`)).toEqual({
      ...reviews[0],
      customer: review.customer,
    });
    expect(await get(f.key, `/v1/reviews/${reviews[0].id}`)).toEqual(reviews[0]);
  });

  it('refuses unknown sorts, includes, parameters, filter fields, bad values and a reused cursor with 400', async () => {
    for (const [query, path] of [
      [{ sort: 'title' }, 'query.sort'],
      [{ include: 'answers' }, 'query.include'],
      [{ page: '2' }, 'query.page'],
      [{ limit: '251' }, 'query.limit'],
      [{ filter: '{"title":"x"}' }, 'query.filter.title'],
      [{ filter: '{"rating":"five"}' }, 'query.filter.rating'],
      [{ filter: '{"published":"yes"}' }, 'query.filter.published'],
      [{ filter: '{"productId":"shirt"}' }, 'query.filter.productId'],
      [{ filter: '{' }, 'query.filter'],
    ] as const) {
      const response = await list(query);
      expect(response.statusCode, JSON.stringify(query)).toBe(400);
      expect(response.json().error.details[0].path).toBe(path);
    }
    const page = (await list({ limit: '2' })).json();
    const reused = await list({ limit: '2', sort: 'rating', cursor: page.nextCursor });
    expect(reused.statusCode).toBe(400);
  });

  it("never shows another organization's reviews: lists exclude them and GET answers 404", async () => {
    const other = await fixture();
    const [theirs] = (
      await imported(other.key, { data: [{ product: 'shirt', customer: other.alice.email, rating: 5 }] })
    ).data;
    expect((await ids({})).includes(theirs.id)).toBe(false);
    expect((await t.request({ url: `/v1/reviews/${theirs.id}`, key: f.key })).statusCode).toBe(404);
    expect((await t.request({ url: `/v1/reviews/${uuidv7()}`, key: f.key })).statusCode).toBe(404);
    expect((await t.request({ url: '/v1/reviews/not-a-uuid', key: f.key })).statusCode).toBe(400);
  });
});

describe('PATCH /v1/reviews/{id}', () => {
  it('an unpublished review published later sends review.created, then review.updated with published true', async () => {
    const f = await fixture();
    const { result, events } = await eventsDuring(t, f.org, async () => {
      const [review] = (
        await imported(f.key, {
          data: [{ product: 'shirt', customer: f.alice.email, rating: 4, title: 'Hidden at first' }],
        })
      ).data;
      const response = await patch(f.key, review.id, { published: true });
      expect(response.statusCode, response.body).toBe(200);
      return { review, published: response.json() };
    });
    expect(result.review.published).toBe(false);
    expect(result.published).toEqual({ ...result.review, published: true, updatedAt: expect.stringMatching(ISO_MS) });
    expect(events.map((event) => [event.name, event.payload.published])).toEqual([
      ['review.created', false],
      ['review.updated', true],
    ]);
    expect(events[1]!.payload).toEqual(result.published);
  });

  it('sets flagged and replaces metadata; a PATCH that changes nothing writes nothing and sends no event', async () => {
    const f = await fixture();
    const [review] = (
      await imported(f.key, {
        data: [{ product: 'shirt', customer: f.alice.email, rating: 4, metadata: { a: '1', b: '2' } }],
      })
    ).data;
    const changed = await patch(f.key, review.id, { flagged: true, metadata: { c: '3' } });
    expect(changed.json()).toMatchObject({ flagged: true, metadata: { c: '3' }, published: false });
    const { result, events } = await eventsDuring(t, f.org, async () => [
      await patch(f.key, review.id, {}),
      await patch(f.key, review.id, { flagged: true, metadata: { c: '3' } }),
    ]);
    expect(result.map((response) => response.json())).toEqual([changed.json(), changed.json()]);
    expect(events).toEqual([]);
  });

  it('refuses the store fields and unknown fields with 400, and answers 404 for a missing or foreign review', async () => {
    const f = await fixture();
    const other = await fixture();
    const [review] = (await imported(f.key, { data: [{ product: 'shirt', customer: f.alice.email, rating: 4 }] })).data;
    for (const body of [
      { rating: 1 },
      { title: 'x' },
      { published: 'yes' },
      { metadata: { a: 1 } },
      { productId: null },
    ]) {
      const response = await patch(f.key, review.id, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().error.code).toBe('VALIDATION_ERROR');
    }
    const malformed = await t.request({
      method: 'PATCH',
      url: `/v1/reviews/${review.id}`,
      key: f.key,
      body: '{"published":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.statusCode).toBe(400);
    const foreign = await patch(other.key, review.id, { published: true });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error.code).toBe('NOT_FOUND');
    expect((await patch(f.key, uuidv7(), { published: true })).statusCode).toBe(404);
    expect(await get(f.key, `/v1/reviews/${review.id}`)).toEqual(review);
    expect((await eventsOf(t, other.org)).filter((event) => event.name.startsWith('review.'))).toEqual([]);
  });
});

describe('DELETE /v1/reviews/{id}', () => {
  it('returns the deleted review and records review.deleted; a second delete and a foreign delete are 404', async () => {
    const f = await fixture();
    const other = await fixture();
    const [review] = (
      await imported(f.key, { data: [{ product: 'shirt', customer: f.alice.email, rating: 4, published: true }] })
    ).data;
    const foreign = await t.request({ method: 'DELETE', url: `/v1/reviews/${review.id}`, key: other.key });
    expect(foreign.statusCode).toBe(404);
    const { result, events } = await eventsDuring(t, f.org, () =>
      t.request({ method: 'DELETE', url: `/v1/reviews/${review.id}`, key: f.key }),
    );
    expect(result.statusCode).toBe(200);
    expect(result.json()).toEqual(review);
    expect(events).toEqual([{ name: 'review.deleted', payload: review }]);
    expect((await t.request({ url: `/v1/reviews/${review.id}`, key: f.key })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/v1/reviews/${review.id}`, key: f.key })).statusCode).toBe(404);
  });
});

describe('PATCH /v1/reviews/bulk-update', () => {
  it('publishes, flags and edits metadata of the selected reviews only, with review.updated for each review that changed', async () => {
    const f = await fixture();
    const other = await fixture();
    const mine = (
      await imported(f.key, {
        data: [
          { product: 'shirt', customer: f.alice.email, remoteId: 'b1', rating: 5, metadata: { drop: 'x', keep: 'y' } },
          {
            product: 'mug',
            customer: f.alice.email,
            remoteId: 'b2',
            rating: 4,
            published: true,
            metadata: { batch: '7' },
          },
          { product: 'hat', customer: f.bob.email, remoteId: 'b3', rating: 1 },
        ],
      })
    ).data;
    const [theirs] = (
      await imported(other.key, { data: [{ product: 'shirt', customer: other.alice.email, rating: 5 }] })
    ).data;
    const filter = encodeURIComponent(JSON.stringify({ rating: { $gte: 4 } }));
    const { result, events } = await eventsDuring(t, f.org, () =>
      t.request({
        method: 'PATCH',
        url: `/v1/reviews/bulk-update?filter=${filter}`,
        key: f.key,
        body: { published: true, addMetadata: { batch: '7' }, removeMetadataKeys: ['drop'] },
      }),
    );
    expect(result.statusCode, result.body).toBe(200);
    // Two selected; the second was already published with that metadata, so only the first changed.
    expect(result.json()).toEqual({ count: 2 });
    const first = await get(f.key, `/v1/reviews/${mine[0].id}`);
    expect(first).toMatchObject({ published: true, metadata: { keep: 'y', batch: '7' } });
    expect(events).toEqual([{ name: 'review.updated', payload: first }]);
    expect(await get(f.key, `/v1/reviews/${mine[1].id}`)).toEqual(mine[1]);
    expect(await get(f.key, `/v1/reviews/${mine[2].id}`)).toEqual(mine[2]);
    expect(await get(other.key, `/v1/reviews/${theirs.id}`)).toEqual(theirs);

    // search selects too (customer email), ANDed with the filter; no filter means all.
    const searched = await t.request({
      method: 'PATCH',
      url: '/v1/reviews/bulk-update?search=bob%40example',
      key: f.key,
      body: { flagged: true },
    });
    expect(searched.json()).toEqual({ count: 1 });
    expect((await get(f.key, `/v1/reviews/${mine[2].id}`)).flagged).toBe(true);
    const all = await t.request({
      method: 'PATCH',
      url: '/v1/reviews/bulk-update',
      key: f.key,
      body: { published: false },
    });
    expect(all.json()).toEqual({ count: 3 });
    expect((await get(f.key, '/v1/reviews')).data.map((review: { published: boolean }) => review.published)).toEqual([
      false,
      false,
      false,
    ]);
    expect((await get(other.key, `/v1/reviews/${theirs.id}`)).published).toBe(false);
  });

  it('refuses an empty body, store or unknown fields, a bad filter and a merge past 50 keys, changing nothing', async () => {
    const f = await fixture();
    const [review] = (
      await imported(f.key, {
        data: [
          {
            product: 'shirt',
            customer: f.alice.email,
            rating: 5,
            metadata: Object.fromEntries(Array.from({ length: 45 }, (_, i) => [`k${i}`, 'v'])),
          },
        ],
      })
    ).data;
    const bulk = (url: string, body: unknown) => t.request({ method: 'PATCH', url, key: f.key, body });
    expect((await bulk('/v1/reviews/bulk-update', {})).statusCode).toBe(400);
    const storeField = await bulk('/v1/reviews/bulk-update', { rating: 1 });
    expect(storeField.statusCode).toBe(400);
    expect(storeField.json().error.details[0].path).toBe('body.rating');
    expect((await bulk('/v1/reviews/bulk-update', { addTags: ['x'] })).statusCode).toBe(400);
    expect(
      (await bulk(`/v1/reviews/bulk-update?filter=${encodeURIComponent('{"title":"x"}')}`, { flagged: true }))
        .statusCode,
    ).toBe(400);
    const overfull = await bulk('/v1/reviews/bulk-update', {
      published: true,
      addMetadata: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`n${i}`, 'v'])),
    });
    expect(overfull.statusCode).toBe(400);
    expect(overfull.json().error.details[0].path).toBe('body.addMetadata');
    expect(await get(f.key, `/v1/reviews/${review.id}`)).toEqual(review);
  });
});

describe('DELETE /v1/products/{id} and its reviews', () => {
  async function seed(f: Fixture) {
    return (
      await imported(f.key, {
        data: [
          { product: 'shirt', customer: f.alice.email, rating: 5, published: true },
          { product: 'shirt', customer: f.bob.email, rating: 2 },
          { product: 'mug', customer: f.alice.email, rating: 4, published: true },
        ],
      })
    ).data;
  }

  it('unlinks and unpublishes the reviews, sending review.updated for each before product.deleted', async () => {
    const f = await fixture();
    const [loved, hidden, bystander] = await seed(f);
    const { result, events } = await eventsDuring(t, f.org, () =>
      t.request({ method: 'DELETE', url: `/v1/products/${f.products.shirt.id}`, key: f.key }),
    );
    expect(result.statusCode).toBe(200);
    const unlinked = [await get(f.key, `/v1/reviews/${loved.id}`), await get(f.key, `/v1/reviews/${hidden.id}`)];
    expect(unlinked.map((review) => [review.productId, review.published])).toEqual([
      [null, false],
      [null, false],
    ]);
    expect(unlinked[0]).toEqual({
      ...loved,
      productId: null,
      published: false,
      updatedAt: expect.stringMatching(ISO_MS),
    });
    expect(events.map((event) => event.name)).toEqual(['review.updated', 'review.updated', 'product.deleted']);
    expect(
      events
        .slice(0, 2)
        .map((event) => event.payload)
        .sort((a, b) => (a.id < b.id ? -1 : 1)),
    ).toEqual(unlinked.sort((a, b) => (a.id < b.id ? -1 : 1)));
    expect(await get(f.key, `/v1/reviews/${bystander.id}`)).toEqual(bystander);
    expect(await get(f.key, `/v1/reviews/${loved.id}?include=product`)).toMatchObject({ product: null });
    // An unlinked review is found by productId null, and can still be edited and deleted.
    expect((await get(f.key, `/v1/reviews?filter=${encodeURIComponent('{"productId":null}')}`)).data).toHaveLength(2);
    expect((await patch(f.key, loved.id, { flagged: true })).statusCode).toBe(200);
  });

  it('with cascadeDeleteReviews on, deletes them, sending review.deleted for each', async () => {
    const f = await fixture();
    await db().updateTable('organizations').set({ cascade_delete_reviews: true }).where('id', '=', f.org).execute();
    const [loved, hidden, bystander] = await seed(f);
    const { events } = await eventsDuring(t, f.org, () =>
      t.request({ method: 'DELETE', url: `/v1/products/${f.products.shirt.id}`, key: f.key }),
    );
    expect(events.map((event) => event.name)).toEqual(['review.deleted', 'review.deleted', 'product.deleted']);
    expect(
      events
        .slice(0, 2)
        .map((event) => event.payload)
        .sort((a, b) => (a.id < b.id ? -1 : 1)),
    ).toEqual([loved, hidden].sort((a, b) => (a.id < b.id ? -1 : 1)));
    expect((await t.request({ url: `/v1/reviews/${loved.id}`, key: f.key })).statusCode).toBe(404);
    expect((await get(f.key, '/v1/reviews')).data).toEqual([bystander]);
  });
});

describe('DELETE /v1/customers/{id} and their reviews', () => {
  it("deletes the customer's reviews with review.deleted each, before customer.deleted; other reviews stay", async () => {
    const f = await fixture();
    await imported(f.key, {
      data: [
        { product: 'shirt', customer: f.alice.email, rating: 5, title: 'Great', body: 'Fits well.', published: true },
        { product: 'mug', customer: f.alice.email, rating: 3, title: 'Fine', body: 'Small.' },
        { product: 'shirt', customer: f.bob.email, rating: 4, title: 'Good', body: 'Soft linen.', published: true },
      ],
    });
    const { result, events } = await eventsDuring(t, f.org, () =>
      t.request({ method: 'DELETE', url: `/v1/customers/${f.alice.id}`, key: f.key }),
    );
    expect(result.statusCode, result.body).toBe(200);
    expect(events.map((event) => event.name)).toEqual(['review.deleted', 'review.deleted', 'customer.deleted']);
    expect(events.slice(0, 2).every((event) => event.payload.customerId === f.alice.id)).toBe(true);
    const left = await get(f.key, '/v1/reviews');
    expect(left.data.map((review: any) => review.customerId)).toEqual([f.bob.id]);
  });
});

describe('permissions and costs', () => {
  it('reviews:read can read but not write; a key without reviews permissions cannot read', async () => {
    const f = await fixture();
    const [review] = (await imported(f.key, { data: [{ product: 'shirt', customer: f.alice.email, rating: 4 }] })).data;
    const reader = await t.key(f.org, ['reviews:read']);
    expect((await t.request({ url: '/v1/reviews', key: reader })).statusCode).toBe(200);
    expect((await t.request({ url: `/v1/reviews/${review.id}`, key: reader })).statusCode).toBe(200);
    for (const [method, url, body] of [
      ['PATCH', `/v1/reviews/${review.id}`, { published: true }],
      ['DELETE', `/v1/reviews/${review.id}`, undefined],
      ['PATCH', '/v1/reviews/bulk-update', { published: true }],
      ['POST', '/v1/reviews/import', { data: [] }],
    ] as const) {
      const response = await t.request({ method, url, key: reader, body });
      expect(response.statusCode, `${method} ${url}`).toBe(403);
      expect(response.json().error.message).toContain('reviews:write');
    }
    const productsOnly = await t.key(f.org, ['products:read']);
    expect((await t.request({ url: '/v1/reviews', key: productsOnly })).statusCode).toBe(403);
    expect((await t.request({ url: '/v1/reviews' })).statusCode).toBe(401);
    expect(await get(f.key, `/v1/reviews/${review.id}`)).toEqual(review);
  });

  it('import costs 10 tokens and bulk-update 5', async () => {
    // The smallest ceiling is 10 tokens, refilled at 1 every 6 seconds: what a request leaves shows its cost.
    const full = async () => {
      const who = await t.tenant();
      await db()
        .updateTable('organizations')
        .set({ api_requests_per_minute: 10 })
        .where('id', '=', who.organization.id)
        .execute();
      return who.key;
    };
    const afterImport = await full();
    expect((await importReviews(afterImport, { data: [] })).statusCode).toBe(200);
    expect((await t.request({ url: '/v1/reviews', key: afterImport })).statusCode).toBe(429);
    const afterBulk = await full();
    const bulk = () =>
      t.request({ method: 'PATCH', url: '/v1/reviews/bulk-update', key: afterBulk, body: { flagged: true } });
    expect((await bulk()).json()).toEqual({ count: 0 });
    expect((await bulk()).statusCode).toBe(200);
    expect((await t.request({ url: '/v1/reviews', key: afterBulk })).statusCode).toBe(429);
    const afterReads = await full();
    for (let i = 0; i < 10; i++)
      expect((await t.request({ url: '/v1/reviews', key: afterReads })).statusCode).toBe(200);
    expect((await t.request({ url: '/v1/reviews', key: afterReads })).statusCode).toBe(429);
  });
});
