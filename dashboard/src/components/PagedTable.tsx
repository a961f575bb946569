import { useEffect, useState, type ReactNode } from 'react';
import { Button, Center, Group, Loader, Stack, Table, Text } from '@mantine/core';
import { keepPreviousData, useQuery, type QueryKey } from '@tanstack/react-query';
import { ZoneCaption } from './ZoneCaption';
import { ApiErrorAlert } from './ApiErrorAlert';

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
  timeless = false,
}: PagedTableProps<Row>) {
  const listKey = JSON.stringify(queryKey);
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
  return (
    <Stack gap="sm">
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
