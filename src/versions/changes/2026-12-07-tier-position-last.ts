import type { OpenApiDocument, VersionChange } from '../change.js';

const ROUTE = 'POST /v1/loyalty-tiers';
export const TIER_POSITION_DESCRIPTION =
  "On create, default: after the program's tiers (their highest position + 1, or 0 for its first tier).";
const OLD_DESCRIPTION = 'Default 0.';

/**
 * A tier created without `position` goes after the program's existing tiers. Before, every such tier got 0, so tiers
 * created one after another had no order of their own.
 */
export const tierPositionLast: VersionChange = {
  version: '2026-12-07',
  title: 'A new tier without a position goes last',
  description:
    "POST /v1/loyalty-tiers without `position` places the tier after the program's existing tiers (their highest " +
    'position + 1; 0 for the first). Before, every tier created without one got position 0.',
  route: ({ method, url }) =>
    `${method} ${url}` !== ROUTE
      ? undefined
      : {
          request: (request) => {
            const body = request.body;
            if (!body || typeof body !== 'object' || Array.isArray(body)) return;
            const { data } = body as { data?: unknown };
            // The fields go inside `data` or at the top level (docs/api.md#wrapped-and-unwrapped-bodies).
            const fields = (data && typeof data === 'object' && !Array.isArray(data) ? data : body) as Record<
              string,
              unknown
            >;
            if (fields.position === undefined) fields.position = 0;
          },
        },
  // The tier body's `position` (create and update share it) says what its default is, wherever the document holds it.
  document: (document: OpenApiDocument) => rewriteDescriptions(document, new Set()),
};

function rewriteDescriptions(node: unknown, seen: Set<unknown>): void {
  if (!node || typeof node !== 'object' || seen.has(node)) return;
  seen.add(node);
  const object = node as Record<string, unknown>;
  const position = (object.properties as Record<string, { description?: string }> | undefined)?.position;
  if (position?.description === TIER_POSITION_DESCRIPTION) position.description = OLD_DESCRIPTION;
  for (const value of Object.values(object)) rewriteDescriptions(value, seen);
}
