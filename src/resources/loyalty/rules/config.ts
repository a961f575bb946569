import Type, { type TSchema } from 'typebox';
import type { LoyaltyRuleSection } from '../../../db/schema.js';
import { validationError } from '../../../http/errors.js';
import { validatorCompiler, validationDetails } from '../../../http/validation.js';
import { discriminated } from '../../../records/discriminated.js';
import { normalizeReward } from '../reward-object-rules.js';
import { CouponRewardInput, PositiveAmount, RewardInput, type Reward } from '../../../records/loyalty/reward-object.js';

export const RULE_SECTIONS = ['rules', 'rewards', 'offers', 'stampCards'] as const;
export const EVENT_FREQUENCIES = ['once', 'oncePerYear', 'unlimited'] as const;
const NullableAmount = Type.Union([PositiveAmount, Type.Null()]);

/** `rules`: earning. Points per currency unit of an order's total, or fixed points per named event. */
const EarningConfig = discriminated(
  [
    Type.Object(
      {
        type: Type.Literal('orderSpend'),
        pointsPerUnit: PositiveAmount,
        unitCents: Type.Optional(
          Type.Integer({
            minimum: 1,
            maximum: Number.MAX_SAFE_INTEGER,
            description: 'The currency unit in cents; default 100.',
          }),
        ),
        minimumOrderTotalCents: Type.Optional(NullableAmount),
      },
      {
        additionalProperties: false,
        description: 'floor(order totalCents / unitCents) × pointsPerUnit points per order.',
      },
    ),
    Type.Object(
      {
        type: Type.Literal('event'),
        eventName: Type.String({
          maxLength: 64,
          pattern: '^[A-Za-z][A-Za-z0-9_.:-]{0,63}$',
          description: 'e.g. signup, birthday.',
        }),
        points: PositiveAmount,
        frequency: Type.Optional(
          Type.Union(
            EVENT_FREQUENCIES.map((value) => Type.Literal(value)),
            { description: 'Default once.' },
          ),
        ),
      },
      {
        additionalProperties: false,
        description: 'Fixed points each time POST /loyalty-events reports the named event (within frequency).',
      },
    ),
  ],
  {
    description:
      'orderSpend { pointsPerUnit, unitCents?, minimumOrderTotalCents? } | event { eventName, points, frequency? }.',
  },
);

/** `rewards`: claimable for points. Points are not a reward (rule 3). */
const ClaimableConfig = Type.Object(
  { pointsCost: PositiveAmount, reward: CouponRewardInput },
  { additionalProperties: false, description: '{ pointsCost, reward } (a reward object other than points).' },
);

const window = {
  startsAt: Type.String({ format: 'date-time' }),
  endsAt: Type.String({ format: 'date-time' }),
};
/** `offers`: a reward, or a points multiplier, within a time window. */
const OfferConfig = discriminated(
  [
    Type.Object(
      {
        type: Type.Literal('pointsMultiplier'),
        multiplier: Type.Number({ minimum: 1, maximum: 100, multipleOf: 0.01 }),
        ...window,
      },
      {
        additionalProperties: false,
        description: 'Earning rules credit multiplier × their points between startsAt and endsAt.',
      },
    ),
    Type.Object({ type: Type.Literal('reward'), reward: RewardInput, ...window }, { additionalProperties: false }),
  ],
  { description: 'pointsMultiplier { multiplier 1..100, startsAt, endsAt } | reward { reward, startsAt, endsAt }.' },
);

/** `stampCards`: stamps required and the reward the full card issues. */
const StampCardConfig = Type.Object(
  {
    stampsRequired: Type.Integer({ minimum: 1, maximum: 1000 }),
    reward: RewardInput,
    stampsPerOrder: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1000,
        description: 'Stamps an earning order gives; default 1 (0: only POST /loyalty-stamps).',
      }),
    ),
    minimumOrderTotalCents: Type.Optional(NullableAmount),
  },
  { additionalProperties: false },
);

export const CONFIG_SCHEMAS: Record<LoyaltyRuleSection, TSchema> = {
  rules: EarningConfig,
  rewards: ClaimableConfig,
  offers: OfferConfig,
  stampCards: StampCardConfig,
};

const validators = new Map<LoyaltyRuleSection, ReturnType<typeof compile>>();
function compile(schema: TSchema) {
  return validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '' } as never) as unknown as ((
    value: unknown,
  ) => boolean) & {
    errors?: Parameters<typeof validationDetails>[0] | null;
  };
}

type Json = Record<string, unknown>;

/**
 * Checks a rule's config against its section (400 with paths under `<path>`), then returns it normalised: defaults
 * written out, timestamps in UTC (docs/api.md#timestamps), so what is stored, and snapshotted onto rewards, is
 * complete.
 */
export function checkConfig(section: LoyaltyRuleSection, config: unknown, path: string): Json {
  let validate = validators.get(section);
  if (!validate) validators.set(section, (validate = compile(CONFIG_SCHEMAS[section])));
  if (!validate(config)) {
    const details = validationDetails(validate.errors ?? [], 'body').map((detail) => ({
      ...detail,
      path: detail.path.replace(/^body/, path),
    }));
    throw validationError(
      `Invalid request: ${details[0]?.path ?? path} ${details[0]?.message ?? 'is invalid'} (a ${section} rule's config).`,
      details,
    );
  }
  const value = config as Json;
  switch (section) {
    case 'rules':
      return value.type === 'orderSpend'
        ? { ...value, unitCents: value.unitCents ?? 100, minimumOrderTotalCents: value.minimumOrderTotalCents ?? null }
        : { ...value, frequency: value.frequency ?? 'once' };
    case 'rewards':
      return { ...value, reward: normalizeReward(value.reward as Reward) };
    case 'offers': {
      const startsAt = new Date(value.startsAt as string);
      const endsAt = new Date(value.endsAt as string);
      if (endsAt <= startsAt) {
        throw validationError(`Invalid request: ${path}.endsAt must be after ${path}.startsAt.`, [
          { path: `${path}.endsAt`, message: 'must be after startsAt' },
        ]);
      }
      return {
        ...value,
        ...(value.reward ? { reward: normalizeReward(value.reward as Reward) } : {}),
        startsAt: startsAt.toISOString(),
        endsAt: endsAt.toISOString(),
      };
    }
    case 'stampCards':
      return {
        ...value,
        reward: normalizeReward(value.reward as Reward),
        stampsPerOrder: value.stampsPerOrder ?? 1,
        minimumOrderTotalCents: value.minimumOrderTotalCents ?? null,
      };
  }
}
