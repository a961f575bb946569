import { randomInt } from 'node:crypto';

/** No 0/O/1/I/L, so a code read aloud or off a receipt is never ambiguous (docs/api.md#reward-codes). */
export const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

export function randomCode(length: number): string {
  let code = '';
  for (let i = 0; i < length; i += 1) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

/** A reward code (docs/api.md#reward-codes): 12 characters grouped XXXX-XXXX-XXXX (31^12 ≈ 7.9e17). */
export const rewardCode = () => {
  const raw = randomCode(12);
  return `${raw.slice(0, 4)}-${raw.slice(4, 8)}-${raw.slice(8)}`;
};

const CODE_CHARACTERS = new RegExp(`^[${CODE_ALPHABET}]{12}$`);

/**
 * A code as a person may type it (lower case, spaces, without or with other dashes) in its stored form
 * XXXX-XXXX-XXXX; anything else is looked up as written (and is not found).
 */
export function normalizeCode(input: string): string {
  const compact = input.toUpperCase().replace(/[\s-]/g, '');
  return CODE_CHARACTERS.test(compact)
    ? `${compact.slice(0, 4)}-${compact.slice(4, 8)}-${compact.slice(8)}`
    : input.trim();
}

/**
 * A membership's referral code: 8 characters of the reward-code alphabet (31^8 ≈ 8.5e11), unique per organization
 * (docs/api.md#memberships).
 */
export const REFERRAL_CODE_LENGTH = 8;
export const referralCode = () => randomCode(REFERRAL_CODE_LENGTH);
