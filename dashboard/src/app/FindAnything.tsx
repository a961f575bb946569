import { useEffect, useMemo, useState, type CSSProperties } from 'react';
import { Group, Loader, Text, VisuallyHidden } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { Spotlight, useSpotlight } from '@mantine/spotlight';
import { useQueries } from '@tanstack/react-query';
import { PatronError, type PatronClient } from '@patron/client/browser';
import { useNavigate } from 'react-router';
import { useApi, useSession } from '../api/session';
import { paletteStore } from './find-anything-launcher';
import { SearchIcon } from './icons';
import { matchPlaces, placesFor } from './places';

/** Records are searched once this many characters are typed (pages match from the first). */
const MIN_SEARCH_LENGTH = 2;
/** How long typing must pause before the records are searched. */
const DEBOUNCE_MS = 250;
/** Records shown per kind: the palette jumps to a record; the list pages browse them. */
const PER_KIND = 5;
const LISTBOX_ID = 'find-anything-results';
const optionId = (index: number) => `find-anything-option-${index}`;

interface Hit {
  key: string;
  label: string;
  description?: string;
  /** Where opening it goes, under /dashboard. */
  to: string;
}

interface Kind {
  kind: string;
  /** The group's heading. */
  group: string;
  /** The list's read permission: a session without it is not searched for this kind. */
  permission: string;
  search: (api: PatronClient, term: string, signal: AbortSignal) => Promise<Hit[]>;
}

const personName = (person: { firstName: string | null; lastName: string | null } | null | undefined) =>
  [person?.firstName, person?.lastName].filter(Boolean).join(' ');

const money = (cents: number, currency: string) => {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency}`;
  }
};

const excerpt = (text: string, length = 90) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);

/**
 * What each kind searches: the list endpoint's `search` (docs/api.md#search: customers by email, first and last name
 * and phone; orders by number, store id and the customer's email; products by title and slug; reviews by title, body
 * and the reviewer's email), the first few, newest first. Each opens in its page's drawer, whose record is in the URL.
 */
const KINDS: readonly Kind[] = [
  {
    kind: 'customers',
    group: 'Customers',
    permission: 'customers:read',
    search: async (api, term, signal) => {
      const page = await api.GET('/customers', { params: { query: { search: term, limit: PER_KIND } }, signal });
      return page.data.map((customer) => ({
        key: customer.id,
        label: personName(customer) || customer.email,
        description: customer.email,
        to: `/customers?customer=${customer.id}`,
      }));
    },
  },
  {
    kind: 'orders',
    group: 'Orders',
    permission: 'orders:read',
    search: async (api, term, signal) => {
      // People write an order's number "#1042": one leading "#" is dropped, so the term matches a store's numbers
      // whether or not they carry it.
      const search = term.replace(/^#/, '') || term;
      const page = await api.GET('/orders', {
        params: { query: { search, limit: PER_KIND, include: 'customer' } },
        signal,
      });
      return page.data.map((order) => ({
        key: order.id,
        label: `Order ${order.number}`,
        description: [money(order.totalCents, order.currencyCode), order.customer?.email].filter(Boolean).join(' · '),
        to: `/store/orders?order=${order.id}`,
      }));
    },
  },
  {
    kind: 'products',
    group: 'Products',
    permission: 'products:read',
    search: async (api, term, signal) => {
      const page = await api.GET('/products', { params: { query: { search: term, limit: PER_KIND } }, signal });
      return page.data.map((product) => ({
        key: product.id,
        label: product.title,
        description: product.slug,
        to: `/store/products?product=${product.id}`,
      }));
    },
  },
  {
    kind: 'reviews',
    group: 'Reviews',
    permission: 'reviews:read',
    search: async (api, term, signal) => {
      const page = await api.GET('/reviews', {
        params: { query: { search: term, limit: PER_KIND, include: 'product' } },
        signal,
      });
      return page.data.map((review) => ({
        key: review.id,
        label: excerpt(review.title || review.body || 'A review without text'),
        description: [
          `${review.rating} of 5 stars`,
          review.product?.title,
          review.title && review.body ? excerpt(review.body, 60) : undefined,
        ]
          .filter(Boolean)
          .join(' · '),
        to: `/reviews?tab=reviews&id=${review.id}`,
      }));
    },
  },
];

/** The API's own message, or (the request never got an answer: offline, a dropped connection) what happened. */
const errorMessage = (error: unknown) =>
  error instanceof PatronError ? error.message : 'the server could not be reached. Check the connection and try again.';

/**
 * "Find anything" (docs/dashboard.md#find-anything): Ctrl+K or ⌘K (or the header's Search button) opens a dialog
 * that jumps to a page by name and searches customers, orders, products and reviews through their list endpoints,
 * results grouped by kind. Arrow keys move through the results, Enter opens one, Escape closes.
 */
export default function FindAnything() {
  const api = useApi();
  const session = useSession();
  const navigate = useNavigate();
  const { selected } = useSpotlight(paletteStore);
  const [query, setQuery] = useState('');
  const trimmed = query.trim().slice(0, 200);
  const [debounced] = useDebouncedValue(trimmed, DEBOUNCE_MS);
  const term = debounced.length >= MIN_SEARCH_LENGTH ? debounced : '';

  const can = (permission: string) => session.permissions.includes('all') || session.permissions.includes(permission);
  const kinds = KINDS.filter((kind) => can(kind.permission));
  const places = useMemo(() => placesFor(session), [session]);

  // One query per kind, keyed by the term: when the term changes, the previous term's requests lose their last
  // observer and TanStack Query aborts them (their signal is passed to the client), so a slow answer to an old term
  // never replaces a newer one. An answer is kept for the default 30 s, so going back to a term is instant.
  const results = useQueries({
    queries: kinds.map((kind) => ({
      queryKey: ['find-anything', kind.kind, term],
      queryFn: ({ signal }: { signal: AbortSignal }) => kind.search(api, term, signal),
      enabled: term !== '',
    })),
  });

  const pageHits: Hit[] = matchPlaces(places, trimmed)
    .slice(0, trimmed === '' ? undefined : 6)
    .map((place) => ({ key: place.to, label: place.label, to: place.to }));
  const groups = [
    { kind: 'pages', group: 'Pages', hits: pageHits, error: null as unknown, pending: false },
    ...kinds.map((kind, index) => {
      const result = results[index]!;
      return {
        kind: kind.kind,
        group: kind.group,
        hits: term === '' ? [] : (result.data ?? []),
        error: term === '' ? null : result.error,
        pending: term !== '' && result.isFetching,
      };
    }),
  ];
  const waiting = trimmed.length >= MIN_SEARCH_LENGTH && (trimmed !== debounced || groups.some((g) => g.pending));
  const shown = groups.filter((group) => group.hits.length > 0);
  const failed = groups.filter((group) => group.error !== null);
  const count = shown.reduce((sum, group) => sum + group.hits.length, 0);

  // The selection starts on the first result whenever the results change (they arrive after the query does).
  const signature = shown.map((group) => group.hits.map((hit) => hit.key).join(',')).join('|');
  useEffect(() => {
    paletteStore.setState((state) => ({ ...state, selected: count > 0 ? 0 : -1 }));
  }, [signature, count]);

  // Spotlight moves its selection (arrow keys) without telling its subscribers: once its own key handler has run,
  // the state is published again, so that aria-activedescendant and aria-selected follow the selection.
  const publishSelection = () => queueMicrotask(() => paletteStore.setState((state) => ({ ...state })));

  // Escape gives the focus back to where it was; opening a result does not, since the record's drawer takes it (the
  // focus would otherwise go back under the drawer, out of a keyboard's reach).
  const [returnFocus, setReturnFocus] = useState(true);
  const open = (hit: Hit) => {
    setReturnFocus(false);
    void navigate(hit.to);
  };

  let index = 0;
  const status = waiting
    ? 'Searching…'
    : trimmed === ''
      ? ''
      : count === 0 && failed.length === 0
        ? `Nothing matches “${trimmed}”.`
        : `${count} ${count === 1 ? 'result' : 'results'}.`;

  return (
    <Spotlight.Root
      store={paletteStore}
      query={query}
      onQueryChange={setQuery}
      returnFocus={returnFocus}
      onSpotlightOpen={() => setReturnFocus(true)}
      // The shell's launcher listens for Ctrl+K and ⌘K, before this chunk is loaded.
      shortcut={null}
      scrollable
      maxHeight="min(520px, calc(100dvh - 140px))"
      yOffset="8dvh"
      // The dialog's name, read by screen readers; the search field says the rest.
      title="Find anything"
      styles={{
        header: { position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)' },
        // A selected result's second line is white at 70% opacity on the primary colour by default, 3.3:1; full white
        // is above WCAG AA's 4.5:1.
        action: { '--action-description-opacity': '1' } as CSSProperties,
      }}
      data-testid="find-anything"
    >
      <Spotlight.Search
        placeholder="Search customers, orders, products, reviews or pages"
        aria-label="Find anything"
        role="combobox"
        aria-expanded={count > 0}
        aria-controls={LISTBOX_ID}
        aria-autocomplete="list"
        aria-activedescendant={selected >= 0 && selected < count ? optionId(selected) : undefined}
        leftSection={<SearchIcon />}
        rightSection={waiting ? <Loader size="xs" aria-hidden /> : null}
        onKeyDown={publishSelection}
        data-testid="find-anything-input"
      />
      <Spotlight.ActionsList>
        <div role="listbox" id={LISTBOX_ID} aria-label="Results">
          {shown.map((group) => (
            <div key={group.kind} role="group" aria-labelledby={`find-anything-group-${group.kind}`}>
              <Text
                id={`find-anything-group-${group.kind}`}
                size="xs"
                fw={700}
                c="dimmed"
                tt="uppercase"
                px="md"
                pt="xs"
                pb={4}
                data-testid={`find-anything-group-${group.kind}`}
              >
                {group.group}
              </Text>
              {group.hits.map((hit) => {
                const position = index++;
                return (
                  <Spotlight.Action
                    key={hit.key}
                    // Spotlight.Action does not pass an id on; the combobox's aria-activedescendant needs one.
                    ref={(element: HTMLButtonElement | null) => {
                      if (element) element.id = optionId(position);
                    }}
                    role="option"
                    aria-selected={position === selected}
                    data-selected={position === selected || undefined}
                    label={hit.label}
                    description={hit.description}
                    onClick={() => open(hit)}
                    data-kind={group.kind}
                  />
                );
              })}
            </div>
          ))}
        </div>
        {failed.map((group) => (
          <Text key={group.kind} role="alert" size="sm" c="var(--mantine-color-error)" px="md" py="xs">
            Could not search {group.group.toLowerCase()}: {errorMessage(group.error)}
          </Text>
        ))}
        {!waiting && trimmed !== '' && count === 0 && failed.length === 0 && (
          <Spotlight.Empty data-testid="find-anything-empty">Nothing matches “{trimmed}”.</Spotlight.Empty>
        )}
      </Spotlight.ActionsList>
      <Spotlight.Footer>
        <Group justify="space-between" gap="xs" wrap="nowrap">
          <Text size="xs" c="dimmed">
            {trimmed.length < MIN_SEARCH_LENGTH
              ? 'Type a name, email, order number, product or words of a review.'
              : 'Customers by email or name, orders by number, products by title, reviews by text.'}
          </Text>
          <Text size="xs" c="dimmed" visibleFrom="sm" style={{ whiteSpace: 'nowrap' }}>
            ↑ ↓ to move · Enter to open · Esc to close
          </Text>
        </Group>
      </Spotlight.Footer>
      <VisuallyHidden role="status">{status}</VisuallyHidden>
    </Spotlight.Root>
  );
}
