import currencyCodes from 'currency-codes';

/**
 * The ISO 4217 currency codes, in alphabetical order, from the list the `currency-codes` package keeps of the
 * standard's current table (withdrawn codes such as HRK are not in it): pinned by the lockfile, so the OpenAPI document
 * does not change with the ICU data of the Node build, as `Intl.supportedValuesOf('currency')` would. The standard's
 * two codes that name no currency, XTS (reserved for testing) and XXX (no currency involved), are left out: no price
 * is in them. Wherever the API takes a `currencyCode` it takes one of these (docs/api.md#currencies).
 */
export const CURRENCY_CODES: readonly string[] = currencyCodes
  .codes()
  .filter((code) => code !== 'XTS' && code !== 'XXX')
  .sort();

const KNOWN = new Set(CURRENCY_CODES);

/** What a person is told about a value that is not one of the codes (the enum itself is too long to quote). */
export const CURRENCY_CODE_MESSAGE = 'must be an ISO 4217 currency code in upper case, such as "USD" or "EUR"';

/** True when an enum's allowed values are exactly the currency codes: its error is described, not listed. */
export function isCurrencyCodeList(values: readonly unknown[]): boolean {
  return values.length === CURRENCY_CODES.length && values.every((value) => KNOWN.has(value as string));
}
