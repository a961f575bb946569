import { vi } from 'vitest';

/**
 * Waits until the clock reads a later millisecond than it does now. Timestamps are shown to the millisecond, so a write
 * after this cannot carry the same one as a write before it (the database reads this machine's clock too).
 */
export async function nextMillisecond(): Promise<void> {
  const now = Date.now();
  await vi.waitFor(
    () => {
      if (Date.now() <= now) throw new Error('the clock has not moved on');
    },
    { interval: 1 },
  );
}
