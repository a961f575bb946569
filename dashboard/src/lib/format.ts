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

/** The calendar date of a bucket start (an instant) in `timezone`: "Mar 4". */
export function formatBucketDate(iso: string, timezone: string): string {
  return new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: timezone }).format(
    new Date(iso),
  );
}
