import type { ReactNode } from 'react';
import { Button, Code, CopyButton, Group, Stack } from '@mantine/core';

export interface ShownOnceProps {
  /** What it is and what to do with it (an alert or a sentence). */
  explanation: ReactNode;
  /** The key, secret or link, shown this once. */
  value: string;
  /** What the copy button says, e.g. "Copy key". */
  copyLabel: string;
  onDone: () => void;
  testId?: string;
}

/**
 * A value the API answers once and never again (an API key, a signing secret, a sign-in link): shown wrapped, so that
 * nothing needs sideways scrolling to read it, with a copy button and Done.
 */
export function ShownOnce({ explanation, value, copyLabel, onDone, testId }: ShownOnceProps) {
  return (
    <Stack>
      {explanation}
      <Code block data-testid={testId} style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
        {value}
      </Code>
      <Group justify="flex-end">
        <CopyButton value={value}>
          {({ copied, copy }) => <Button onClick={copy}>{copied ? 'Copied' : copyLabel}</Button>}
        </CopyButton>
        <Button variant="default" onClick={onDone}>
          Done
        </Button>
      </Group>
    </Stack>
  );
}
