/**
 * The config of a loyalty rule, one shape per section (docs/api.md#rule-sections-and-configs): the schemas a rule's
 * config is checked against (src/resources/loyalty/rules/config.ts), and the union the OpenAPI document shows for it.
 */
import Type, { type Static, type TSchema } from 'typebox';
import { EVENT_NAME_PATTERN } from '../../core/pattern-message.js';
import type { LoyaltyRuleSection } from '../../db/schema.js';
import { discriminated } from '../discriminated.js';
import { documentedAs, documentedComponent } from '../documented.js';
import { CouponRewardInput, PositiveAmount, RewardInput } from './reward-object.js';

export const RULE_SECTIONS = ['rules', 'rewards', 'offers', 'stampCards'] as const;
export const EVENT_FREQUENCIES = ['once', 'oncePerYear', 'unlimited'] as const;
const NullableAmount = Type.Union([PositiveAmount, Type.Null()]);

/** `rules`: earning. Points per currency unit of an order's total, or fixed points per named event. */
export const EarningConfig = discriminated(
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
          ...EVENT_NAME_PATTERN,
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
      'The config of a rule of section rules (earning): orderSpend { pointsPerUnit, unitCents?, minimumOrderTotalCents? } | event { eventName, points, frequency? }.',
  },
);
export type EarningConfig = Static<typeof EarningConfig>;

/** `rewards`: claimable for points. Points are not a reward (rule 3). */
export const ClaimableConfig = Type.Object(
  { pointsCost: PositiveAmount, reward: CouponRewardInput },
  {
    additionalProperties: false,
    description:
      'The config of a rule of section rewards (claimable for points): { pointsCost, reward } (a reward object other than points).',
  },
);
export type ClaimableConfig = Static<typeof ClaimableConfig>;

const window = {
  startsAt: Type.String({ format: 'date-time' }),
  endsAt: Type.String({ format: 'date-time', description: 'After startsAt.' }),
};
/** `offers`: a reward, or a points multiplier, within a time window. */
export const OfferConfig = discriminated(
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
  {
    description:
      'The config of a rule of section offers: pointsMultiplier { multiplier 1..100, startsAt, endsAt } | reward { reward, startsAt, endsAt }.',
  },
);
export type OfferConfig = Static<typeof OfferConfig>;

/** `stampCards`: stamps required and the reward the full card issues. */
export const StampCardConfig = Type.Object(
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
  {
    additionalProperties: false,
    description:
      'The config of a rule of section stampCards: { stampsRequired, reward, stampsPerOrder?, minimumOrderTotalCents? }.',
  },
);
export type StampCardConfig = Static<typeof StampCardConfig>;

/** The shape a rule's config is checked against, by the rule's section. */
export const CONFIG_SCHEMAS: Record<LoyaltyRuleSection, TSchema> = {
  rules: EarningConfig,
  rewards: ClaimableConfig,
  offers: OfferConfig,
  stampCards: StampCardConfig,
};

/** Any section's config, as TypeScript sees it. */
export type RuleConfig = EarningConfig | ClaimableConfig | OfferConfig | StampCardConfig;

/** The component name of each section's config in the OpenAPI document. */
const CONFIG_COMPONENTS: Record<LoyaltyRuleSection, string> = {
  rules: 'EarningRuleConfig',
  rewards: 'ClaimableRuleConfig',
  offers: 'OfferRuleConfig',
  stampCards: 'StampCardRuleConfig',
};

/**
 * A rule's config as a schema: any object to the validator and the serializer (the config is checked against the
 * rule's section before the request acts, and answers write the stored config as it is, defaults included), and
 * the union of the four section configs in the OpenAPI document, so generated clients type it.
 */
export const ruleConfigSchema = (description: string) =>
  documentedAs(Type.Object({}, { additionalProperties: true, description }), {
    description,
    oneOf: RULE_SECTIONS.map((section) => documentedComponent(CONFIG_COMPONENTS[section], CONFIG_SCHEMAS[section])),
  });
