/**
 * The one source of display formats (docs/dashboard.md#money-time-and-locale): `useFormat()` binds the signed-in
 * user's locale (stored with the user, `PATCH /v1/session { locale }`), the organization's time zone and its currency.
 *
 * The organization record has no currency of its own, so the organization's currency is that of its oldest site (the
 * store it started with); an organization without a site, or a session that cannot read sites, gets US dollars. A
 * record that names its currency (an order, a variant) is always shown in its own.
 */
import { createContext, Fragment, useContext, useMemo, useState, type ReactNode } from 'react';
import { Center, Loader } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi, useSession } from '../api/session';
import { ApiErrorAlert } from '../components/ApiErrorAlert';
import { createFormat, setActiveFormat, type Format } from './format';

/** What an organization without a site is shown in. */
export const FALLBACK_CURRENCY = 'USD';

const FormatContext = createContext<Format | null>(null);

export function FormatProvider({ children }: { children: ReactNode }) {
  const api = useApi();
  const session = useSession();
  const organization = useQuery({
    queryKey: ['organization'],
    queryFn: ({ signal }) => api.GET('/organization', { signal }),
  });
  const canReadSites = session.permissions.includes('all') || session.permissions.includes('sites:read');
  const oldestSite = useQuery({
    queryKey: ['sites', 'oldest'],
    enabled: canReadSites,
    queryFn: ({ signal }) => api.GET('/sites', { params: { query: { limit: 1, sort: 'createdAt' } }, signal }),
  });
  const locale = session.user.locale;
  const timeZone = organization.data?.timezone;
  const currency = oldestSite.data?.data[0]?.currencyCode ?? FALLBACK_CURRENCY;
  const fresh = useMemo(
    () => (timeZone ? createFormat({ locale, timeZone, currency }) : null),
    [locale, timeZone, currency],
  );
  // While the organization is read again (a switch of test mode drops every cached answer), the pages keep the
  // formats they had rather than giving way to a loader.
  const [kept, setKept] = useState<Format | null>(null);
  const ready = fresh !== null && !(canReadSites && oldestSite.isPending);
  if (ready && fresh !== kept) setKept(fresh);
  const format = ready ? fresh : kept;
  if (organization.isError && !format) {
    return (
      <Center h="100vh" p="md">
        <ApiErrorAlert error={organization.error} onRetry={() => void organization.refetch()} />
      </Center>
    );
  }
  if (!format) {
    return (
      <Center h="100vh">
        <Loader aria-label="Loading the organization's settings" />
      </Center>
    );
  }
  setActiveFormat(format);
  return (
    <FormatContext.Provider value={format}>
      {/* A new locale, zone or currency renders every page again, those formatting outside a component too. */}
      <Fragment key={`${format.locale}|${format.timeZone}|${format.currency}`}>{children}</Fragment>
    </FormatContext.Provider>
  );
}

/** Numbers, money, dates and durations in the user's locale and the organization's zone and currency. */
export function useFormat(): Format {
  const format = useContext(FormatContext);
  if (!format) throw new Error('useFormat() is used outside the signed-in layout.');
  return format;
}
