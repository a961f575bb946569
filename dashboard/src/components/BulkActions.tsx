import { useState } from 'react';
import { Alert, Button, Group, Modal, Paper, Progress, Stack, Text, TextInput } from '@mantine/core';
import { PatronError } from '@patron/client/browser';
import { ConfirmDialog } from './ConfirmDialog';
import { errorTitle } from './ApiErrorAlert';

/** The API's own words for a refusal, else a title for the network's failure. */
const reasonOf = (error: unknown) => (error instanceof PatronError ? error.message : errorTitle(error));

/** What one bulk action did: how many rows it changed, and each row it could not change with the API's reason. */
export interface BulkOutcome {
  done: number;
  failed: { label: string; message: string }[];
}

/**
 * An action on the rows selected in a table (docs/dashboard.md#tables): publish 40 reviews, tag customers, revoke
 * rewards. `run` reports progress as it goes; an action the API has a bulk update for sends one request, the others
 * one per row.
 */
export interface BulkAction<Row> {
  /** The button's verb, e.g. "Publish". */
  label: string;
  /** What the result says, given how many rows it changed: "Published 40 reviews". */
  done: (count: number) => string;
  /** Asks first with this message (deleting, revoking): a destructive action always confirms. */
  confirm?: (count: number) => string;
  /** Red button and red confirmation. */
  danger?: boolean;
  /** Asks for one value first (a tag's name), given to `run`. */
  input?: { label: string; placeholder?: string; maxLength?: number };
  run: (rows: Row[], progress: (done: number) => void, input: string) => Promise<BulkOutcome>;
}

/** Runs `each` on every row in turn, counting what it changed and naming what it could not (with the API's message). */
export async function eachRow<Row>(
  rows: Row[],
  progress: (done: number) => void,
  label: (row: Row) => string,
  each: (row: Row) => Promise<unknown>,
): Promise<BulkOutcome> {
  const outcome: BulkOutcome = { done: 0, failed: [] };
  for (const [index, row] of rows.entries()) {
    try {
      await each(row);
      outcome.done += 1;
    } catch (error) {
      outcome.failed.push({ label: label(row), message: reasonOf(error) });
    }
    progress(index + 1);
  }
  return outcome;
}

/**
 * "Add tag" and "Remove tag" for a list with a bulk update (customers, orders, products): one request for the selected
 * ids, `{ addTags }` or `{ removeTags }` (docs/api.md#imports-and-bulk-updates).
 */
export function tagActions<Row extends { id: string }>(
  noun: readonly [string, string],
  bulkUpdate: (ids: string[], body: { addTags?: string[]; removeTags?: string[] }) => Promise<{ count: number }>,
): BulkAction<Row>[] {
  const rows = (count: number) => `${count} ${count === 1 ? noun[0] : noun[1]}`;
  const run =
    (key: 'addTags' | 'removeTags') => async (selected: Row[], progress: (done: number) => void, tag: string) => {
      const { count } = await bulkUpdate(
        selected.map((row) => row.id),
        { [key]: [tag] },
      );
      progress(selected.length);
      return { done: count, failed: [] };
    };
  return [
    {
      label: 'Add tag',
      input: { label: 'Tag', placeholder: 'vip', maxLength: 100 },
      done: (n) => `Tagged ${rows(n)}`,
      run: run('addTags'),
    },
    {
      label: 'Remove tag',
      input: { label: 'Tag', placeholder: 'vip', maxLength: 100 },
      done: (n) => `Removed the tag from ${rows(n)}`,
      run: run('removeTags'),
    },
  ];
}

interface Running {
  label: string;
  total: number;
  done: number;
}

/**
 * The bar above a table while rows are selected: how many, the actions, their progress while one runs, and what the
 * last one did. Shown only while something is selected or a result is still to read.
 */
export function BulkActionBar<Row>({
  selected,
  actions,
  noun,
  onFinished,
  onClear,
}: {
  selected: Row[];
  actions: readonly BulkAction<Row>[];
  /** The rows' name, singular and plural: ['review', 'reviews']. */
  noun: readonly [string, string];
  /** After an action: reload the list, clear the selection. */
  onFinished: () => Promise<void> | void;
  onClear: () => void;
}) {
  const [running, setRunning] = useState<Running | null>(null);
  const [result, setResult] = useState<{ text: string; outcome: BulkOutcome } | null>(null);
  const [confirming, setConfirming] = useState<BulkAction<Row> | null>(null);
  const [asking, setAsking] = useState<{ action: BulkAction<Row>; value: string } | null>(null);
  const count = selected.length;
  const rowsText = (n: number) => `${n} ${n === 1 ? noun[0] : noun[1]}`;

  const start = async (action: BulkAction<Row>, input = '') => {
    const rows = [...selected];
    setResult(null);
    setRunning({ label: action.label, total: rows.length, done: 0 });
    try {
      const outcome = await action.run(
        rows,
        (done) => setRunning({ label: action.label, total: rows.length, done }),
        input,
      );
      setResult({ text: action.done(outcome.done), outcome });
    } catch (error) {
      const failed = [{ label: rowsText(rows.length), message: reasonOf(error) }];
      setResult({ text: `${action.label} failed`, outcome: { done: 0, failed } });
    } finally {
      setRunning(null);
      await onFinished();
    }
  };

  if (count === 0 && !running && !result) return null;
  return (
    <Stack gap="xs">
      {(count > 0 || running) && (
        <Paper withBorder p="xs" role="region" aria-label="Selected rows">
          <Group justify="space-between" wrap="wrap" gap="xs">
            <Text size="sm" fw={500} aria-live="polite">
              {running ? `${running.label}: ${running.done} of ${running.total}` : `${rowsText(count)} selected`}
            </Text>
            <Group gap="xs" wrap="wrap">
              {actions.map((action) => (
                <Button
                  key={action.label}
                  size="xs"
                  variant={action.danger ? 'light' : 'default'}
                  color={action.danger ? 'red' : undefined}
                  disabled={running !== null || count === 0}
                  onClick={() =>
                    action.input
                      ? setAsking({ action, value: '' })
                      : action.confirm
                        ? setConfirming(action)
                        : void start(action)
                  }
                >
                  {action.label}
                </Button>
              ))}
              <Button size="xs" variant="subtle" disabled={running !== null} onClick={onClear}>
                Clear selection
              </Button>
            </Group>
          </Group>
          {running && (
            <Progress
              mt="xs"
              value={(100 * running.done) / Math.max(running.total, 1)}
              aria-label={`${running.label} progress`}
              animated
            />
          )}
        </Paper>
      )}
      {result && (
        <Alert
          color={result.outcome.failed.length > 0 ? 'orange' : 'green'}
          title={result.text}
          withCloseButton
          closeButtonLabel="Dismiss"
          onClose={() => setResult(null)}
        >
          {result.outcome.failed.length > 0 && (
            <Stack gap={2}>
              <Text size="sm">{rowsText(result.outcome.failed.length)} could not be changed:</Text>
              {result.outcome.failed.slice(0, 10).map((failure, index) => (
                <Text size="sm" key={index}>
                  {failure.label}: {failure.message}
                </Text>
              ))}
            </Stack>
          )}
        </Alert>
      )}
      {asking && asking.action.input && (
        <Modal opened onClose={() => setAsking(null)} title={`${asking.action.label}: ${rowsText(count)}`}>
          <form
            onSubmit={(event) => {
              event.preventDefault();
              const value = asking.value.trim();
              if (!value) return;
              const { action } = asking;
              setAsking(null);
              void start(action, value);
            }}
          >
            <Stack>
              <TextInput
                label={asking.action.input.label}
                placeholder={asking.action.input.placeholder}
                maxLength={asking.action.input.maxLength}
                value={asking.value}
                onChange={(event) => setAsking({ ...asking, value: event.currentTarget.value })}
                data-autofocus
                required
              />
              <Group justify="flex-end">
                <Button variant="default" onClick={() => setAsking(null)}>
                  Cancel
                </Button>
                <Button type="submit" disabled={!asking.value.trim()}>
                  {`${asking.action.label}: ${rowsText(count)}`}
                </Button>
              </Group>
            </Stack>
          </form>
        </Modal>
      )}
      {confirming && (
        <ConfirmDialog
          opened
          onClose={() => setConfirming(null)}
          title={`${confirming.label} ${rowsText(count)}?`}
          message={confirming.confirm?.(count)}
          confirmLabel={`${confirming.label} ${rowsText(count)}`}
          danger={confirming.danger ?? true}
          onConfirm={async () => {
            const action = confirming;
            setConfirming(null);
            await start(action);
          }}
        />
      )}
    </Stack>
  );
}
