import type { ChildProcess } from 'node:child_process';
import { vi } from 'vitest';

/**
 * Polls `ready` (e.g. GET /readyz answers 200) until it answers true. Fails at once, with `output()`, when the child
 * exits first, and after `timeoutMs` otherwise.
 */
export async function untilReady(
  child: ChildProcess,
  ready: () => Promise<boolean>,
  { timeoutMs, intervalMs = 100, output }: { timeoutMs: number; intervalMs?: number; output: () => string },
): Promise<void> {
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  await vi.waitFor(
    async () => {
      if (exited()) return;
      if (!(await ready())) throw new Error(`not ready within ${timeoutMs} ms\n${output()}`);
    },
    { timeout: timeoutMs, interval: intervalMs },
  );
  if (exited()) throw new Error(`exited (${child.exitCode ?? child.signalCode}) before it was ready\n${output()}`);
}

/** Whether `url` answers 200 (false while nothing listens there yet). */
export const answers200 = (url: string) =>
  fetch(url).then(
    (response) => response.status === 200,
    () => false,
  );
