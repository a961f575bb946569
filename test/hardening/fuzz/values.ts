import fc from 'fast-check';
import type { Schema } from './openapi.js';
import { kindOfField, type OrganizationPool } from './pools.js';

/** What value generation draws on beyond the schema: real rows of both organizations and the event catalog. */
export interface ValueContext {
  resolve(schema: Schema): Schema;
  own: OrganizationPool;
  foreign: OrganizationPool;
  webhookEvents: string[];
}

const MAX_DEPTH = 8;
const SHORT = 24;
const WORDS = [
  'vip',
  'sale',
  'new',
  'gift',
  'seeded',
  'summer',
  'a b',
  'été',
  '50%',
  'x_y',
  'back\\slash',
  "o'k",
  '日本',
];
const DATE_MIN = new Date('2020-01-01T00:00:00Z');
const DATE_MAX = new Date('2035-12-31T23:59:59Z');

/** Any value the schema accepts, biased to realistic references (real ids, slugs, emails) and to the bounds. */
export function valueArbitrary(schema: Schema, ctx: ValueContext, name?: string, depth = 0): fc.Arbitrary<unknown> {
  const resolved = ctx.resolve(schema);
  const hinted = name !== undefined ? hint(name, resolved, ctx) : undefined;
  const plain = schemaArbitrary(resolved, ctx, name, depth);
  return hinted ? fc.oneof({ arbitrary: hinted, weight: 3 }, { arbitrary: plain, weight: 1 }) : plain;
}

function schemaArbitrary(
  schema: Schema,
  ctx: ValueContext,
  name: string | undefined,
  depth: number,
): fc.Arbitrary<unknown> {
  if (depth > MAX_DEPTH) return fc.constant(null);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
    const branches: Schema[] = schema.anyOf ?? schema.oneOf;
    return fc.oneof(...branches.map((branch) => valueArbitrary(branch, ctx, name, depth + 1)));
  }
  if (Array.isArray(schema.allOf) && schema.allOf.every((part: Schema) => part.then)) {
    // TypeBox's discriminated unions: one if/then per variant; any variant's `then` is a valid value.
    return fc.oneof(...schema.allOf.map((part: Schema) => valueArbitrary(part.then, ctx, name, depth + 1)));
  }
  const type = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : undefined;
  if (type && type.length > 1)
    return fc.oneof(...type.map((one: string) => schemaArbitrary({ ...schema, type: one }, ctx, name, depth)));
  switch (type?.[0]) {
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return integerArbitrary(schema);
    case 'number':
      return numberArbitrary(schema);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valueArbitrary(schema.items ?? {}, ctx, singular(name), depth + 1), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3)),
      });
    case 'object':
      return objectArbitrary(schema, ctx, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectArbitrary(schema: Schema, ctx: ValueContext, depth: number): fc.Arbitrary<unknown> {
  const properties: Record<string, Schema> = schema.properties ?? {};
  const names = Object.keys(properties);
  const wrapped = ctx.resolve(properties.data ?? {});
  const siblings = names.filter((key) => key !== 'data');
  if (
    wrapped.type === 'object' &&
    wrapped.properties &&
    siblings.length > 0 &&
    Object.keys(wrapped.properties).every((key) => siblings.includes(key))
  ) {
    // D22: the fields inside `data` or at the top level, never both.
    const inner = objectArbitrary(wrapped, ctx, depth + 1);
    return fc.oneof(
      inner.map((data) => ({ data })),
      inner,
    );
  }
  if (names.length === 0) {
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
      const maxKeys = Math.min(schema.maxProperties ?? 3, 3);
      const key = fc.string({
        minLength: schema.propertyNames?.minLength ?? 0,
        maxLength: Math.min(schema.propertyNames?.maxLength ?? SHORT, SHORT),
      });
      return fc.dictionary(
        fc.oneof(fc.constantFrom('channel', 'color', 'source', 'rank'), key),
        valueArbitrary(schema.additionalProperties, ctx, undefined, depth + 1),
        { maxKeys },
      );
    }
    return schema.additionalProperties === true
      ? fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })
      : fc.constant({});
  }
  const required: string[] = (schema.required ?? []).filter((key: string) => key in properties);
  const model = Object.fromEntries(names.map((key) => [key, valueArbitrary(properties[key]!, ctx, key, depth + 1)]));
  const record = fc.record(model, { requiredKeys: required }) as fc.Arbitrary<Record<string, unknown>>;
  const minProperties = schema.minProperties ?? 0;
  const sized = minProperties > 0 ? record.filter((value) => Object.keys(value).length >= minProperties) : record;
  return fc.tuple(sized, fc.nat()).map(([value, n]) => (n % 4 === 0 ? value : coherent(value, n)));
}

/**
 * Rules between fields that a schema cannot say, applied to most generated objects so that valid requests get
 * past them: a rule's config goes with its section; a member is named by loyaltyMembershipId or by customer (with
 * its program), not both.
 */
function coherent(value: Record<string, unknown>, n: number): Record<string, unknown> {
  const out = { ...value };
  const fitting = RULE_CONFIGS_BY_SECTION[String(out.section)];
  if (fitting && 'config' in out) out.config = fitting[n % fitting.length];
  if ('loyaltyMembershipId' in out && 'customer' in out) {
    if (n % 2) delete out.customer;
    else delete out.loyaltyMembershipId;
  }
  if ('loyaltyMembershipId' in out && 'loyaltyProgramId' in out && !('customer' in out)) delete out.loyaltyProgramId;
  return out;
}

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const minLength: number = schema.minLength ?? 0;
  const maxLength: number = schema.maxLength ?? 10_000;
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'date-time':
      return dateTime();
    case 'email':
      return emailArbitrary();
    case 'uri':
      return fc.webUrl();
  }
  if (schema.pattern) {
    return fc
      .stringMatching(new RegExp(schema.pattern, 'u'))
      .filter((value) => value.length >= minLength && value.length <= maxLength);
  }
  const short = fc.string({
    minLength,
    maxLength: Math.max(minLength, Math.min(maxLength, SHORT)),
    unit: fc.oneof(
      { arbitrary: fc.constantFrom('a', 'b', 'Z', '0', ' ', '-', '_'), weight: 4 },
      { arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }), weight: 1 },
    ),
  });
  const fitting = WORDS.filter((word) => word.length >= minLength && word.length <= maxLength);
  const words = fitting.length ? [{ arbitrary: fc.constantFrom(...fitting), weight: 3 }] : [];
  // Exactly at the length bound: long strings only where the bound is small enough to keep bodies light.
  const atBound = maxLength <= 10_000 ? [{ arbitrary: fc.constant('x'.repeat(maxLength)), weight: 1 }] : [];
  return fc.oneof({ arbitrary: short, weight: 6 }, ...words, ...atBound);
}

function integerArbitrary(schema: Schema): fc.Arbitrary<number> {
  const min = Math.max(schema.minimum ?? -1_000_000, Number.MIN_SAFE_INTEGER);
  const max = Math.min(schema.maximum ?? 1_000_000, Number.MAX_SAFE_INTEGER);
  const bounds = [...new Set([min, max, Math.min(min + 1, max), Math.max(max - 1, min)])];
  const small = fc.integer({ min: Math.max(min, Math.min(0, max)), max: Math.min(max, Math.max(min, 0) + 2000) });
  return fc.oneof(
    { arbitrary: small, weight: 5 },
    { arbitrary: fc.integer({ min, max }), weight: 2 },
    { arbitrary: fc.constantFrom(...bounds), weight: 2 },
  );
}

function numberArbitrary(schema: Schema): fc.Arbitrary<number> {
  const min: number = schema.minimum ?? -1e6;
  const max: number = schema.maximum ?? 1e6;
  if (schema.multipleOf === 0.01)
    return fc.integer({ min: Math.ceil(min * 100), max: Math.floor(max * 100) }).map((cents) => cents / 100);
  return fc.oneof(fc.double({ min, max, noNaN: true, noDefaultInfinity: true }), fc.constantFrom(min, max));
}

/**
 * Date-times the `date-time` format accepts, at the edges too: year 0 and 9999, a leap second, the largest offsets,
 * more digits than milliseconds.
 */
const EDGE_DATE_TIMES = [
  '0000-01-01T00:00:00Z',
  '0001-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '2016-12-31T23:59:60Z',
  '2024-02-29T12:00:00+14:00',
  '2026-01-01T00:00:00-12:00',
  '2026-06-30T23:59:59.123456789Z',
  '1970-01-01T00:00:00z',
  '2026-03-29t02:30:00+01:00',
];

export function dateTime(): fc.Arbitrary<string> {
  const instant = fc.date({ min: DATE_MIN, max: DATE_MAX, noInvalidDate: true });
  return fc.oneof(
    { arbitrary: instant.map((date) => date.toISOString()), weight: 8 },
    {
      arbitrary: instant.map((date) =>
        date
          .toISOString()
          .replace('.000Z', '+02:00')
          .replace(/\.\d{3}Z$/, '-05:30'),
      ),
      weight: 2,
    },
    {
      arbitrary: fc.constantFrom(
        new Date(Date.now() + 86_400_000 * 30).toISOString(),
        new Date(Date.now() - 86_400_000).toISOString(),
      ),
      weight: 4,
    },
    { arbitrary: fc.constantFrom(...EDGE_DATE_TIMES), weight: 2 },
  );
}

function emailArbitrary(): fc.Arbitrary<string> {
  return fc
    .tuple(fc.stringMatching(/^[a-z][a-z0-9.]{0,10}$/), fc.constantFrom('example.com', 'EXAMPLE.org', 'mail.example'))
    .map(([local, domain]) => `${local}@${domain}`);
}

/** The hint name of an array's items: `events[]`, `sites[]`. */
function singular(name: string | undefined): string | undefined {
  return name === undefined ? undefined : `${name}[]`;
}

/** Realistic values by field name: references that exist, URLs the policy accepts, configs a rule section takes. */
function hint(name: string, schema: Schema, ctx: ValueContext): fc.Arbitrary<unknown> | undefined {
  const { own, foreign } = ctx;
  const pick = (values: readonly string[], fallback: fc.Arbitrary<string>) =>
    values.length ? fc.constantFrom(...values) : fallback;
  const kind = kindOfField(name);
  if (kind && (schema.format === 'uuid' || schema.anyOf)) {
    return fc.oneof(
      { arbitrary: pick(own.ids[kind], fc.uuid()), weight: 6 },
      { arbitrary: pick(foreign.ids[kind], fc.uuid()), weight: 1 },
      { arbitrary: fc.uuid(), weight: 1 },
    );
  }
  switch (name) {
    case 'site':
      return fc.oneof(
        { arbitrary: pick(own.siteRefs, fc.constant('x')), weight: 5 },
        { arbitrary: pick(foreign.siteRefs, fc.constant('y')), weight: 1 },
      );
    case 'customer':
      return fc.oneof(
        { arbitrary: pick(own.customerRefs, fc.constant('x')), weight: 5 },
        { arbitrary: pick(foreign.customerRefs, fc.constant('y')), weight: 1 },
      );
    case 'product':
      return fc.oneof(
        { arbitrary: pick(own.productRefs, fc.constant('x')), weight: 5 },
        { arbitrary: pick(foreign.productRefs, fc.constant('y')), weight: 1 },
      );
    case 'variant':
      return pick(own.variantSlugs, fc.constant('small'));
    case 'code':
      return fc.oneof(
        { arbitrary: pick(own.rewardCodes, fc.constant('ABCD-EFGH-JKMN')), weight: 3 },
        {
          arbitrary: pick(own.rewardCodes, fc.constant('ABCD-EFGH-JKMN')).map((code) =>
            code.toLowerCase().replace(/-/g, ' '),
          ),
          weight: 1,
        },
        { arbitrary: pick(foreign.rewardCodes, fc.constant('ABCD-EFGH-JKMN')), weight: 1 },
      );
    case 'referralCode':
      return pick([...own.referralCodes, ...foreign.referralCodes.slice(0, 2)], fc.constant('ABCDEFGH'));
    case 'events':
      return ctx.webhookEvents.length ? fc.subarray(ctx.webhookEvents, { minLength: 1, maxLength: 4 }) : undefined;
    case 'events[]':
      return ctx.webhookEvents.length ? fc.constantFrom(...ctx.webhookEvents) : undefined;
    case 'sites[]':
      return fc.oneof(
        { arbitrary: pick(own.siteRefs, fc.constant('x')), weight: 5 },
        { arbitrary: pick(foreign.siteRefs, fc.constant('y')), weight: 1 },
      );
    case 'tags[]':
    case 'addTags[]':
    case 'removeTags[]':
      return fc.constantFrom(...WORDS);
    case 'url':
      return fc.constantFrom(
        'http://127.0.0.1:9/hook',
        'https://127.0.0.1:9/hook',
        'http://localhost:9/a?b=c',
        'https://[::1]:9/x',
        'https://hooks.invalid/x',
        'ftp://127.0.0.1/x',
        'https://user:pw@127.0.0.1:9/',
        'https://127.0.0.1:9/#fragment',
        'https://127.0.0.1:0/',
        'not a url',
      );
    case 'email':
      return fc.oneof(
        emailArbitrary(),
        pick(own.emails, emailArbitrary()),
        pick(own.emails, emailArbitrary()).map((email) => email.toUpperCase()),
      );
    case 'domain':
      return fc.stringMatching(/^[a-z]{1,12}\.example$/);
    case 'currencyCode':
      return fc.constantFrom('EUR', 'USD', 'JPY');
    case 'event':
    case 'eventName':
      return fc.constantFrom('signup', 'birthday', 'review', 'x.y:z-1');
    case 'config':
      return fc.constantFrom(...RULE_CONFIGS);
    case 'tags':
    case 'addTags':
    case 'removeTags':
      return fc.uniqueArray(fc.constantFrom(...WORDS), { maxLength: 3 });
    case 'occurredAt':
    case 'createdAt':
      // When something happened: in the past, mostly.
      return fc.oneof(
        {
          arbitrary: fc
            .date({ min: DATE_MIN, max: new Date(Date.now() - 60_000), noInvalidDate: true })
            .map((date) => date.toISOString()),
          weight: 4,
        },
        { arbitrary: dateTime(), weight: 1 },
      );
    case 'timezone':
      return fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kathmandu', 'Mars/Base');
  }
  return undefined;
}

const coupon = { type: 'amountCoupon', amountCents: 500, productFilter: null, minimumOrderTotalCents: null };
/** Valid configs per rule section (docs/api.md, Loyalty: rules), bounds included. */
const RULE_CONFIGS_BY_SECTION: Record<string, readonly unknown[]> = {
  rules: [
    { type: 'orderSpend', pointsPerUnit: 2, unitCents: 100, minimumOrderTotalCents: null },
    { type: 'orderSpend', pointsPerUnit: Number.MAX_SAFE_INTEGER, unitCents: 1 },
    { type: 'event', eventName: 'birthday', points: 10, frequency: 'oncePerYear' },
  ],
  rewards: [
    { pointsCost: 20, reward: coupon },
    {
      pointsCost: 1,
      reward: {
        type: 'giftCard',
        amountCents: 1000,
        expirySeconds: Number.MAX_SAFE_INTEGER,
        expiry: { type: 'daysAfterIssuance', days: 3650 },
      },
    },
    {
      pointsCost: 5,
      reward: {
        type: 'percentageCoupon',
        percentageDiscount: 100,
        productFilter: { slugs: ['product-1'], tags: ['sale'] },
        minimumOrderTotalCents: 1,
        expiry: { type: 'fixedDate', expiresAt: '9999-12-31T23:59:59.999Z' },
      },
    },
  ],
  offers: [
    { type: 'pointsMultiplier', multiplier: 1.5, startsAt: '2026-01-01T00:00:00Z', endsAt: '2027-01-01T00:00:00Z' },
    { type: 'pointsMultiplier', multiplier: 100, startsAt: '0001-01-01T00:00:00Z', endsAt: '9999-12-31T23:59:59.999Z' },
    {
      type: 'reward',
      reward: { type: 'points', amount: 5 },
      startsAt: '2026-01-01T00:00:00Z',
      endsAt: '2026-01-02T00:00:00Z',
    },
  ],
  stampCards: [
    { stampsRequired: 5, reward: coupon, stampsPerOrder: 1, minimumOrderTotalCents: 100 },
    { stampsRequired: 1000, reward: { type: 'points', amount: Number.MAX_SAFE_INTEGER }, stampsPerOrder: 1000 },
    {
      stampsRequired: 1,
      reward: { type: 'freeShipping', maximumValueCents: null, expiry: { type: 'daysAfterIssuance', days: 3650 } },
    },
  ],
};
const RULE_CONFIGS: readonly unknown[] = Object.values(RULE_CONFIGS_BY_SECTION).flat();
