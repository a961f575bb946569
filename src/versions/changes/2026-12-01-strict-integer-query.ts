import type { VersionChange } from '../change.js';
import { formerlyReadInteger, integerProperties } from '../integer-text.js';

/**
 * An integer query parameter (`limit`, and every other) written as anything but decimal digits is 400: `limit=1e2` or
 * `limit=100.0` used to be read as 100, so a typo or a client's float formatting changed a page size silently.
 * Callers of older versions keep the old reading: their value is rewritten to the integer it was read as.
 */
export const strictIntegerQuery: VersionChange = {
  version: '2026-12-01',
  title: 'Integer query parameters take decimal digits only',
  description:
    'An integer query parameter (`limit` and every other) written as anything but decimal digits, such as `limit=1e2`, ' +
    '`limit=100.0` or `limit=0x10`, is 400 VALIDATION_ERROR. Before, it was read as the number JavaScript makes of it ' +
    '(100, 100, 16).',
  route: ({ querystring }) => {
    const names = integerProperties(querystring);
    if (names.length === 0) return undefined;
    return {
      request: ({ query }) => {
        for (const name of names) {
          const value = query[name];
          if (typeof value !== 'string') continue;
          const integer = formerlyReadInteger(value);
          if (integer !== undefined) query[name] = integer;
        }
      },
    };
  },
};
