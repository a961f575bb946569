/** Display formats shared by the pages: numbers, money in cents, timestamps, in the browser's locale. */
const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
const money = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export const formatInteger = (value: number | null | undefined) =>
  value === null || value === undefined ? '—' : integer.format(value);
export const formatDecimal = (value: number | null | undefined) =>
  value === null || value === undefined ? '—' : decimal.format(value);
/** An amount in cents, in major units without a currency (the API sums amounts as stored, whatever their currency). */
export const formatCents = (cents: number | null | undefined) =>
  cents === null || cents === undefined ? '—' : money.format(cents / 100);

/** A timestamp in `timezone` (the organization's), date and time. */
export function formatDateTime(iso: string | null | undefined, timezone?: string): string {
  if (!iso) return '—';
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: timezone }).format(
    new Date(iso),
  );
}

/** The calendar date of a bucket start (an instant) in `timezone`: "Mar 4" for a day or week, "Mar 2025" for a month. */
export function formatBucketDate(iso: string, timezone: string, granularity: 'day' | 'week' | 'month' = 'day'): string {
  const parts: Intl.DateTimeFormatOptions =
    granularity === 'month' ? { month: 'short', year: 'numeric' } : { month: 'short', day: 'numeric' };
  return new Intl.DateTimeFormat(undefined, { ...parts, timeZone: timezone }).format(new Date(iso));
}

/** An amount in cents of one currency (ISO 4217), e.g. "€1,234.50"; an unknown code is shown beside the number. */
export function formatMoney(cents: number | null | undefined, currency: string): string {
  if (cents === null || cents === undefined) return '—';
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(cents / 100);
  } catch {
    return `${money.format(cents / 100)} ${currency}`;
  }
}
