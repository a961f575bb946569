import { useEffect, useState } from 'react';
import { Badge, Select, Text, TextInput, type MantineColor } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import type { Schemas } from '@patron/client/browser';
import { useApi } from '../../api/session';

export type Review = Schemas['Review'];
export type Question = Schemas['ProductQuestion'];
export type Answer = Schemas['ProductQuestionAnswer'];
export type Summary = Schemas['ReviewSummary'];
export type SummaryVersion = Schemas['ReviewSummaryVersion'];

/** What the review pages invalidate after a write (lists and details of reviews, questions and summaries). */
export const REVIEWS_KEY = ['reviews'] as const;
export const QUESTIONS_KEY = ['product-questions'] as const;
export const SUMMARY_KEY = ['review-summary'] as const;

/**
 * One search parameter of the URL as a value and a setter that keeps every other parameter (the tab, the other
 * filters, the open record), so filters survive a reload and can be linked to.
 */
export function useUrlParam(name: string): [string | null, (value: string | null) => void] {
  const [params, setParams] = useSearchParams();
  const set = (value: string | null) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (value === null || value === '') next.delete(name);
        else next.set(name, value);
        return next;
      },
      { replace: true },
    );
  return [params.get(name), set];
}

/** A search box whose value reaches the URL (and so the list) a moment after typing stops. */
export function SearchInput({ label, placeholder }: { label: string; placeholder: string }) {
  const [search, setSearch] = useUrlParam('q');
  const [text, setText] = useState(search ?? '');
  const [debounced] = useDebouncedValue(text, 300);
  useEffect(() => {
    const term = debounced.trim().slice(0, 200);
    if (term !== (search ?? '')) setSearch(term || null);
    // Only typing moves the URL; the URL is read once, when the box is made.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [debounced]);
  return (
    <TextInput
      label={label}
      placeholder={placeholder}
      value={text}
      onChange={(event) => setText(event.currentTarget.value)}
      w={{ base: '100%', sm: 240 }}
    />
  );
}

/** The value of a FilterSelect's option that filters nothing (not in the URL). */
export const ANY = 'any';

/** A list's select filter in the URL: one of `options`' values, or ANY (the parameter left out). */
export function FilterSelect({
  name,
  label,
  options,
}: {
  name: string;
  label: string;
  options: { value: string; label: string }[];
}) {
  const [value, setValue] = useUrlParam(name);
  const known = options.some((option) => option.value === value) ? value : ANY;
  return (
    <Select
      label={label}
      data={options}
      value={known}
      onChange={(next) => setValue(next === ANY ? null : next)}
      allowDeselect={false}
      w={{ base: '100%', xs: 180 }}
      comboboxProps={{ withinPortal: true }}
    />
  );
}

/** The stars of a rating, with the number for screen readers. */
export function Rating({ value }: { value: number }) {
  return (
    <Text span c="yellow.9" aria-label={`${value} of 5 stars`} role="img" style={{ whiteSpace: 'nowrap' }}>
      {'★'.repeat(value)}
      <Text span c="gray.5" aria-hidden>
        {'★'.repeat(Math.max(0, 5 - value))}
      </Text>
    </Text>
  );
}

export function StatusBadge({ color, children }: { color: MantineColor; children: string }) {
  return (
    // "dot": the text in the page's text colour (light variants' coloured text is below AA contrast on their tint).
    <Badge color={color} variant="dot" style={{ flexShrink: 0 }}>
      {children}
    </Badge>
  );
}

/** Text of the API, kept as written: line breaks shown, long words wrapped. Rendered as text, never as HTML. */
export function Prose({ children }: { children: string }) {
  return (
    <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
      {children}
    </Text>
  );
}

/** A line of a list cell, cut with an ellipsis. */
export function Snippet({ children, strong = false }: { children: string; strong?: boolean }) {
  return (
    <Text size="sm" fw={strong ? 600 : undefined} lineClamp={strong ? 1 : 2} style={{ overflowWrap: 'anywhere' }}>
      {children}
    </Text>
  );
}

/**
 * Picks a product: the catalog's first products by title, or those the typed text finds (the products list's
 * search over title and slug). The chosen product's title is read by id, so it shows even when not in the results.
 */
export function ProductSelect({
  value,
  onChange,
  label = 'Product',
  clearable = true,
  placeholder = 'Any product',
}: {
  value: string | null;
  onChange: (id: string | null) => void;
  label?: string;
  clearable?: boolean;
  placeholder?: string;
}) {
  const api = useApi();
  const [searchValue, setSearchValue] = useState('');
  const chosen = useQuery({
    queryKey: ['products', 'one', value],
    enabled: Boolean(value),
    queryFn: ({ signal }) => api.GET('/products/{productId}', { params: { path: { productId: value! } }, signal }),
    staleTime: 60_000,
  });
  const chosenTitle = chosen.data?.title;
  const typed = searchValue.trim() === (chosenTitle ?? '').trim() ? '' : searchValue.trim().slice(0, 200);
  const [term] = useDebouncedValue(typed, 250);
  const products = useQuery({
    queryKey: ['products', 'pick', term],
    queryFn: ({ signal }) =>
      api.GET('/products', { params: { query: { sort: 'title', limit: 100, ...(term && { search: term }) } }, signal }),
    staleTime: 60_000,
  });
  const options = (products.data?.data ?? []).map((product) => ({ value: product.id, label: product.title }));
  if (value && chosenTitle && !options.some((option) => option.value === value))
    options.unshift({ value, label: chosenTitle });
  if (value && !chosenTitle && !options.some((option) => option.value === value))
    options.unshift({ value, label: chosen.isError ? 'Unknown product' : 'Loading…' });
  return (
    <Select
      label={label}
      placeholder={placeholder}
      data={options}
      value={value}
      onChange={(id) => onChange(id)}
      searchable
      searchValue={searchValue}
      onSearchChange={setSearchValue}
      // The API searched already: show what it found.
      filter={({ options: found }) => found}
      nothingFoundMessage={products.isFetching ? 'Searching…' : 'No product found'}
      clearable={clearable}
      w={{ base: '100%', sm: 240 }}
      comboboxProps={{ withinPortal: true }}
      error={products.isError ? 'The products could not be loaded.' : undefined}
    />
  );
}
