import { userInfo } from 'node:os';
import { sql } from 'kysely';
import { loadConfig } from '../config/index.js';
import { withAuditEntry, type AuditRow, type PendingAudit } from '../db/audit.js';
import type { Database } from '../db/engine.js';
// Never a planned id (src/util/ids.ts): an entry must not take the id a seeded record is meant to get.
import { v7 as uuidv7 } from 'uuid';
import { withCli } from './context.js';
import { print } from './print.js';

/** Who ran a command: the operating-system account, as far as the process can tell. */
function operator(): string | null {
  try {
    return userInfo().username || null;
  } catch {
    return null;
  }
}

/**
 * Runs a CLI change with its audit entry (docs/api.md#audit-log): actor `cli`, method CLI, the command as the path,
 * written in the first transaction the change commits, so a change made from the server's shell is in the log as
 * one made through the API is. A command that fails before changing anything leaves no entry.
 */
export async function cliAudited<T>(
  organizationId: string,
  command: string,
  resource: { type: string; id: string | null },
  work: () => Promise<T>,
): Promise<T> {
  if (!loadConfig().auditLog) return work();
  const createdAt = new Date();
  const id = uuidv7();
  const row: AuditRow = {
    organizationId,
    id,
    createdAt,
    actor: { type: 'cli', id: null, label: operator() },
    method: 'CLI',
    path: `patron ${command}`,
    status: 200,
    requestId: null,
    ip: null,
    userAgent: null,
    resourceType: resource.type,
    resourceId: resource.id,
  };
  const pending: PendingAudit = { row: () => row, written: null };
  return withAuditEntry(pending, work);
}

interface EntryRow {
  created_at: Date;
  actor_type: string;
  actor_label: string | null;
  actor_id: string | null;
  method: string;
  path: string;
  status: number | null;
  request_id: string | null;
  ip: string | null;
  user_agent: string | null;
  resource_type: string | null;
  resource_id: string | null;
  id: string;
}

async function recentEntries(database: Database, organizationId: string, limit: number): Promise<EntryRow[]> {
  const { rows } = await sql<EntryRow>`
    select id, created_at, actor_type, actor_id, actor_label, method, path, status, request_id, ip, user_agent,
      resource_type, resource_id
    from audit_log where organization_id = ${organizationId}::uuid
    order by created_at desc, id desc limit ${limit}`.execute(database.db);
  return rows;
}

const pad = (text: string, width: number) =>
  text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width);

/** `patron audit --org ID`: the organization's newest audit log entries, as a table or JSON Lines. */
export async function auditCommand(options: { org: string; limit: number; json?: boolean }): Promise<void> {
  await withCli(
    async ({ database }) => {
      const entries = await recentEntries(database, options.org, options.limit);
      if (options.json) {
        print(
          true,
          {
            data: entries.map((entry) => ({
              id: entry.id,
              createdAt: entry.created_at.toISOString(),
              actor: { type: entry.actor_type, id: entry.actor_id, label: entry.actor_label },
              method: entry.method,
              path: entry.path,
              status: entry.status,
              requestId: entry.request_id,
              ip: entry.ip,
              userAgent: entry.user_agent,
              resourceType: entry.resource_type,
              resourceId: entry.resource_id,
            })),
          },
          '',
        );
        return;
      }
      if (entries.length === 0) {
        print(false, {}, 'This organization has no audit log entries.');
        return;
      }
      const header = `${pad('WHEN (UTC)', 20)}  ${pad('WHO', 30)}  ${pad('WHAT', 50)}  ${pad('RESULT', 6)}  REQUEST ID`;
      const lines = entries.map(
        (entry) =>
          `${pad(entry.created_at.toISOString().slice(0, 19).replace('T', ' '), 20)}  ${pad(
            `${entry.actor_type} ${entry.actor_label ?? entry.actor_id ?? ''}`.trim(),
            30,
          )}  ${pad(`${entry.method} ${entry.path}`, 50)}  ${pad(String(entry.status ?? ''), 6)}  ${entry.request_id ?? ''}`,
      );
      print(false, {}, [header, ...lines].join('\n'));
    },
    { brief: true },
  );
}
