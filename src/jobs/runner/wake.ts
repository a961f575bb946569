/**
 * In-process signal from code that queued a job to the runners started in this process (`serve`), so a queued
 * job starts within about a second instead of at the next poll. Best effort: a runner in another process still
 * finds the job at its own poll.
 */
const listeners = new Set<() => void>();

/** Tells this process's runners that a job was queued (possibly in a transaction that has not committed yet). */
export function jobsQueued(): void {
  for (const listener of listeners) listener();
}

/** Subscribes a runner; returns the unsubscribe function. */
export function onJobsQueued(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}
