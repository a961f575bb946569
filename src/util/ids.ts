import { AsyncLocalStorage } from 'node:async_hooks';
import { v7 as randomUuidV7 } from 'uuid';

/**
 * The ids the next records made in this async context take, in order, instead of fresh ones: how the demo
 * organization's records get the well-known ids the documented examples name (docs/api.md#documented-examples-and-the-demo-world).
 * Only code that seeds the demo world sets it; nothing a request sends can.
 */
const plannedIds = new AsyncLocalStorage<string[]>();

/** A new record id: a UUID v7 (time-ordered, so primary-key indexes stay append-mostly), or the next planned one. */
export function uuidv7(): string {
  return plannedIds.getStore()?.shift() ?? randomUuidV7();
}

let openPlannedScopes = 0;

/**
 * Runs `work` with the first ids it makes taken from `ids`, in order; the rest are fresh. When the last such scope
 * ends the storage is switched off again: while any AsyncLocalStorage is on, Node tracks every promise and tick of
 * the whole process (async hooks), which after the demo seed slowed every request of a first `npm start`'s server
 * for as long as it ran (docs/journal/2026-11-28-rewards-tail-access-log-first-start.md).
 */
export async function withPlannedIds<T>(ids: readonly string[], work: () => Promise<T>): Promise<T> {
  openPlannedScopes += 1;
  try {
    return await plannedIds.run([...ids], work);
  } finally {
    openPlannedScopes -= 1;
    if (openPlannedScopes === 0) plannedIds.disable();
  }
}
