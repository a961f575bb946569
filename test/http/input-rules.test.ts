/**
 * The input rules of docs/api.md#strict-input that protect shoppers and people reading errors, through HTTP: URL
 * fields a shopper or an email may see take http(s) only, currencies are ISO 4217 codes, and a value that misses a
 * field's pattern is told in words what the field takes, never the regular expression.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileBodyValidator } from '../../src/http/validation.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';

let t: TestApp;
let tenant: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  tenant = await t.tenant({ apiRequestsPerMinute: 1_000_000 });
});
afterAll(() => t.close());

const post = (url: string, body: unknown) => t.request({ method: 'POST', url, key: tenant.key, body });
const variant = (slug: string, extra: Record<string, unknown> = {}) => ({
  slug,
  title: slug,
  priceCents: 100,
  currencyCode: 'EUR',
  ...extra,
});
const productCount = async () =>
  Number(
    (
      await t.testDatabase.database.db
        .selectFrom('products')
        .select((eb) => eb.fn.countAll().as('count'))
        .where('organization_id', '=', tenant.organization.id)
        .executeTakeFirstOrThrow()
    ).count,
  );

describe('URL fields a shopper or an email may see', () => {
  const refused = [
    'javascript:alert(document.cookie)',
    'JavaScript:alert(1)',
    'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
    'vbscript:msgbox(1)',
    'ftp://files.example/a.png',
    '//shop.example/lamp',
    'https://',
    'https://shop.example/a lamp',
    ' https://shop.example/lamp',
  ];

  it('refuses any scheme but http(s) in a product url or imageUrl and a variant imageUrl (400 naming the field), writing nothing', async () => {
    const before = await productCount();
    for (const value of refused) {
      for (const [row, path] of [
        [{ slug: 'lamp', url: value }, 'body.data[0].url'],
        [{ slug: 'lamp', imageUrl: value }, 'body.data[0].imageUrl'],
        [{ slug: 'lamp', variants: [variant('lamp-one', { imageUrl: value })] }, 'body.data[0].variants[0].imageUrl'],
      ] as const) {
        const response = await post('/v1/products/import', { data: [row] });
        expect(response.statusCode, `${path} ${value}`).toBe(400);
        const { error } = response.json();
        expect(error.code).toBe('VALIDATION_ERROR');
        expect(error.details).toContainEqual({ path, message: expect.stringContaining('http:// or https:// URL') });
        expect(error.message).toContain(path);
      }
    }
    expect(await productCount()).toBe(before);
  });

  it('takes http and https URLs, and empty for none', async () => {
    const response = await post('/v1/products/import', {
      data: [
        {
          slug: 'lamp',
          url: 'https://shop.example/products/lamp?colour=red#top',
          imageUrl: 'http://cdn.example/lamp.png',
          variants: [variant('lamp-one', { imageUrl: '' })],
        },
      ],
    });
    expect(response.statusCode, response.body).toBe(200);
    const product = await t.request({ url: '/v1/products?include=variants', key: tenant.key });
    expect(product.json().data[0]).toMatchObject({
      url: 'https://shop.example/products/lamp?colour=red#top',
      imageUrl: 'http://cdn.example/lamp.png',
      variants: [{ imageUrl: '' }],
    });
  });
});

describe('currency codes', () => {
  it('takes ISO 4217 codes only, on sites, variants and orders, saying so when refused', async () => {
    const expected = 'must be an ISO 4217 currency code in upper case, such as "USD" or "EUR"';
    for (const code of ['ZZZ', 'XXX', 'usd', 'EURO', 'HRK']) {
      const site = await post('/v1/sites', { data: { name: 'Shop', domain: 'zzz.example', currencyCode: code } });
      expect(site.statusCode, code).toBe(400);
      expect(site.json().error.details).toEqual([{ path: 'body.data.currencyCode', message: expected }]);
      const product = await post('/v1/products/import', {
        data: [{ slug: 'mug', variants: [variant('mug-one', { currencyCode: code })] }],
      });
      expect(product.statusCode, code).toBe(400);
      expect(product.json().error.details).toEqual([
        { path: 'body.data[0].variants[0].currencyCode', message: expected },
      ]);
      const order = await post('/v1/orders/import', {
        data: [{ remoteId: 'o-1', number: '1', site: 'shop.example', currencyCode: code, items: [] }],
      });
      expect(order.statusCode, code).toBe(400);
      expect(order.json().error.details).toContainEqual({ path: 'body.data[0].currencyCode', message: expected });
    }
    for (const code of ['USD', 'EUR', 'JPY', 'CHF']) {
      const site = await post('/v1/sites', {
        data: { name: `Shop ${code}`, domain: `${code.toLowerCase()}.example`, currencyCode: code },
      });
      expect(site.statusCode, site.body).toBe(201);
    }
  });
});

describe('validation messages for patterned fields', () => {
  it('tells a wrong birthday or phone what is expected, in words', async () => {
    const response = await post('/v1/customers/import', {
      data: [{ email: 'ada@example.com', birthday: '13-45', phone: '004420794609' }],
    });
    expect(response.statusCode).toBe(400);
    const { error } = response.json();
    expect(error.details).toEqual([
      {
        path: 'body.data[0].phone',
        message: expect.stringMatching(
          /^must be a phone number in international E\.164 form: .* e\.g\. \+14155550123$/,
        ),
      },
      {
        path: 'body.data[0].birthday',
        message: 'must be a month and day that exist, as MM-DD with no year, e.g. 04-21 (02-29 is allowed)',
      },
    ]);
    expect(error.message).not.toMatch(/\^|\$|\\d|\[0-9]/);
  });

  it('gives every pattern of the OpenAPI document words, and never its regular expression', async () => {
    const document = (await t.request({ url: '/openapi.json' })).json();
    const patterned: { where: string; schema: Record<string, any> }[] = [];
    const walk = (node: unknown, where: string) => {
      if (Array.isArray(node)) node.forEach((item, index) => walk(item, `${where}/${index}`));
      else if (node && typeof node === 'object') {
        const object = node as Record<string, unknown>;
        if (typeof object.pattern === 'string' && object.type === 'string') patterned.push({ where, schema: object });
        for (const [key, value] of Object.entries(object)) walk(value, `${where}/${key}`);
      }
    };
    walk(document, '#');
    // Phone, birthdays, event names, keys, language tags, not-blank texts, URLs, survey ids, headers.
    expect(patterned.length).toBeGreaterThanOrEqual(15);
    const candidates = ['   ', '!! not this !!', '\u0000', 'x'];
    for (const { where, schema } of patterned) {
      const regex = new RegExp(schema.pattern, 'u');
      const wrong = candidates.find(
        (value) =>
          !regex.test(value) &&
          value.length >= (schema.minLength ?? 0) &&
          value.length <= (schema.maxLength ?? Infinity),
      );
      expect(wrong, `a value that misses ${where}`).toBeDefined();
      const details = compileBodyValidator({ ...schema })(wrong) ?? [];
      expect(details.length, where).toBeGreaterThan(0);
      for (const detail of details) {
        expect(detail.message, where).not.toContain(schema.pattern);
        expect(detail.message, where).not.toMatch(/must match pattern/);
      }
      expect(schema['x-pattern-message'], `${where} has words for its pattern`).toEqual(expect.any(String));
      expect(details.map((detail) => detail.message)).toContain(schema['x-pattern-message']);
    }
  });
});
