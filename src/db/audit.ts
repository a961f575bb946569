import { AsyncLocalStorage } from 'node:async_hooks';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

/*
 * The audit log's capture (docs/api.md#audit-log). Services open their own transactions, so the entry of a request is
 * not written by each service: the request (or a CLI command) puts a pending entry in an async context, and the
 * database driver writes it on the transaction's own connection just before that transaction's COMMIT, once. A
 * change and its entry therefore commit together whatever code made the change. A write that runs outside any
 * transaction while an entry is pending (a single-statement change) is run inside one here, with the entry.
 * What never committed gets its entry after the answer (src/http/audit.ts).
 */

export const AUDIT_ACTOR_TYPES = ['apiKey', 'user', 'cli', 'system'] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

export interface AuditActor {
  type: AuditActorType;
  id: string | null;
  label: string | null;
}

/** An audit_log row as it is inserted. */
export interface AuditRow {
  organizationId: string;
  id: string;
  createdAt: Date;
  actor: AuditActor;
  method: string;
  path: string;
  status: number | null;
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
  resourceType: string | null;
  resourceId: string | null;
}

/**
 * The entry a request or command will leave. `row()` is asked at the first commit: it answers null while nobody is
 * known to attribute the entry to (a sign-in before its user is found), and the commit then goes without it.
 */
export interface PendingAudit {
  row(): AuditRow | null;
  /** The row written at a commit, once one has been. */
  written: AuditRow | null;
  /** Attribution learned by the code running the request (the user a sign-in names). */
  attributed?: { organizationId: string; actor: AuditActor } | undefined;
}

const pendingAudit = new AsyncLocalStorage<PendingAudit>();

let entriesInFlight = 0;

/**
 * While any AsyncLocalStorage is on, Node tracks every promise of the whole process (async hooks on Node 20): about a
 * fifth more CPU on a write, and a tenth on every read served meanwhile. So the storage is switched off whenever no
 * pending entry is held, and reads between writes pay nothing (docs/api.md#audit-log). Returns the release, which
 * does its work once however often it is called.
 */
function holdStorage(): () => void {
  entriesInFlight += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    entriesInFlight -= 1;
    if (entriesInFlight === 0) pendingAudit.disable();
  };
}

/**
 * Runs `work` with `pending` as the entry its commits carry, and holds the storage until the caller calls the
 * release it returns, once nothing of that work can commit any more (a request: once it is answered).
 */
export function holdAuditEntry(pending: PendingAudit, work: () => void): () => void {
  const release = holdStorage();
  pendingAudit.run(pending, work);
  return release;
}

/** Runs `work` with `pending` as the entry its commits carry, holding the storage until the work has settled. */
export async function withAuditEntry<T>(pending: PendingAudit, work: () => Promise<T>): Promise<T> {
  const release = holdStorage();
  try {
    return await pendingAudit.run(pending, work);
  } finally {
    release();
  }
}

/** The entry pending in this async context, if any. */
export function currentAudit(): PendingAudit | undefined {
  return pendingAudit.getStore();
}

/**
 * Names who a pending entry is about when the caller was not known before the request ran (signing in: the user the
 * email or link names, succeeded or not). Does nothing outside an audited request.
 */
export function attributeAudit(organizationId: string, actor: AuditActor): void {
  const pending = currentAudit();
  if (pending && !pending.written) pending.attributed = { organizationId, actor };
}

const INSERT_ENTRY = `insert into audit_log (organization_id, created_at, id, actor_type, actor_id, actor_label, method,
  path, status, request_id, ip, user_agent, resource_type, resource_id)
  values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
  on conflict do nothing`;

export const auditInsert = (row: AuditRow): CompiledQuery =>
  CompiledQuery.raw(INSERT_ENTRY, [
    row.organizationId,
    row.createdAt,
    row.id,
    row.actor.type,
    row.actor.id,
    row.actor.label,
    row.method,
    row.path,
    row.status,
    row.requestId,
    row.ip,
    row.userAgent,
    row.resourceType,
    row.resourceId,
  ]);

/** Writes an entry on its own (after an answer whose request committed nothing). */
export async function insertAuditEntry<D>(db: Kysely<D>, row: AuditRow): Promise<void> {
  await db.executeQuery(auditInsert(row));
}

/** Sets what only the answer told (its status, a created record's id) on an entry written at a commit. */
export async function completeAuditEntry<D>(
  db: Kysely<D>,
  row: AuditRow,
  status: number,
  resourceId: string | null,
): Promise<void> {
  await db.executeQuery(
    CompiledQuery.raw(
      `update audit_log set status = $4, resource_id = coalesce(resource_id, $5)
       where organization_id = $1 and created_at = $2 and id = $3`,
      [row.organizationId, row.createdAt, row.id, status, resourceId],
    ),
  );
}

/** The row to write at this commit, or null: nothing pending, already written, or nobody to attribute it to yet. */
function rowToWrite(): { pending: PendingAudit; row: AuditRow } | null {
  const pending = currentAudit();
  if (!pending || pending.written) return null;
  const row = pending.row();
  return row ? { pending, row } : null;
}

// A statement that may change rows: Kysely's insert, update, delete and merge nodes, and raw SQL naming one (or the
// outbox's function, which a single-statement change evaluates last).
const WRITE_NODES = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);
const RAW_WRITE = /\b(insert\s+into|update|delete\s+from|merge\s+into|patron_record_events)\b/i;
const TRANSACTION_CONTROL = /^\s*(begin|start|commit|rollback|end|savepoint|release|prepare\s+transaction)\b/i;

function mayWrite(query: CompiledQuery): boolean {
  const kind = (query.query as { kind?: string } | undefined)?.kind;
  if (kind && WRITE_NODES.has(kind)) return true;
  if (kind && kind !== 'RawNode') return false;
  return RAW_WRITE.test(query.sql) && !TRANSACTION_CONTROL.test(query.sql);
}

/** Whether a statement outside a transaction changed anything: a write that reports no rows changed nothing. */
const changedRows = (query: CompiledQuery, result: QueryResult<unknown>): boolean => {
  const kind = (query.query as { kind?: string } | undefined)?.kind;
  if (kind && WRITE_NODES.has(kind)) return result.numAffectedRows === undefined || result.numAffectedRows > 0n;
  // Raw SQL (a CTE that writes under a SELECT reports no count): assume it did.
  return true;
};

const BEGIN = CompiledQuery.raw('begin');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');

/** A connection that knows whether it is inside a transaction, and wraps a lone write with the pending entry. */
class AuditingConnection implements DatabaseConnection {
  inTransaction = false;
  readOnly = false;
  constructor(readonly inner: DatabaseConnection) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.inTransaction || !mayWrite(query)) return this.inner.executeQuery<R>(query);
    const pending = rowToWrite();
    if (!pending) return this.inner.executeQuery<R>(query);
    await this.inner.executeQuery(BEGIN);
    try {
      const result = await this.inner.executeQuery<R>(query);
      const changed = changedRows(query, result as QueryResult<unknown>);
      if (changed) await this.inner.executeQuery(auditInsert(pending.row));
      await this.inner.executeQuery(COMMIT);
      if (changed) pending.pending.written = pending.row;
      return result;
    } catch (error) {
      await this.inner.executeQuery(ROLLBACK).catch(() => {});
      throw error;
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

const innerOf = (connection: DatabaseConnection) =>
  connection instanceof AuditingConnection ? connection.inner : connection;

/** The engine's driver, writing the pending entry just before each COMMIT (see the top of this file). */
class AuditingDriver implements Driver {
  savepoint?: Driver['savepoint'];
  rollbackToSavepoint?: Driver['rollbackToSavepoint'];
  releaseSavepoint?: Driver['releaseSavepoint'];
  constructor(private readonly inner: Driver) {
    for (const name of ['savepoint', 'rollbackToSavepoint', 'releaseSavepoint'] as const) {
      const method = inner[name];
      if (method) {
        this[name] = (connection: DatabaseConnection, savepointName: string, compile: QueryCompiler['compileQuery']) =>
          method.call(inner, innerOf(connection), savepointName, compile);
      }
    }
  }

  init(): Promise<void> {
    return this.inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    return new AuditingConnection(await this.inner.acquireConnection());
  }
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await this.inner.beginTransaction(innerOf(connection), settings);
    if (connection instanceof AuditingConnection) {
      connection.inTransaction = true;
      connection.readOnly = settings.accessMode === 'read only';
    }
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    // A read-only transaction changed nothing (and could not take the insert).
    const readOnly = connection instanceof AuditingConnection && connection.readOnly;
    const toWrite = readOnly ? null : rowToWrite();
    if (toWrite) await innerOf(connection).executeQuery(auditInsert(toWrite.row));
    try {
      await this.inner.commitTransaction(innerOf(connection));
      // Written only once the COMMIT succeeded: a transaction run again after a conflict writes it again.
      if (toWrite) toWrite.pending.written = toWrite.row;
    } finally {
      if (connection instanceof AuditingConnection) connection.inTransaction = false;
    }
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (connection instanceof AuditingConnection) connection.inTransaction = false;
    await this.inner.rollbackTransaction(innerOf(connection));
  }
  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(innerOf(connection));
  }
  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** The engine's dialect with its driver writing audit entries at commit (docs/api.md#audit-log). */
export class AuditingDialect implements Dialect {
  constructor(private readonly inner: Dialect) {}
  createAdapter() {
    return this.inner.createAdapter();
  }
  createDriver(): Driver {
    return new AuditingDriver(this.inner.createDriver());
  }
  createQueryCompiler() {
    return this.inner.createQueryCompiler();
  }
  createIntrospector(db: Kysely<unknown>) {
    return this.inner.createIntrospector(db);
  }
}
