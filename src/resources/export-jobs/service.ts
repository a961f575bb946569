import type { Kysely } from 'kysely';
import { grants } from '../../auth/permissions.js';
import type { DB } from '../../db/schema.js';
import { ApiError, conflict, notFound, validationError } from '../../core/errors.js';
import type { AuthContext } from '../../core/types.js';
import { enqueueMany } from '../../jobs/runner/queue.js';
import { jobsQueued } from '../../jobs/runner/wake.js';
import { listRecords, parseIncludes } from '../../lists/engine.js';
import { compileFilterParam, NUL_MESSAGE } from '../../lists/filter.js';
import type { ListParams } from '../../lists/query.js';
import { parseSort } from '../../lists/sort.js';
import type { ExportSource } from '../../resource-kit/export-csv.js';
import { requireFields, unwrapData } from '../../resource-kit/body.js';
import { toExportJob, type BulkJobRow, type ExportJob, type ExportResource } from '../../records/export-job.js';
import { uuidv7 } from '../../util/ids.js';
import { resolveQuickFilter } from '../quick-filters/index.js';
import { exportJobList } from './list.js';
import { findExportJob, insertExportJob, lockExportJob, updateExportJob, type ExportParameters } from './queries.js';
import { EXPORT_JOB_REQUIRED, type ExportJobCreateBody, type ExportJobInput } from './schemas.js';

/** The list resources an export can read, handed in by the composition root (docs/api.md#export-jobs). */
export type ExportSources = Readonly<Partial<Record<ExportResource, ExportSource>>>;

/** The job that writes an export's file; its run key is the export job's id. */
export const EXPORT_JOB_NAME = 'exportJob.write';

/** How long a finished export's file can be downloaded (docs/api.md#export-jobs). */
export const EXPORT_KEPT_MS = 7 * 24 * 60 * 60 * 1000;

const forbidden = (permission: string) =>
  new ApiError('FORBIDDEN', `This API key lacks the permission "${permission}" that this export's resource requires.`);

export class ExportJobService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly sources: ExportSources,
  ) {}

  /**
   * Checks the export against its resource's list exactly as a request to that list would be (filter, search, sort,
   * include, then the quick filter), so a bad one is 400 (another organization's quick filter 404) and nothing is
   * written; then writes the job and queues its run in one transaction (docs/api.md#export-jobs).
   */
  async create(auth: AuthContext, body: ExportJobCreateBody | undefined): Promise<ExportJob> {
    const { organizationId } = auth;
    const { fields, path } = unwrapData<ExportJobInput>(body, 'export job');
    requireFields(fields, EXPORT_JOB_REQUIRED, path);
    const resource = fields.resource!;
    const source = this.sourceOf(resource, `${path}.resource`);
    if (!grants(auth.permissions, source.permission)) throw forbidden(source.permission);
    const list = source.list;
    if (fields.filter !== undefined)
      compileFilterParam(list, JSON.stringify(fields.filter), { path: `${path}.filter` });
    if (fields.search !== undefined) checkSearch(list.search !== undefined, list.name, fields.search, `${path}.search`);
    if (fields.sort !== undefined) parseSort(list, fields.sort, `${path}.sort`);
    parseIncludes(list, fields.include, `${path}.include`);
    const saved = await resolveQuickFilter(this.db, organizationId, {
      resource,
      id: fields.quickFilter,
      path: `${path}.quickFilter`,
    });
    const parameters: ExportParameters = {
      ...(fields.filter !== undefined ? { filter: fields.filter as Record<string, unknown> } : {}),
      ...(fields.search !== undefined ? { search: fields.search } : {}),
      ...(fields.include ? { include: fields.include } : {}),
      ...(fields.sort !== undefined ? { sort: fields.sort } : {}),
      ...(saved
        ? { saved: { filter: saved.filter, search: saved.search, sort: saved.sort, version: saved.version } }
        : {}),
    };
    const row = await this.db.transaction().execute(async (trx) => {
      const inserted = await insertExportJob(trx, {
        organizationId,
        id: uuidv7(),
        resource,
        format: fields.format!,
        parameters,
        livemode: auth.livemode,
      });
      await enqueueMany(trx, { organizationId, name: EXPORT_JOB_NAME, runKeys: [inserted.id], now: new Date() });
      return inserted;
    });
    jobsQueued();
    return toExportJob(row);
  }

  /**
   * The organization's export jobs, newest first, of the resources the key may read: a job's records are its
   * resource's, so a key sees the exports it could have made (docs/api.md#export-jobs).
   */
  async list(auth: AuthContext, params: ListParams) {
    const readable = Object.entries(this.sources)
      .filter(([, source]) => grants(auth.permissions, source!.permission))
      .map(([resource]) => resource)
      .sort();
    if (readable.length === 0) return { data: [], nextCursor: null };
    return listRecords(this.db, {
      list: exportJobList,
      organizationId: auth.organizationId,
      params: {
        ...params,
        saved: {
          filter: { resource: { $in: readable } },
          search: null,
          sort: null,
          version: readable.join(','),
          path: 'auth',
        },
      },
      toRecord: (row: BulkJobRow) => toExportJob(row),
    });
  }

  async get(auth: AuthContext, id: string): Promise<ExportJob> {
    return toExportJob(await this.readable(auth, id));
  }

  /**
   * Cancels a queued or running export: the run stops before its next page is committed, and what was written is
   * discarded with the job's file. A job that has already finished (succeeded, failed or cancelled) is answered as it
   * is, and nothing is written (docs/api.md#writes-that-change-nothing): the caller reads from its status that the
   * cancel came too late, and a succeeded file stays downloadable.
   */
  async cancel(auth: AuthContext, id: string): Promise<ExportJob> {
    await this.readable(auth, id);
    return this.db.transaction().execute(async (trx) => {
      const row = await lockExportJob(trx, auth.organizationId, id);
      if (!row) throw notFound('The export job');
      if (row.status !== 'queued' && row.status !== 'running') return toExportJob(row);
      const cancelled = await updateExportJob(trx, auth.organizationId, id, {
        status: 'cancelled',
        finished_at: new Date(),
      });
      await trx
        .deleteFrom('bulk_job_chunks')
        .where('organization_id', '=', auth.organizationId)
        .where('job_id', '=', id)
        .execute();
      return toExportJob(cancelled);
    });
  }

  /** The job whose file is downloaded: 409 until it succeeded (docs/api.md#export-jobs). */
  async downloadable(auth: AuthContext, id: string): Promise<BulkJobRow> {
    const row = await this.readable(auth, id);
    if (row.status !== 'succeeded')
      throw conflict(`The export job is ${row.status}; its file can be downloaded once it has succeeded.`);
    return row;
  }

  /**
   * The file's name (docs/api.md#downloading-an-export): the resource and the day the export was made in the
   * organization's time zone, as a merchant files it, e.g. `customers-2026-12-08.csv`.
   */
  async fileName(auth: AuthContext, row: BulkJobRow): Promise<string> {
    const organization = await this.db
      .selectFrom('organizations')
      .select('timezone')
      .where('id', '=', auth.organizationId)
      .executeTakeFirst();
    const day = new Intl.DateTimeFormat('en-CA', {
      timeZone: organization?.timezone ?? 'UTC',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    }).format(new Date(row.created_at));
    return `${row.resource}-${day}.${row.format === 'csv' ? 'csv' : 'jsonl'}`;
  }

  /**
   * Another organization's job is 404 like a missing one, and so is one whose file expired, pruned or not yet; one of
   * a resource the key cannot read is 403 (docs/api.md#export-jobs).
   */
  private async readable(auth: AuthContext, id: string): Promise<BulkJobRow> {
    const row = await findExportJob(this.db, auth.organizationId, id);
    if (!row || (row.expires_at && row.expires_at.getTime() <= Date.now())) throw notFound('The export job');
    const source = this.sources[row.resource as ExportResource];
    if (source && !grants(auth.permissions, source.permission)) throw forbidden(source.permission);
    return row;
  }

  private sourceOf(resource: ExportResource, path: string): ExportSource {
    const source = this.sources[resource];
    if (!source) {
      throw validationError(`Patron has no ${resource} list to export yet.`, [
        { path, message: `names a list that does not exist yet (${resource})` },
      ]);
    }
    return source;
  }
}

/** The list's search as a request would send it (docs/api.md#search). */
function checkSearch(supported: boolean, listName: string, search: string, path: string): void {
  if (!supported)
    throw validationError(`The ${listName} list has no search.`, [
      { path, message: 'is not supported by this resource' },
    ]);
  if (search.includes('\u0000'))
    throw validationError(`Invalid request: ${path} ${NUL_MESSAGE}.`, [{ path, message: NUL_MESSAGE }]);
  if (!search.trim())
    throw validationError(`Invalid request: ${path} must not be blank.`, [{ path, message: 'must not be blank' }]);
}
