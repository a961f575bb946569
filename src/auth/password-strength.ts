import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

/*
 * How strong a new dashboard password must be (docs/api.md#passwords-and-sign-in): zxcvbn's estimate, with its list of common
 * passwords and keyboard patterns, scored 0 (guessed at once) to 4 (very hard to guess); 3 or more is taken.
 */

/** The lowest zxcvbn score a new password may have: 3, "safely unguessable" (about 10^8 guesses or more). */
export const PASSWORD_MIN_SCORE = 3;
/**
 * Only the first 64 characters are judged: zxcvbn's effort grows faster than the length, and a check is main-thread
 * CPU that a caller chooses (a 200-character password took over a second); 64 characters of a strong password are
 * strong already.
 */
const JUDGED_CHARACTERS = 64;

/** Why zxcvbn found a password weak, by its warning key, in words a person can act on. */
const REASONS: Record<string, string> = {
  straightRow: 'it is a straight row of keys',
  keyPattern: 'it is a short keyboard pattern',
  simpleRepeat: 'it repeats one character',
  extendedRepeat: 'it repeats a short sequence',
  sequences: 'it is a sequence such as abc or 6543',
  recentYears: 'it leans on a recent year',
  dates: 'it leans on a date',
  topTen: 'it is one of the ten most used passwords',
  topHundred: 'it is one of the hundred most used passwords',
  common: 'it is a commonly used password',
  similarToCommon: 'it is close to a commonly used password',
  wordByItself: 'it is a single word',
  namesByThemselves: 'it is a name',
  commonNames: 'it is a common name',
  userInputs: "it holds the user's own email or name",
};

let estimator: Promise<ZxcvbnFactory> | undefined;

/**
 * Loaded and built on first use: the lists take a good part of a second to load, which the server's start and a CLI
 * command that never sets a password need not pay.
 */
function strength(): Promise<ZxcvbnFactory> {
  estimator ??= (async () => {
    const [{ ZxcvbnFactory }, commonPasswords] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
    ]);
    return new ZxcvbnFactory({
      dictionary: { ...commonPasswords.dictionary },
      graphs: commonPasswords.adjacencyGraphs,
    });
  })();
  return estimator;
}

/**
 * Why a new password is too easy to guess, as a message ending the sentence "newPassword …", or null when it is
 * strong enough. `userInputs` (the user's email and name) count against it.
 */
export async function passwordWeakness(password: string, userInputs: readonly string[] = []): Promise<string | null> {
  const result = (await strength()).check(password.slice(0, JUDGED_CHARACTERS), [...userInputs]);
  if (result.score >= PASSWORD_MIN_SCORE) return null;
  const reason = REASONS[result.feedback.warning ?? ''] ?? 'it is too short or too predictable';
  return (
    `is too easy to guess: ${reason} (strength ${result.score} of 4, at least ${PASSWORD_MIN_SCORE} needed). ` +
    'A few unrelated words, or a longer mix of letters, digits and symbols, will do'
  );
}
