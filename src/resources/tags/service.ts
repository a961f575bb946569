import type { Kysely } from 'kysely';
import type { DB, TagKind } from '../../db/schema.js';
import { isUniqueViolation } from '../../db/errors.js';
import { recordEvents } from '../../events/outbox.js';
import { conflict, notFound, validationError } from '../../core/errors.js';
import { getRecord, listRecords } from '../../lists/engine.js';
import type { ListDefinition } from '../../lists/types.js';
import type { ListParams } from '../../lists/query.js';
import { tagEvent, toTag, type TagRecord } from '../../records/tag.js';
import { tagList } from './list.js';
import { deleteTagRow, findTag, findTagNamed, renameTag } from './queries.js';

/**
 * The tag records of one kind (product, order or customer). Tags are created implicitly wherever records are
 * tagged (PATCH tags, imports, bulk updates); here they are listed, renamed and deleted.
 */
export class TagService {
  readonly definition: ListDefinition;

  constructor(
    private readonly db: Kysely<DB>,
    readonly kind: TagKind,
  ) {
    this.definition = tagList(kind);
  }

  private get what(): `The ${string}` {
    return `The ${this.kind} tag`;
  }

  async list(organizationId: string, params: ListParams) {
    return listRecords(this.db, this.definition, organizationId, params, toTag);
  }

  async get(organizationId: string, id: string, include?: string): Promise<TagRecord> {
    return getRecord(this.db, this.definition, organizationId, include, {
      find: () => findTag(this.db, organizationId, this.kind, id),
      toRecord: toTag,
      missing: () => notFound(this.what),
    });
  }

  /** Renames the tag everywhere it is used; another tag of the same kind with that name is 409. */
  async rename(organizationId: string, id: string, rawName: string): Promise<TagRecord> {
    const name = rawName.trim();
    if (!name) {
      throw validationError('Invalid request: body.name is empty once trimmed.', [
        { path: 'body.name', message: 'must not be empty once trimmed' },
      ]);
    }
    try {
      return await this.db.transaction().execute(async (trx) => {
        const before = await findTag(trx, organizationId, this.kind, id);
        if (!before) throw notFound(this.what);
        // Renaming a tag to its own name changes nothing and sends nothing (docs/api.md#writes-that-change-nothing).
        if (before.name === name) return toTag(before);
        if (await findTagNamed(trx, organizationId, this.kind, name, id)) throw this.clash(name);
        const row = await renameTag(trx, organizationId, this.kind, id, name);
        if (!row) throw notFound(this.what);
        await recordEvents(trx, [tagEvent(organizationId, this.kind, 'updated', row)]);
        return toTag(row);
      });
    } catch (error) {
      // Two renames racing to the same name: the unique index decides, the loser gets the same 409.
      if (isUniqueViolation(error)) throw this.clash(name);
      throw error;
    }
  }

  /** Deletes the tag and removes it from every record that carried it. */
  async delete(organizationId: string, id: string): Promise<TagRecord> {
    return this.db.transaction().execute(async (trx) => {
      const row = await deleteTagRow(trx, organizationId, this.kind, id);
      if (!row) throw notFound(this.what);
      await recordEvents(trx, [tagEvent(organizationId, this.kind, 'deleted', row)]);
      return toTag(row);
    });
  }

  private clash(name: string) {
    return conflict(
      `Another ${this.kind} tag is already called "${name}"; pick another name or delete that tag first.`,
    );
  }
}
