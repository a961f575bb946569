/** The permissions service.md names. Resources may add their own through their module's `permissions`. */
export const CORE_PERMISSIONS = [
  'loyalty:read',
  'loyalty:write',
  'reviews:read',
  'reviews:write',
  'products:read',
  'products:write',
  'orders:read',
  'orders:write',
  'analytics:read',
  'webhooks:read',
  'webhooks:write',
] as const;

/** Every permission a key can be granted: service.md's eleven plus those the resources add. */
export function permissionCatalogOf(resources: readonly { permissions?: readonly string[] | undefined }[]): string[] {
  return [...new Set([...CORE_PERMISSIONS, ...resources.flatMap((resource) => resource.permissions ?? [])])];
}

/**
 * Reading the audit log (docs/api.md#audit-log): a read that dashboard viewers do not get, since the log names every
 * user and key and where each signed in from. Owners and admins hold it; a key holds it when granted.
 */
export const AUDIT_LOG_READ = 'auditLog:read';

/** Stored on a key to grant every permission, including ones added after the key was made. */
export const ALL_PERMISSIONS = 'all';

export function grants(held: readonly string[], required: string): boolean {
  return held.includes(ALL_PERMISSIONS) || held.includes(required);
}

/**
 * Parses the CLI's `--permissions all|a:b,c:d` against the known catalog. Throws naming the first unknown one.
 */
export function parsePermissionList(input: string, catalog: readonly string[]): string[] {
  const names = [
    ...new Set(
      input
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    ),
  ];
  if (names.length === 0)
    throw new Error('No permissions given: use "all" or a comma-separated list such as orders:read,orders:write.');
  if (names.includes(ALL_PERMISSIONS)) return [ALL_PERMISSIONS];
  const unknown = names.find((name) => !catalog.includes(name));
  if (unknown) throw new Error(`Unknown permission "${unknown}". Known: all, ${catalog.join(', ')}.`);
  return names.sort();
}
