/**
 * Money between the API's integer minor units and what people type and read: major units (docs/dashboard.md#money).
 * Conversions work on the decimal digits as text, never by multiplying or dividing floats, so 0.29 is 29 cents and
 * 1234567.89 is 123456789 cents exactly.
 */

/** The currency's minor digits as Intl knows them: JPY 0, EUR and USD 2, KWD 3; 2 for a code Intl does not know. */
export function minorDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** An amount in minor units as a plain decimal in major units: 123450 EUR → "1234.50", 1234 JPY → "1234". */
export function minorToMajorText(minor: number, currency: string): string {
  const digits = minorDigits(currency);
  const negative = minor < 0;
  const text = Math.abs(Math.trunc(minor))
    .toString()
    .padStart(digits + 1, '0');
  const whole = digits === 0 ? text : text.slice(0, -digits);
  const fraction = digits === 0 ? '' : `.${text.slice(-digits)}`;
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

/**
 * The same amount as a number of major units, for Intl.NumberFormat and chart axes. Exact for every amount a person
 * reads (the nearest double to the decimal); nothing computes with it.
 */
export const minorToMajor = (minor: number, currency: string): number => Number(minorToMajorText(minor, currency));

export type ParsedMoney = { minor: number; error?: never } | { minor?: never; error: string };

/**
 * What a person typed, in major units, as minor units. Either "." or "," separates the decimals (one of them, once),
 * so "12.5" and "12,5" are the same in every locale; thousands separators and more decimals than the currency has
 * are refused with a sentence saying why, rather than guessed at.
 */
export function parseMajor(typed: string, currency: string, options: { allowNegative?: boolean } = {}): ParsedMoney {
  const digits = minorDigits(currency);
  const text = typed.trim().replace(/\s/g, '');
  const match = /^([-+]?)(\d*)(?:[.,](\d*))?$/.exec(text);
  if (!text || !match || (match[2] === '' && (match[3] ?? '') === '')) {
    return {
      error: `Type an amount in ${currency}, such as ${exampleAmount(currency)}, without thousands separators.`,
    };
  }
  const [, sign, whole, fraction = ''] = match;
  if (sign === '-' && !options.allowNegative) return { error: 'The amount must not be negative.' };
  if (fraction.length > digits) {
    return {
      error:
        digits === 0
          ? `${currency} has no minor unit: type a whole amount.`
          : `${currency} has ${digits} decimal${digits === 1 ? '' : 's'}: type at most ${digits} after the separator.`,
    };
  }
  const minorText = `${whole}${fraction.padEnd(digits, '0')}`.replace(/^0+(?=\d)/, '') || '0';
  const minor = Number(minorText);
  if (!Number.isSafeInteger(minor)) return { error: 'The amount is too large.' };
  return { minor: sign === '-' && minor !== 0 ? -minor : minor };
}

/** "1234.50", "1234" or "1234.500": an example in the currency's own digits. */
const exampleAmount = (currency: string) => {
  const digits = minorDigits(currency);
  return digits === 0 ? '1234' : `1234.${'5'.padEnd(digits, '0')}`;
};
