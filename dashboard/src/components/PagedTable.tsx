import { useEffect, useState, type ReactNode } from 'react';
import { Button, Center, Checkbox, Group, Loader, Stack, Table, Text } from '@mantine/core';
import { keepPreviousData, useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { ZoneCaption } from './ZoneCaption';
import { ApiErrorAlert } from './ApiErrorAlert';
import { BulkActionBar, type BulkAction } from './BulkActions';

export interface Column<Row> {
  /** Unique within the table. */
  key: string;
  header: ReactNode;
  /** The cell; return text or elements, never HTML strings. */
  render: (row: Row) => ReactNode;
  /** Hides the column below this breakpoint (phones), e.g. 'sm'. */
  visibleFrom?: 'xs' | 'sm' | 'md' | 'lg';
  width?: number | string;
}

/** One page of a list endpoint (docs/api.md#lists). */
export interface Page<Row> {
  data: readonly Row[];
  nextCursor: string | null;
}

export interface PagedTableProps<Row> {
  /** Names the list and everything it is filtered by: paging starts over when it changes. */
  queryKey: QueryKey;
  /** Loads a page: `(cursor, signal) => api.GET('/customers', { params: { query: { cursor, limit: 50 } }, signal })`. */
  fetchPage: (cursor: string | undefined, signal: AbortSignal) => Promise<Page<Row>>;
  columns: readonly Column<Row>[];
  rowKey: (row: Row) => string;
  /** The table's accessible name, e.g. "Customers". */
  caption: string;
  /** Opens a row (e.g. its DetailDrawer); rows are then focusable and open with Enter too. */
  onRowClick?: (row: Row) => void;
  /** What an empty list says. */
  empty?: ReactNode;
  /**
   * Reloads the page shown every so many milliseconds while it returns a number (e.g. while a job on the page is
   * still running); false or omitted: no polling.
   */
  refetchInterval?: (page: Page<Row> | undefined) => number | false;
  /** The width below which the table scrolls sideways in its container. Default 480. */
  minWidth?: number;
  /** The table shows no time: no "Times in …" line under it. */
  timeless?: boolean;
  /** Told the error of the page shown (null once a page loads), e.g. so a FilterBuilder can mark a refused condition. */
  onError?: (error: unknown) => void;
  /**
   * Actions on selected rows (docs/dashboard.md#tables): with them, each row has a checkbox and the header one selects
   * the page. The selection is of the rows seen, kept across pages, and cleared when the list's filter changes.
   */
  bulk?: {
    actions: readonly BulkAction<Row>[];
    /** The rows' name, singular and plural: ['review', 'reviews']. */
    noun: readonly [string, string];
    /** A row's name for its checkbox and a failure's line, e.g. the review's title. */
    label: (row: Row) => string;
  };
}

/**
 * A list endpoint as a table, a page at a time: Previous/Next follow `nextCursor` (and the cursors already seen), with
 * loading, empty and error states (the API's error envelope, with Retry).
 */
export function PagedTable<Row>({
  queryKey,
  fetchPage,
  columns,
  rowKey,
  caption,
  onRowClick,
  empty = 'Nothing here yet.',
  refetchInterval,
  onError,
  minWidth = 480,
  bulk,
  timeless = false,
}: PagedTableProps<Row>) {
  const listKey = JSON.stringify(queryKey);
  const queryClient = useQueryClient();
  // The selected rows by key, for the list they were selected in.
  const [selection, setSelection] = useState<{ listKey: string; rows: Map<string, Row> }>({
    listKey,
    rows: new Map(),
  });
  const selected = selection.listKey === listKey ? selection.rows : new Map<string, Row>();
  const setSelected = (rows: Map<string, Row>) => setSelection({ listKey, rows });
  // The cursors of the pages seen so far (undefined: the first page), reset when the list changes.
  const [paging, setPaging] = useState<{ listKey: string; cursors: (string | undefined)[] }>({
    listKey,
    cursors: [undefined],
  });
  const cursors = paging.listKey === listKey ? paging.cursors : [undefined];
  const cursor = cursors[cursors.length - 1];
  const query = useQuery<Page<Row>>({
    queryKey: [...queryKey, { cursor: cursor ?? null }],
    queryFn: ({ signal }) => fetchPage(cursor, signal),
    placeholderData: keepPreviousData,
    refetchInterval: refetchInterval ? (current) => refetchInterval(current.state.data) : false,
  });
  const error = query.isError ? query.error : null;
  useEffect(() => onError?.(error), [error, onError]);

  if (query.isPending) {
    return (
      <Center py="xl" aria-live="polite">
        <Loader size="sm" aria-label={`Loading ${caption.toLowerCase()}`} />
      </Center>
    );
  }
  if (query.isError) return <ApiErrorAlert error={query.error} onRetry={() => void query.refetch()} />;

  const page = query.data;
  const rows = page.data;
  const pageNumber = cursors.length;
  const onPage = rows.filter((row) => selected.has(rowKey(row))).length;
  const toggle = (row: Row, on: boolean) => {
    const next = new Map(selected);
    if (on) next.set(rowKey(row), row);
    else next.delete(rowKey(row));
    setSelected(next);
  };
  const togglePage = (on: boolean) => {
    const next = new Map(selected);
    for (const row of rows) {
      if (on) next.set(rowKey(row), row);
      else next.delete(rowKey(row));
    }
    setSelected(next);
  };
  return (
    <Stack gap="sm">
      {bulk && (
        <BulkActionBar
          selected={[...selected.values()]}
          actions={bulk.actions}
          noun={bulk.noun}
          onClear={() => setSelected(new Map())}
          onFinished={async () => {
            setSelected(new Map());
            await queryClient.invalidateQueries({ queryKey });
          }}
        />
      )}
      {rows.length === 0 && pageNumber === 1 ? (
        <Text c="dimmed" py="lg" ta="center">
          {empty}
        </Text>
      ) : (
        <Table.ScrollContainer
          minWidth={minWidth}
          // A region that scrolls sideways on phones must be reachable by keyboard (axe: scrollable-region-focusable).
          scrollAreaProps={{ viewportProps: { tabIndex: 0, role: 'region', 'aria-label': caption } }}
        >
          <Table striped highlightOnHover={Boolean(onRowClick)} aria-busy={query.isFetching}>
            <Table.Caption style={{ captionSide: 'top', textAlign: 'left' }} hidden>
              {caption}
            </Table.Caption>
            <Table.Thead>
              <Table.Tr>
                {bulk && (
                  <Table.Th w={40}>
                    <Checkbox
                      aria-label={`Select every ${bulk.noun[0]} on this page`}
                      checked={rows.length > 0 && onPage === rows.length}
                      indeterminate={onPage > 0 && onPage < rows.length}
                      onChange={(event) => togglePage(event.currentTarget.checked)}
                    />
                  </Table.Th>
                )}
                {columns.map((column) => (
                  <Table.Th key={column.key} visibleFrom={column.visibleFrom} w={column.width}>
                    {column.header}
                  </Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((row) => (
                <Table.Tr
                  key={rowKey(row)}
                  {...(onRowClick && {
                    tabIndex: 0,
                    style: { cursor: 'pointer' },
                    onClick: () => onRowClick(row),
                    onKeyDown: (event: React.KeyboardEvent) => {
                      if (event.key === 'Enter') onRowClick(row);
                    },
                  })}
                >
                  {bulk && (
                    // A click on the checkbox selects; it does not open the row.
                    <Table.Td
                      onClick={(event) => event.stopPropagation()}
                      onKeyDown={(event) => event.stopPropagation()}
                    >
                      <Checkbox
                        aria-label={`Select ${bulk.label(row)}`}
                        checked={selected.has(rowKey(row))}
                        onChange={(event) => toggle(row, event.currentTarget.checked)}
                      />
                    </Table.Td>
                  )}
                  {columns.map((column) => (
                    <Table.Td key={column.key} visibleFrom={column.visibleFrom}>
                      {column.render(row)}
                    </Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {!timeless && rows.length > 0 && <ZoneCaption />}
      {(pageNumber > 1 || page.nextCursor) && (
        <Group justify="space-between">
          <Text size="sm" c="dimmed">
            Page {pageNumber}
          </Text>
          <Group gap="xs">
            <Button
              variant="default"
              size="xs"
              disabled={pageNumber === 1 || query.isFetching}
              onClick={() => setPaging({ listKey, cursors: cursors.slice(0, -1) })}
            >
              Previous
            </Button>
            <Button
              variant="default"
              size="xs"
              disabled={!page.nextCursor || query.isFetching}
              onClick={() => setPaging({ listKey, cursors: [...cursors, page.nextCursor ?? undefined] })}
            >
              Next
            </Button>
          </Group>
        </Group>
      )}
    </Stack>
  );
}
