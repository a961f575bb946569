import type { TSchema } from 'typebox';
import type { LoyaltyRuleSection } from '../../../db/schema.js';
import { validationError } from '../../../core/errors.js';
import { validatorCompiler, validationDetails } from '../../../http/validation.js';
import { normalizeReward } from '../engine/reward-object-rules.js';
import type { Reward } from '../../../records/loyalty/reward-object.js';
import { CONFIG_SCHEMAS } from '../../../records/loyalty/rule-config.js';

const validators = new Map<LoyaltyRuleSection, ReturnType<typeof compile>>();
function compile(schema: TSchema) {
  return validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '' } as never) as unknown as ((
    value: unknown,
  ) => boolean) & {
    errors?: Parameters<typeof validationDetails>[0] | null;
  };
}

type Json = Record<string, unknown>;

function validatorOf(section: LoyaltyRuleSection) {
  let validate = validators.get(section);
  if (!validate) validators.set(section, (validate = compile(CONFIG_SCHEMAS[section])));
  return validate;
}

/**
 * The document publishes a config as one of the sections' shapes, so a config that fits none of them is a 400 even
 * when the rule it would change does not exist. Which of the shapes applies to a rule is its section's (checkConfig).
 */
export function checkConfigFitsSomeSection(config: unknown, path: string): void {
  const sections = Object.keys(CONFIG_SCHEMAS) as LoyaltyRuleSection[];
  if (sections.some((section) => validatorOf(section)(config))) return;
  throw validationError(
    `Invalid request: ${path} fits none of the rule sections' configs (docs/api.md, "Rule sections and configs").`,
    [{ path, message: "fits no section's config" }],
  );
}

/**
 * Checks a rule's config against its section (400 with paths under `<path>`), then returns it normalised: defaults
 * written out, timestamps in UTC (docs/api.md#timestamps), so what is stored, and snapshotted onto rewards, is
 * complete.
 */
export function checkConfig(section: LoyaltyRuleSection, config: unknown, path: string): Json {
  const validate = validatorOf(section);
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
