import type { Transaction } from 'kysely';
import type { TObject } from 'typebox';
import type { DB } from '../db/schema.js';
import type { ImportOptions } from '../records/import-job.js';
import { uuidv7 } from '../util/ids.js';
import type { Skipped } from './imports.js';

/**
 * Where imported records came from (include=importJob): the import's id and type, and a row's index in what was
 * sent. A synchronous import is its own import with rows indexed as sent; an import job passes its id, the type
 * `import-job` and each row's index in the file (docs/api.md#import-jobs).
 */
export interface ImportProvenance {
  id: string;
  type: string;
  rowOf: (index: number) => number;
}

/**
 * The provenance of one synchronous import request of `type` (e.g. "orders"). Its id is drawn when it is first read,
 * as the provenance is written after the records: ids are drawn in the order they always were, which the demo world
 * relies on to give the well-known records their planned ids (src/demo/ids.ts).
 */
export const requestProvenance = (type: string): ImportProvenance => {
  let id: string | undefined;
  return {
    get id() {
      return (id ??= uuidv7());
    },
    type,
    rowOf: (index) => index,
  };
};

/** What an import of some rows answers, as far as an import job reads it. */
export interface ImportOutcome {
  data: readonly unknown[];
  skipped: readonly Skipped[];
  /** Absent where the import counts no outcomes (the history import writes one ledger entry per row it applies). */
  created?: number;
  updated?: number;
  unchanged?: number;
}

/**
 * What an import job needs of a resource with a synchronous import (docs/api.md#import-jobs): that import itself,
 * run on a batch of rows inside the job's transaction, and what reading a file into its rows takes.
 */
export interface ImportSource {
  /** The write permission of the synchronous import. */
  permission: string;
  /** The synchronous import's body schema: `data`, the rows, and the options it takes. */
  body: TObject;
  /**
   * The record the resource's list and export answer with: a CSV column or JSON field of the record that the row
   * does not take (`id`, `updatedAt`, an embedded `customer`) is read past, so an export imports as it is.
   */
  record: object;
  /** Record fields that carry a row field's value (`customerId` → `customer`, `items.productId` → `items.product`). */
  aliases?: Readonly<Record<string, string>>;
  /** The row's nested list a CSV writes one line per item of, and the field whose value ties those lines together. */
  lines?: { field: string; key: readonly string[] };
  /** What makes two rows of one file name the same record; a later row with an earlier row's key is skipped. */
  duplicateKey?: (row: Record<string, unknown>) => string | undefined;
  /** Runs the synchronous import's rows in the caller's transaction. */
  run(
    trx: Transaction<DB>,
    organizationId: string,
    body: { data: unknown[] } & ImportOptions,
    provenance: ImportProvenance,
  ): Promise<ImportOutcome>;
  /** Wraps a batch's transaction the way the synchronous import wraps its own (e.g. a retry on a code clash). */
  around?: <T>(run: () => Promise<T>) => Promise<T>;
}
