import { TextInput, type TextInputProps } from '@mantine/core';
import { useFormat } from '../lib/format-context';
import { minorDigits, minorToMajorText, parseMajor } from '../lib/money';

export interface MoneyInputProps extends Omit<TextInputProps, 'value' | 'onChange' | 'rightSection'> {
  /** The ISO 4217 code the amount is in: its digits bound what may be typed, its symbol is shown. */
  currency: string;
  /** What is typed, in major units ("12.50"); `moneyText()` makes it from minor units, `moneyValue()` reads it back. */
  value?: string;
  onChange: (value: string) => void;
  allowNegative?: boolean;
}

/**
 * An amount typed in the currency's major units, shown with its symbol and code (docs/dashboard.md#money-time-and-
 * locale). Under the field it reads back what was typed as it will be stored, in the user's locale ("= 1.234,50 €"), or
 * why it cannot be (too many decimals for the currency, thousands separators). The API's minor units come from
 * `moneyValue()`, which converts the digits as text: no float is ever multiplied.
 */
export function MoneyInput({
  currency,
  value = '',
  onChange,
  allowNegative,
  description,
  error,
  ...props
}: MoneyInputProps) {
  const format = useFormat();
  const parsed = value.trim() ? parseMajor(value, currency, { allowNegative }) : null;
  const readBack = parsed?.minor !== undefined ? `= ${format.money(parsed.minor, currency)}` : null;
  const digits = minorDigits(currency);
  return (
    <TextInput
      {...props}
      inputMode="decimal"
      autoComplete="off"
      value={value}
      onChange={(event) => onChange(event.currentTarget.value)}
      leftSection={<span aria-hidden="true">{format.currencySymbol(currency)}</span>}
      leftSectionWidth={48}
      rightSection={<span aria-hidden="true">{currency}</span>}
      rightSectionWidth={48}
      description={
        <>
          {description ? <>{description} </> : null}
          {readBack ??
            `In ${currency}, ${digits === 0 ? 'whole units' : `up to ${digits} decimal${digits === 1 ? '' : 's'}`}.`}
        </>
      }
      error={error ?? (parsed?.error && value.trim() ? parsed.error : undefined)}
      data-currency={currency}
    />
  );
}

/** Minor units as the text a MoneyInput starts with: 1250 EUR → "12.50"; null → "". */
export const moneyText = (minor: number | null | undefined, currency: string): string =>
  minor === null || minor === undefined ? '' : minorToMajorText(minor, currency);

/** A MoneyInput's text as minor units: null when empty; an error sentence when it cannot be read. */
export function moneyValue(
  text: string,
  currency: string,
  options: { allowNegative?: boolean } = {},
): { minor: number | null; error?: never } | { error: string; minor?: never } {
  if (!text.trim()) return { minor: null };
  const parsed = parseMajor(text, currency, options);
  return parsed.error !== undefined ? { error: parsed.error } : { minor: parsed.minor };
}
