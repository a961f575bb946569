/** One end of a date range: an instant (normalised as the filter compiler normalises it) and whether it is excluded. */
export interface Bound {
  at: string;
  exclusive: boolean;
}

export interface DateBounds {
  lower?: Bound;
  upper?: Bound;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function instant(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

/**
 * The range a filter document puts on one date field (a date series runs between the filter's bounds when it gives
 * them: docs/api.md#filling-gaps). Only conditions every selected row must meet count: the field at the top level or
 * inside `$and`; bounds under `$or` or `$not` do not bound the selection. Several bounds on one side take the tightest.
 * The document is the one the filter compiler checks: anything malformed here is reported there.
 */
export function dateBounds(filter: string, field: string): DateBounds {
  let document: unknown;
  try {
    document = JSON.parse(filter);
  } catch {
    return {};
  }
  const bounds: DateBounds = {};
  const lower = (bound: Bound) => {
    if (!bounds.lower || compare(bound, bounds.lower, 'lower') > 0) bounds.lower = bound;
  };
  const upper = (bound: Bound) => {
    if (!bounds.upper || compare(bound, bounds.upper, 'upper') < 0) bounds.upper = bound;
  };
  const visit = (node: unknown) => {
    if (!isObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$and' && Array.isArray(value)) value.forEach(visit);
      if (key !== field) continue;
      const operations: [string, unknown][] = isObject(value) ? Object.entries(value) : [['$eq', value]];
      for (const [operator, operand] of operations) {
        const at = instant(operand);
        if (at === null) continue;
        if (operator === '$eq' || operator === '$gte') lower({ at, exclusive: false });
        if (operator === '$gt') lower({ at, exclusive: true });
        if (operator === '$eq' || operator === '$lte') upper({ at, exclusive: false });
        if (operator === '$lt') upper({ at, exclusive: true });
      }
    }
  };
  visit(document);
  return bounds;
}

/** Orders bounds by how much they admit: for a lower bound, later (or the same instant excluded) is tighter. */
function compare(a: Bound, b: Bound, side: 'lower' | 'upper'): number {
  const difference = Date.parse(a.at) - Date.parse(b.at);
  if (difference !== 0) return difference;
  if (a.exclusive === b.exclusive) return 0;
  return (a.exclusive ? 1 : -1) * (side === 'lower' ? 1 : -1);
}
