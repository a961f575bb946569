import { useState } from 'react';
import { Group, Select, Stack, TextInput } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { ExportButton } from '../../components/ExportButton';
import { FilterBuilder, type FilterField } from '../../components/FilterBuilder';
import { QuickFilterBar, type QuickFilterResource } from '../../components/QuickFilterBar';
import type { ListParams } from './useListParams';

export interface ListToolbarProps {
  resource: QuickFilterResource;
  noun: string;
  fields: readonly FilterField[];
  sorts: { value: string; label: string }[];
  params: ListParams;
  setParams: (change: Partial<ListParams>) => void;
  /** The list's error, so a refused filter shows next to its condition. */
  error: unknown;
  searchHint: string;
}

/** Search, sort, quick filters and the filter builder above a store list; all of it kept in the address bar. */
export function ListToolbar({ resource, noun, fields, sorts, params, setParams, error, searchHint }: ListToolbarProps) {
  const [search, setSearch] = useState(params.search);
  const [shownSearch, setShownSearch] = useState(params.search);
  // The search changed from outside (a quick filter was applied, Back): show it.
  if (shownSearch !== params.search) {
    setShownSearch(params.search);
    setSearch(params.search);
  }
  const applySearch = useDebouncedCallback((text: string) => setParams({ search: text }), 400);
  return (
    <Stack gap="sm">
      <Group gap="sm" align="flex-end" wrap="wrap">
        <TextInput
          type="search"
          label={`Search ${noun}`}
          placeholder={searchHint}
          value={search}
          maxLength={200}
          onChange={(event) => {
            setSearch(event.currentTarget.value);
            applySearch(event.currentTarget.value);
          }}
          onKeyDown={(event) => {
            if (event.key === 'Enter') setParams({ search });
          }}
          style={{ flex: '1 1 220px' }}
        />
        <Select
          label="Sort"
          data={sorts}
          value={params.sort ?? sorts[0]!.value}
          onChange={(sort) => setParams({ sort: sort === sorts[0]!.value ? null : sort })}
          allowDeselect={false}
          w={200}
        />
        <ExportButton
          resource={resource}
          noun={noun}
          selection={{
            filter: params.filter,
            search: params.search.trim() || null,
            quickFilter: params.quickFilter,
            sort: params.sort,
          }}
        />
      </Group>
      <QuickFilterBar
        resource={resource}
        applied={params.quickFilter}
        current={{
          filter: params.filter,
          search: params.search.trim() || null,
          sort: params.sort,
        }}
        onApply={(quickFilter) =>
          // The quick filter brings its own filter, search and sort; the builder then adds to it (ANDed).
          setParams(
            quickFilter ? { quickFilter: quickFilter.id, filter: {}, search: '', sort: null } : { quickFilter: null },
          )
        }
      />
      <FilterBuilder
        label={`Filter ${noun}`}
        fields={fields}
        value={params.filter}
        onApply={(filter) => setParams({ filter })}
        error={error}
      />
    </Stack>
  );
}
