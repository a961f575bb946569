import { useEffect, useRef, useState } from 'react';
import { Button, Group, Loader, Menu, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import type { RequestBodyOf, Schemas } from '@patron/client/browser';
import { useApi } from '../api/session';
import { errorTitle } from './ApiErrorAlert';

type ExportJob = Schemas['ExportJob'];
export type ExportResource = ExportJob['resource'];
type ExportData = Extract<RequestBodyOf<'/export-jobs', 'post'>, { data: unknown }>['data'];

/** What a table shows, as an export job selects it: the same filter document, search and quick filter. */
export interface ExportSelection {
  filter?: Record<string, unknown>;
  search?: string | null;
  quickFilter?: string | null;
  sort?: string | null;
  include?: string;
}

const FORMATS = [
  { format: 'csv', label: 'CSV (spreadsheets)' },
  { format: 'jsonl', label: 'JSON Lines (scripts)' },
] as const;

const rowsText = (count: number) => `${count.toLocaleString()} ${count === 1 ? 'row' : 'rows'}`;

/** How long between two looks at a running export. */
const POLL_MS = 1000;

/**
 * "Export" beside a table (docs/dashboard.md#tables): exports exactly what the table shows (its filter, search and quick
 * filter) as an export job, says how far it got while it runs, and downloads the file when it is written, named after
 * the list and the day (the API's name). The job stays in Imports & exports for 7 days.
 */
export function ExportButton({
  resource,
  noun,
  selection,
}: {
  resource: ExportResource;
  /** The rows' plural name, as the result says it: "customers". */
  noun: string;
  selection: ExportSelection;
}) {
  const api = useApi();
  const [job, setJob] = useState<ExportJob | null>(null);
  const [starting, setStarting] = useState(false);
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );

  const start = async (format: 'csv' | 'jsonl') => {
    setStarting(true);
    try {
      const data: ExportData = {
        resource,
        format,
        ...(selection.filter && Object.keys(selection.filter).length > 0 && { filter: selection.filter }),
        ...(selection.search && { search: selection.search }),
        ...(selection.quickFilter && { quickFilter: selection.quickFilter }),
        ...(selection.sort && { sort: selection.sort }),
        ...(selection.include && { include: selection.include }),
      };
      let current = await api.POST('/export-jobs', { body: { data } });
      setJob(current);
      while (current.status === 'queued' || current.status === 'running') {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        if (!mounted.current) return;
        current = await api.GET('/export-jobs/{id}', { params: { path: { id: current.id } } });
        setJob(current);
      }
      if (current.status === 'succeeded' && current.downloadUrl) {
        download(current.downloadUrl);
        notifications.show({
          color: 'green',
          title: 'Export ready',
          message: `${rowsText(current.rowsProcessed ?? 0)} of ${noun} exported; the download has started.`,
        });
      } else {
        notifications.show({
          color: 'red',
          title: 'The export did not finish',
          message: current.error ?? `The export job is ${current.status}.`,
        });
      }
    } catch (error) {
      notifications.show({
        color: 'red',
        title: 'The export could not start',
        message: error instanceof Error && error.message ? error.message : errorTitle(error),
      });
    } finally {
      if (mounted.current) {
        setStarting(false);
        setJob(null);
      }
    }
  };

  if (starting) {
    const total = job?.rowsTotal;
    return (
      <Group gap="xs" aria-live="polite">
        <Loader size="xs" aria-hidden />
        <Text size="sm">
          {total === null || total === undefined
            ? 'Preparing the export…'
            : `Exporting ${(job?.rowsProcessed ?? 0).toLocaleString()} of ${total.toLocaleString()} ${noun}…`}
        </Text>
      </Group>
    );
  }
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="default" size="sm">
          Export
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>Export what the table shows</Menu.Label>
        {FORMATS.map(({ format, label }) => (
          <Menu.Item key={format} onClick={() => void start(format)}>
            {label}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}

/** Downloads through a plain link: the session cookie goes with a GET to this origin, and the browser saves the file. */
function download(downloadUrl: string): void {
  const path = downloadUrl.startsWith('/v1/') ? downloadUrl : `/v1${downloadUrl}`;
  const link = document.createElement('a');
  link.href = new URL(path, window.location.origin).href;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
}
