import { useCallback } from 'react';
import { useSearchParams } from 'react-router';
import type { FilterDocument } from '../../components/FilterBuilder';

export interface ListParams {
  filter: FilterDocument;
  search: string;
  sort: string | null;
  quickFilter: string | null;
}

function parseFilter(text: string | null): FilterDocument {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as FilterDocument) : {};
  } catch {
    return {};
  }
}

/**
 * A list's filter, search, sort and quick filter, kept in the address bar (`?filter=…&search=…&sort=…&quickFilter=…`)
 * so a filtered list can be reloaded, linked to and left with Back.
 */
export function useListParams(): [ListParams, (change: Partial<ListParams>) => void] {
  const [params, setParams] = useSearchParams();
  const value: ListParams = {
    filter: parseFilter(params.get('filter')),
    search: params.get('search') ?? '',
    sort: params.get('sort'),
    quickFilter: params.get('quickFilter'),
  };
  const set = useCallback(
    (change: Partial<ListParams>) =>
      setParams((current) => {
        const next = new URLSearchParams(current);
        const put = (name: string, text: string | null | undefined) =>
          text ? next.set(name, text) : next.delete(name);
        if ('filter' in change)
          put('filter', change.filter && Object.keys(change.filter).length > 0 ? JSON.stringify(change.filter) : null);
        if ('search' in change) put('search', change.search);
        if ('sort' in change) put('sort', change.sort);
        if ('quickFilter' in change) put('quickFilter', change.quickFilter);
        return next;
      }),
    [setParams],
  );
  return [value, set];
}

/** The list request's query parameters for these params (absent when unset). */
export function listQuery({ filter, search, sort, quickFilter }: ListParams) {
  return {
    ...(Object.keys(filter).length > 0 && { filter: JSON.stringify(filter) }),
    ...(search.trim() && { search: search.trim() }),
    ...(sort && { sort }),
    ...(quickFilter && { quickFilter }),
  };
}
