/**
 * Display formats (docs/dashboard.md#money-time-and-locale): numbers and dates in the signed-in user's locale, every
 * time in the organization's zone, money in major units with the currency's symbol and digits.
 *
 * Pages read them through `useFormat()` (lib/format-context.tsx), which binds the user's locale and the organization's
 * zone and currency. The named functions below are the same formats bound to the settings the provider last set, for
 * code outside a component (a column list, a reward's description); the provider re-renders the app when a setting
 * changes, so both always agree.
 */
import { minorDigits, minorToMajor } from './money';

export interface FormatSettings {
  /** A BCP 47 tag: the user's locale (`en`, `de`). */
  locale: string;
  /** The IANA zone every time is shown in: the organization's. */
  timeZone: string;
  /** The currency of an amount whose record names none: the organization's (see lib/format-context.tsx). */
  currency: string;
}

export type Granularity = 'day' | 'week' | 'month';

export interface Format extends FormatSettings {
  integer(value: number | null | undefined): string;
  decimal(value: number | null | undefined): string;
  /** An amount in minor units of `currency` (default: the organization's), e.g. "€1,234.50", "¥1,234", "1.234,50 €". */
  money(minor: number | null | undefined, currency?: string): string;
  /** The currency's symbol as the locale writes it: "€", "¥", "$", "KWD". */
  currencySymbol(currency?: string): string;
  /** An instant as date and time in the organization's zone (or `timeZone`). */
  dateTime(iso: string | null | undefined, timeZone?: string): string;
  /** An instant's calendar date in the organization's zone (or `timeZone`). */
  date(iso: string | null | undefined, timeZone?: string): string;
  /** A bucket start as a chart label: "Mar 4" for a day or week, "Mar 2025" for a month. */
  bucketDate(iso: string, timeZone?: string, granularity?: Granularity): string;
  /** Seconds as days, hours and minutes: "2 days, 3 hours", "2 Tage, 3 Stunden". */
  duration(seconds: number | null | undefined): string;
  /** "Times in Europe/Berlin": the caption of every table, drawer and chart that shows a time. */
  zoneLabel: string;
}

const DASH = '—';

export function createFormat(settings: FormatSettings): Format {
  const { locale, timeZone, currency: defaultCurrency } = settings;
  const integer = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
  const decimal = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
  const moneyFormats = new Map<string, Intl.NumberFormat | null>();
  const moneyFormat = (currency: string) => {
    if (!moneyFormats.has(currency)) {
      let format: Intl.NumberFormat | null = null;
      try {
        const digits = minorDigits(currency);
        format = new Intl.NumberFormat(locale, {
          style: 'currency',
          currency,
          minimumFractionDigits: digits,
          maximumFractionDigits: digits,
        });
      } catch {
        format = null;
      }
      moneyFormats.set(currency, format);
    }
    return moneyFormats.get(currency) ?? null;
  };
  const dateTimes = new Map<string, Intl.DateTimeFormat>();
  const dateFormat = (key: string, options: Intl.DateTimeFormatOptions, zone: string) => {
    const cacheKey = `${key}|${zone}`;
    let format = dateTimes.get(cacheKey);
    if (!format) {
      format = new Intl.DateTimeFormat(locale, { ...options, timeZone: zone });
      dateTimes.set(cacheKey, format);
    }
    return format;
  };
  const units = (['day', 'hour', 'minute'] as const).map(
    (unit) => new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: 'long' }),
  );
  const list = new Intl.ListFormat(locale, { style: 'short', type: 'unit' });

  return {
    ...settings,
    integer: (value) => (value === null || value === undefined ? DASH : integer.format(value)),
    decimal: (value) => (value === null || value === undefined ? DASH : decimal.format(value)),
    money(minor, currency = defaultCurrency) {
      if (minor === null || minor === undefined) return DASH;
      const major = minorToMajor(minor, currency);
      const format = moneyFormat(currency);
      // A code Intl does not know is shown beside the number, in the digits most currencies have.
      return format ? format.format(major) : `${decimal.format(major)} ${currency}`;
    },
    currencySymbol(currency = defaultCurrency) {
      const part = moneyFormat(currency)
        ?.formatToParts(0)
        .find((candidate) => candidate.type === 'currency');
      return part?.value ?? currency;
    },
    dateTime(iso, zone = timeZone) {
      if (!iso) return DASH;
      return dateFormat('dateTime', { dateStyle: 'medium', timeStyle: 'short' }, zone).format(new Date(iso));
    },
    date(iso, zone = timeZone) {
      if (!iso) return DASH;
      return dateFormat('date', { dateStyle: 'medium' }, zone).format(new Date(iso));
    },
    bucketDate(iso, zone = timeZone, granularity = 'day') {
      const options: Intl.DateTimeFormatOptions =
        granularity === 'month' ? { month: 'short', year: 'numeric' } : { month: 'short', day: 'numeric' };
      return dateFormat(`bucket-${granularity}`, options, zone).format(new Date(iso));
    },
    duration(seconds) {
      if (seconds === null || seconds === undefined) return DASH;
      const parts = splitDuration(seconds);
      const shown = [parts.days, parts.hours, parts.minutes]
        .map((amount, index) => (amount ? units[index]!.format(amount) : null))
        .filter((part): part is string => part !== null);
      return shown.length ? list.format(shown) : units[2]!.format(0);
    },
    zoneLabel: `Times in ${timeZone}`,
  };
}

/** Seconds as whole days, hours and minutes (seconds under a minute are dropped: no form types them). */
export function splitDuration(seconds: number): { days: number; hours: number; minutes: number } {
  const minutesInAll = Math.floor(Math.max(0, seconds) / 60);
  return {
    days: Math.floor(minutesInAll / 1440),
    hours: Math.floor((minutesInAll % 1440) / 60),
    minutes: minutesInAll % 60,
  };
}

/** Before the session is read (the sign-in page): the browser's language, zone, and US dollars. */
let active: Format = createFormat({
  locale: typeof navigator === 'undefined' ? 'en' : navigator.language,
  timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  currency: 'USD',
});

/** Called by the provider before its children render, so the named functions below agree with `useFormat()`. */
export function setActiveFormat(format: Format): void {
  active = format;
}
export const activeFormat = (): Format => active;

export const formatInteger = (value: number | null | undefined) => active.integer(value);
export const formatDecimal = (value: number | null | undefined) => active.decimal(value);
/** An amount in minor units of `currency`, or of the organization's currency when the record names none. */
export const formatMoney = (minor: number | null | undefined, currency?: string) => active.money(minor, currency);
export const formatDateTime = (iso: string | null | undefined, timeZone?: string) => active.dateTime(iso, timeZone);
export const formatBucketDate = (iso: string, timeZone: string, granularity: Granularity = 'day') =>
  active.bucketDate(iso, timeZone, granularity);
export const formatDuration = (seconds: number | null | undefined) => active.duration(seconds);
