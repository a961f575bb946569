import type { CursorPosition } from './types.js';
import { createHash } from 'node:crypto';
import { validationError } from '../core/errors.js';
import { type Sort } from './types.js';
import { isUuid } from '../util/uuid.js';

const CURSOR_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

interface CursorPayload {
  /** Hash of the sort, filter and search the cursor was issued for. */
  b: string;
  /** Sort value of the last row. */
  v: string | number | null;
  /** Id of the last row. */
  i: string;
  /**
   * Hash of the saved selection (quick filter) and its version, when the request named one: absent otherwise, so
   * cursors of lists without one read as before (docs/api.md#quick-filters).
   */
  q?: string;
}

const savedBinding = (version: string) => createHash('sha256').update(version).digest('base64url').slice(0, 16);

/** Ties a cursor to the query it was issued for (docs/api.md#pagination-and-cursors). */
export function cursorBinding(sortKey: string, filter: string, search: string): string {
  return createHash('sha256').update(`${sortKey}\n${filter}\n${search}`).digest('base64url').slice(0, 16);
}

export function encodeCursor(binding: string, position: CursorPosition, savedVersion?: string): string {
  const payload: CursorPayload = { b: binding, v: position.value, i: position.id };
  if (savedVersion !== undefined) payload.q = savedBinding(savedVersion);
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

const invalid = (message: string) =>
  validationError(message, [{ path: 'query.cursor', message: 'is not a valid cursor for this query' }]);

/**
 * The cursor's payload, or 400 when it is not one Patron wrote; with the request's sort, its value is checked
 * against it too (before anything is read: docs/api.md#quick-filters).
 */
function readCursor(raw: string, sort?: Sort): Partial<CursorPayload> & { i: string } {
  let payload: Partial<CursorPayload>;
  try {
    payload = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<CursorPayload>;
  } catch {
    throw invalid('The cursor is malformed: pass the nextCursor of a previous response unchanged.');
  }
  const value: unknown = payload?.v ?? null;
  if (
    !payload ||
    typeof payload !== 'object' ||
    typeof payload.i !== 'string' ||
    !isUuid(payload.i) ||
    !(value === null || typeof value === 'string' || typeof value === 'number') ||
    (sort && !fits(value, sort))
  ) {
    throw invalid('The cursor is malformed: pass the nextCursor of a previous response unchanged.');
  }
  return payload as Partial<CursorPayload> & { i: string };
}

/** Whether a cursor's sort value can be one of this sort's. */
function fits(value: string | number | null, sort: Sort): boolean {
  return value === null
    ? sort.def.nullable
    : sort.def.type === 'timestamp'
      ? typeof value === 'string' && CURSOR_TIMESTAMP.test(value)
      : sort.def.type === 'integer'
        ? Number.isSafeInteger(value)
        : typeof value === 'string' && !value.includes('\u0000');
}

/**
 * A cursor sent with a saved selection, checked before the selection is read: its form, its binding to the request's
 * own parameters, and that it was issued with a saved selection at all (which one, and which version, is checked
 * once it is read).
 */
export function checkCursorBeforeSaved(raw: string, binding: string, sort: Sort | undefined): void {
  const payload = readCursor(raw, sort);
  if (payload.b !== binding) throw differentQuery();
  if (payload.q === undefined) throw differentQuickFilter();
}

const differentQuery = () =>
  invalid('The cursor was issued for a different sort, filter or search; start again without a cursor.');
const differentQuickFilter = () =>
  invalid('The cursor was issued for a different quick filter; start again without a cursor.');

export function decodeCursor(raw: string, binding: string, sort: Sort, savedVersion?: string): CursorPosition {
  const payload = readCursor(raw);
  if (payload.b !== binding) throw differentQuery();
  if (payload.q !== (savedVersion === undefined ? undefined : savedBinding(savedVersion))) {
    if (savedVersion === undefined || payload.q === undefined) throw differentQuickFilter();
    throw invalid(
      'The cursor was issued for a different quick filter, or the quick filter changed since; start again without a cursor.',
    );
  }
  const value = payload.v ?? null;
  if (!fits(value, sort))
    throw invalid('The cursor is malformed: pass the nextCursor of a previous response unchanged.');
  return { value, id: payload.i };
}
