/**
 * What a string with a `pattern` must look like, in words (docs/api.md#validation-messages): a value that misses the
 * pattern is told this, never the regular expression. Every schema with a pattern carries it, as the OpenAPI extension
 * keyword `x-pattern-message` (validators ignore it; the error formatter in src/http/validation.ts reads it).
 */
export const PATTERN_MESSAGE_KEYWORD = 'x-pattern-message';

/** The `pattern` of a string schema and the words (after the field's path: "must be …") that explain it. */
export function describedPattern(pattern: string, message: string): { pattern: string; 'x-pattern-message': string } {
  return { pattern, [PATTERN_MESSAGE_KEYWORD]: message } as { pattern: string; 'x-pattern-message': string };
}

/** An E.164 phone number, for the words that go with it. */
export const E164_PATTERN = describedPattern(
  '^\\+[1-9]\\d{1,14}$',
  'must be a phone number in international E.164 form: a + then the country code and number, digits only, e.g. +14155550123',
);

/** Visible ASCII only: keys and codes that travel in headers and logs. */
export const VISIBLE_ASCII_PATTERN = describedPattern(
  '^[\\x21-\\x7e]+$',
  'must be visible ASCII characters only (letters, digits and punctuation, no spaces)',
);

/** A name of a loyalty event: a letter, then letters, digits, `_`, `.`, `:` or `-`. */
export const EVENT_NAME_PATTERN = describedPattern(
  '^[A-Za-z][A-Za-z0-9_.:-]{0,63}$',
  'must be an event name: a letter, then up to 63 letters, digits or the characters _ . : -, e.g. signup or review.posted',
);

/** A text that is not only spaces. */
export const NOT_BLANK_PATTERN = describedPattern('\\S', 'must contain something other than spaces');

/** An http(s) URL a shopper or an email may show, or empty for none (docs/api.md#products-and-orders). */
export const HTTP_URL_PATTERN = describedPattern(
  '^(https?://[^\\s/?#]+[^\\s]*)?$',
  'must be an http:// or https:// URL (lower-case scheme, a host, no spaces), or empty; other schemes such as javascript: or data: are refused',
);
