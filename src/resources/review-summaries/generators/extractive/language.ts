import { detect } from 'tinyld';

/** Shorter texts are guessed too unreliably to count (tinyld reads "Great" as Irish). */
const MIN_DETECT_LENGTH = 40;
/**
 * The languages detection chooses among: those shops commonly get reviews in. Without a list, short German reviews
 * come out as Esperanto or Afrikaans now and then.
 */
const LIKELY_LANGUAGES = [
  'en',
  'de',
  'fr',
  'es',
  'it',
  'nl',
  'pt',
  'sv',
  'da',
  'no',
  'fi',
  'pl',
  'cs',
  'sk',
  'hu',
  'ro',
  'tr',
  'ru',
  'uk',
  'el',
  'bg',
  'hr',
  'sl',
  'lt',
  'lv',
  'et',
  'ca',
  'ja',
  'zh',
  'ko',
  'ar',
  'he',
  'hi',
  'th',
  'vi',
  'id',
  'ms',
];

/** The primary language subtag, lowercased ("en-US" → "en"); null for anything that is not a language tag. */
export function primaryLanguage(tag: string | null | undefined): string | null {
  const primary = tag?.trim().split(/[-_]/)[0]?.toLowerCase();
  return primary && /^[a-z]{2,3}$/.test(primary) && primary !== 'und' ? primary : null;
}

/** The review's language: the tag the store sent, else detected from its text (ISO 639-1), else null. */
export function reviewLanguage(tag: string | null, title: string, body: string): string | null {
  const given = primaryLanguage(tag);
  if (given) return given;
  const text = `${title}. ${body}`.trim();
  if (text.length < MIN_DETECT_LENGTH) return null;
  return primaryLanguage(detect(text, { only: LIKELY_LANGUAGES }));
}

/** The language most reviews are written in (ties go to the alphabetically first); "und" when none is known. */
export function dominantLanguage(languages: readonly (string | null)[]): string {
  const counts = new Map<string, number>();
  for (const language of languages) if (language) counts.set(language, (counts.get(language) ?? 0) + 1);
  let best = 'und';
  let bestCount = 0;
  for (const [language, count] of [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (count > bestCount) [best, bestCount] = [language, count];
  }
  return best;
}
