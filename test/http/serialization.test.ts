import fastJson from 'fast-json-stringify';
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { compileSerializer, serializationSchema } from '../../src/core/serialization.js';
import { LoyaltyReward } from '../../src/records/loyalty/reward.js';
import { LoyaltyTransaction } from '../../src/records/loyalty/transaction.js';

const Uuid = Type.String({ format: 'uuid' });
const Shape = Type.Object({
  id: Uuid,
  parentId: Type.Union([Uuid, Type.Null()], { description: 'The parent.' }),
  at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  count: Type.Union([Type.Integer(), Type.Null()]),
  child: Type.Union([Type.Object({ name: Type.String() }), Type.Null()]),
  either: Type.Union([
    Type.Object({ kind: Type.Literal('a'), a: Type.String() }),
    Type.Object({ kind: Type.Literal('b'), b: Type.Integer() }),
  ]),
  fixed: Type.Union([Type.Literal('only'), Type.Null()]),
  list: Type.Array(Type.Union([Uuid, Type.Null()])),
  status: Type.Union([Type.Literal('open'), Type.Literal('closed')], { description: 'State.' }),
});

describe('serialization schemas', () => {
  it('writes a nullable field as a type list, keeps its keywords and annotations, and leaves the original alone', () => {
    const before = JSON.stringify(Shape);
    const schema = serializationSchema(Shape) as { properties: Record<string, Record<string, unknown>> };
    expect(schema.properties.parentId).toEqual({
      type: ['string', 'null'],
      format: 'uuid',
      description: 'The parent.',
    });
    expect(schema.properties.at).toEqual({ type: ['string', 'null'], format: 'date-time' });
    expect(schema.properties.count).toEqual({ type: ['integer', 'null'] });
    expect(schema.properties.child).toMatchObject({
      type: ['object', 'null'],
      properties: { name: { type: 'string' } },
    });
    expect((schema.properties.list as { items: unknown }).items).toEqual({ type: ['string', 'null'], format: 'uuid' });
    // A union of two shapes needs its validation to pick the branch; a constant must not be written for null.
    expect(schema.properties.either).toHaveProperty('anyOf');
    expect(schema.properties.fixed).toHaveProperty('anyOf');
    expect(schema.properties.status).toEqual({ type: 'string', enum: ['open', 'closed'], description: 'State.' });
    expect(JSON.stringify(Shape)).toBe(before);
  });

  it('writes the same JSON as fast-json-stringify over the original schema', () => {
    const values = [
      {
        id: '0193b5a2-0000-7000-8000-000000000001',
        parentId: null,
        at: null,
        count: null,
        child: null,
        either: { kind: 'b', b: 3, extra: 'dropped' },
        fixed: null,
        list: [null, '0193b5a2-0000-7000-8000-000000000002'],
        status: 'open',
        unknown: 1,
      },
      {
        id: '0193b5a2-0000-7000-8000-000000000001',
        parentId: '0193b5a2-0000-7000-8000-000000000003',
        at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
        count: 7,
        child: { name: 'n', other: true },
        either: { kind: 'a', a: 'x' },
        fixed: 'only',
        list: [],
        status: 'closed',
      },
    ];
    const original = fastJson(Shape as never) as (value: unknown) => string;
    const ours = compileSerializer(Shape);
    for (const value of values) expect(ours(value)).toBe(original(value));
  });

  it('writes loyalty records as before for every nullable field set and unset', () => {
    const transaction = {
      id: '0193b5a2-0000-7000-8000-000000000010',
      loyaltyMembershipId: '0193b5a2-0000-7000-8000-000000000011',
      customerId: '0193b5a2-0000-7000-8000-000000000012',
      kind: 'earned',
      points: 10,
      balanceAfter: 10,
      reason: null,
      loyaltyRuleId: null,
      loyaltyRewardId: null,
      orderId: '0193b5a2-0000-7000-8000-000000000013',
      eventName: null,
      expiresAt: '2027-01-01T00:00:00.000Z',
      remaining: 10,
      metadata: {},
      createdAt: '2026-11-21T00:00:00.000Z',
    };
    expect(compileSerializer(LoyaltyTransaction)(transaction)).toBe(
      (fastJson(LoyaltyTransaction as never) as (v: unknown) => string)(transaction),
    );
    const reward = {
      id: '0193b5a2-0000-7000-8000-000000000020',
      loyaltyMembershipId: '0193b5a2-0000-7000-8000-000000000011',
      customerId: '0193b5a2-0000-7000-8000-000000000012',
      loyaltyRuleId: null,
      stampCardId: null,
      loyaltyTransactionId: null,
      status: 'pending',
      code: 'ABCD-EFGH-JKLM',
      reward: { type: 'percentageDiscount', percentage: 10 },
      expiresAt: null,
      redeemedAt: null,
      revokedAt: null,
      metadata: { k: 'v' },
      fulfillment: null,
      ruleSnapshot: null,
      createdAt: '2026-11-21T00:00:00.000Z',
      updatedAt: '2026-11-21T00:00:00.000Z',
    };
    expect(compileSerializer(LoyaltyReward)(reward)).toBe(
      (fastJson(LoyaltyReward as never) as (v: unknown) => string)(reward),
    );
  });
});
