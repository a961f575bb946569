// The package's own file for ISO 3166-1: its index also loads every subdivision (ISO 3166-2), 2 MB of a serving
// process's heap that nothing here reads.
import { iso31661 } from 'iso-3166/1.js';

/**
 * The ISO 3166-1 alpha-2 codes ISO has assigned to a country or territory, in alphabetical order, from the list the
 * `iso-3166` package keeps (reserved and user-assigned codes such as XK or XX are not in it). Wherever the API takes a
 * `country` it takes one of these (docs/api.md#customers).
 */
export const COUNTRY_CODES: readonly string[] = iso31661
  .filter((country) => country.state === 'assigned')
  .map((country) => country.alpha2)
  .sort();

const ASSIGNED = new Set(COUNTRY_CODES);

/** What a person is told about a value that is not one of the codes (the enum itself is too long to quote). */
export const COUNTRY_CODE_MESSAGE = 'must be an assigned ISO 3166-1 alpha-2 country code, such as "US" or "DE"';

/** True when an enum's allowed values are exactly the country codes: its error is described, not listed. */
export function isCountryCodeList(values: readonly unknown[]): boolean {
  return values.length === COUNTRY_CODES.length && values.every((value) => ASSIGNED.has(value as string));
}
