/**
 * The reward object, the expiry object and the fulfillment object of service.md: the discriminated shapes a request
 * validates, and the output shapes the loyalty records carry.
 */
import Type, { type Static } from 'typebox';
import { discriminated } from '../discriminated.js';

/** service.md "Money and interval integers in reward": minimum 1, maximum 2^53 - 1. */
export const PositiveAmount = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const NullablePositiveAmount = Type.Union([PositiveAmount, Type.Null()]);

/** service.md expiry object: when omitted the program's default applies. */
export const EXPIRY_DAYS = { minimum: 1, maximum: 3650 } as const;

const NeverExpiry = Type.Object({ type: Type.Literal('never') }, { additionalProperties: false });
const DaysAfterIssuanceExpiry = Type.Object(
  { type: Type.Literal('daysAfterIssuance'), days: Type.Integer(EXPIRY_DAYS) },
  { additionalProperties: false },
);
const FixedDateExpiry = Type.Object(
  { type: Type.Literal('fixedDate'), expiresAt: Type.String({ format: 'date-time' }) },
  { additionalProperties: false },
);

/** The expiry object of service.md (never, daysAfterIssuance 1..3650, fixedDate), as a request validates it. */
export const ExpiryInput = discriminated([NeverExpiry, DaysAfterIssuanceExpiry, FixedDateExpiry], {
  description: 'never | daysAfterIssuance { days 1..3650 } | fixedDate { expiresAt }.',
});
export type Expiry = Static<typeof ExpiryInput>;

export const ProductFilter = Type.Union(
  [
    Type.Object(
      {
        slugs: Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 500 }),
        tags: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 500 }),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: '{ slugs, tags } or null (any product).' },
);

const PointsReward = Type.Object(
  { type: Type.Literal('points'), amount: PositiveAmount },
  { additionalProperties: false },
);
const AmountCouponReward = Type.Object(
  {
    type: Type.Literal('amountCoupon'),
    amountCents: PositiveAmount,
    productFilter: ProductFilter,
    minimumOrderTotalCents: NullablePositiveAmount,
    expiry: Type.Optional(ExpiryInput),
  },
  { additionalProperties: false },
);
const PercentageCouponReward = Type.Object(
  {
    type: Type.Literal('percentageCoupon'),
    percentageDiscount: Type.Integer({ minimum: 1, maximum: 100 }),
    productFilter: ProductFilter,
    minimumOrderTotalCents: NullablePositiveAmount,
    expiry: Type.Optional(ExpiryInput),
  },
  { additionalProperties: false },
);
const FreeShippingReward = Type.Object(
  { type: Type.Literal('freeShipping'), maximumValueCents: NullablePositiveAmount, expiry: Type.Optional(ExpiryInput) },
  { additionalProperties: false },
);
const GiftCardReward = Type.Object(
  {
    type: Type.Literal('giftCard'),
    amountCents: PositiveAmount,
    expirySeconds: NullablePositiveAmount,
    expiry: Type.Optional(ExpiryInput),
  },
  { additionalProperties: false },
);

/** The reward object of service.md, every type, with its exact bounds. */
export const RewardInput = discriminated(
  [PointsReward, AmountCouponReward, PercentageCouponReward, FreeShippingReward, GiftCardReward],
  { description: 'service.md reward object: points | amountCoupon | percentageCoupon | freeShipping | giftCard.' },
);
export type Reward = Static<typeof RewardInput>;

/** The same without points (rule 3: points are never handed out as a reward with a code). */
export const CouponRewardInput = discriminated(
  [AmountCouponReward, PercentageCouponReward, FreeShippingReward, GiftCardReward],
  {
    description: 'amountCoupon | percentageCoupon | freeShipping | giftCard (points go through a points adjustment).',
  },
);
export type CouponReward = Static<typeof CouponRewardInput>;

/**
 * Responses carry stored objects that were validated on the way in; they are written as they are (key order kept),
 * so these output schemas only name the discriminator.
 */
export const RewardOutput = Type.Object(
  { type: Type.String() },
  { additionalProperties: true, description: 'The reward object of service.md (see RewardInput).' },
);
export const ExpiryOutput = Type.Object(
  { type: Type.String() },
  {
    additionalProperties: true,
    description: 'The expiry object of service.md: never | daysAfterIssuance | fixedDate.',
  },
);

/** service.md fulfillment object: mode and status required, the other four absent or null. */
export const Fulfillment = Type.Object(
  {
    mode: Type.Union([Type.Literal('platform'), Type.Literal('manual')]),
    status: Type.Union([
      Type.Literal('pending'),
      Type.Literal('active'),
      Type.Literal('deactivated'),
      Type.Literal('failed'),
    ]),
    platformDiscountId: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
    platformDiscountGid: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
    shop: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
    note: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type Fulfillment = Static<typeof Fulfillment>;
