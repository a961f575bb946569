import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { columnList, type Executor } from '../../db/executor.js';
import { recordEvents } from '../../events/outbox.js';
import type { EventToRecord } from '../../core/event-to-record.js';
import { notFound, unprocessable, validationError } from '../../core/errors.js';
import { compileSelection, getRecord, listRecords } from '../../lists/engine.js';
import type { ListParams, SelectionParams } from '../../lists/query.js';
import { refuseOverfullMetadata } from '../../resource-kit/bulk-update.js';
import { requireFields, unwrapData } from '../../resource-kit/body.js';
import { updateIfChanged } from '../../resource-kit/changes.js';
import { resolveCustomers, resolveProducts } from '../../resource-kit/references.js';
import { uuidv7 } from '../../util/ids.js';
import {
  PRODUCT_QUESTION_COLUMNS,
  productQuestionAnswerEvent,
  productQuestionEvent,
  toProductQuestion,
  toProductQuestionAnswer,
  type ProductQuestion,
  type ProductQuestionAnswer,
  type ProductQuestionFields,
} from '../../records/product-question.js';
import { importProductQuestions } from './import.js';
import { productQuestionList } from './list.js';
import {
  answerRowsOf,
  bulkEditQuestions,
  deleteAnswerRows,
  deleteQuestionRows,
  findAnswer,
  findQuestion,
  insertAnswers,
  lockQuestions,
  publishedAtFor,
} from './queries.js';
import {
  type DeletedProductQuestion,
  PRODUCT_QUESTION_ANSWER_REQUIRED,
  PRODUCT_QUESTION_REQUIRED,
  type ProductQuestionAnswerCreateBody,
  type ProductQuestionAnswerCreateInput,
  type ProductQuestionAnswerPatch,
  type ProductQuestionBulkUpdateBody,
  type ProductQuestionCreateBody,
  type ProductQuestionCreateInput,
  type ProductQuestionImportBody,
  type ProductQuestionPatch,
} from './schemas.js';

export class ProductQuestionService {
  constructor(private readonly db: Kysely<DB>) {}

  async list(organizationId: string, params: ListParams) {
    return listRecords(this.db, { list: productQuestionList, organizationId, params, toRecord: toProductQuestion });
  }

  async get(organizationId: string, id: string, include?: string): Promise<ProductQuestion> {
    return getRecord(this.db, {
      list: productQuestionList,
      organizationId,
      include,
      find: () => findQuestion(this.db, organizationId, id),
      toRecord: toProductQuestion,
      missing: () => notFound('The product question'),
    });
  }

  /**
   * POST /product-questions: a question the merchant records (asked by phone, mail or in the shop): source merchant,
   * status published unless the body says otherwise (docs/api.md#product-questions-and-answers).
   */
  async create(organizationId: string, body: ProductQuestionCreateBody): Promise<ProductQuestion> {
    const { fields, path } = unwrapData<ProductQuestionCreateInput>(body, 'product question');
    requireFields(fields, PRODUCT_QUESTION_REQUIRED, path);
    const input = fields as Required<Pick<ProductQuestionCreateInput, 'product' | 'body' | 'authorName'>> &
      ProductQuestionCreateInput;
    return this.db.transaction().execute(async (trx) => {
      const productId = (await resolveProducts(trx, organizationId, [input.product])).get(input.product);
      if (!productId) {
        throw unprocessable(`Product "${input.product}" does not exist in this organization.`, [
          { path: `${path}.product`, message: 'no product has this id or slug' },
        ]);
      }
      let customerId: string | null = null;
      if (input.customer !== undefined) {
        customerId = (await resolveCustomers(trx, organizationId, [input.customer])).get(input.customer) ?? null;
        if (!customerId) {
          throw unprocessable(`Customer "${input.customer}" does not exist in this organization.`, [
            { path: `${path}.customer`, message: 'no customer has this id or email' },
          ]);
        }
      }
      const status = input.status ?? 'published';
      const { rows } = await sql<ProductQuestionFields>`
        insert into product_questions (organization_id, id, product_id, customer_id, author_name, author_email, body,
          status, source, published_at, metadata)
        values (${organizationId}::uuid, ${uuidv7()}::uuid, ${productId}::uuid, ${customerId}::uuid, ${input.authorName},
          ${input.authorEmail ?? null}, ${input.body}, ${status}, 'merchant',
          ${status === 'published' ? sql`now()` : sql`null`}, ${JSON.stringify(input.metadata ?? {})}::jsonb)
        returning ${columnList(PRODUCT_QUESTION_COLUMNS)}`.execute(trx);
      const row = rows[0]!;
      await recordEvents(trx, [productQuestionEvent(organizationId, 'productQuestion.created', row, [])]);
      return toProductQuestion(row);
    });
  }

  /**
   * The text, the moderation status and the metadata (replaced wholesale). A change sends productQuestion.updated
   * (publishing a question that arrived pending is one: service.md's ordering note); a PATCH that changes nothing
   * writes and sends nothing (docs/api.md#writes-that-change-nothing).
   */
  async update(organizationId: string, id: string, patch: ProductQuestionPatch): Promise<ProductQuestion> {
    return this.db.transaction().execute(async (trx) => {
      const before = await findQuestion(trx, organizationId, id, true);
      if (!before) throw notFound('The product question');
      const after = await updateIfChanged(
        trx,
        { table: 'product_questions', organizationId, id: before.id },
        {
          body: patch.body,
          status: patch.status,
          published_at: patch.status === undefined ? undefined : publishedAtFor(patch.status),
          metadata: patch.metadata,
        },
      );
      if (!after) return toProductQuestion(before);
      const answers = (await answerRowsOf(trx, organizationId, [before.id])).get(before.id)!;
      await recordEvents(trx, [productQuestionEvent(organizationId, 'productQuestion.updated', after, answers)]);
      return toProductQuestion(after);
    });
  }

  /**
   * PATCH /product-questions/bulk-update: every question the filter, search and quick filter select (all of the
   * organization's without them) gets the status and metadata changes, in one transaction. Returns how many were
   * selected; productQuestion.updated goes out for each question that changed.
   */
  async bulkUpdate(
    organizationId: string,
    selection: SelectionParams,
    changes: ProductQuestionBulkUpdateBody,
  ): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const compiled = compileSelection(productQuestionList, organizationId, selection);
      // Locked in id order, as every question writer takes them.
      const { rows: selected } = await sql<{ id: string }>`
        select q.id from product_questions q ${compiled.joins} where ${compiled.where}
        order by q.id for update of q`.execute(trx);
      const changed = await bulkEditQuestions(
        trx,
        organizationId,
        selected.map((row) => row.id),
        changes,
      );
      refuseOverfullMetadata(changed, { plural: 'questions', singular: 'question' });
      changed.sort((a, b) => (a.id < b.id ? -1 : 1));
      const answers = await answerRowsOf(
        trx,
        organizationId,
        changed.map((row) => row.id),
      );
      await recordEvents(
        trx,
        changed.map((row) =>
          productQuestionEvent(organizationId, 'productQuestion.updated', row, answers.get(row.id)!),
        ),
      );
      return selected.length;
    });
  }

  /** Deletes a question with its answers: one productQuestion.deleted carrying them, no answer events. */
  async delete(organizationId: string, id: string): Promise<DeletedProductQuestion> {
    return this.db.transaction().execute(async (trx) => {
      const row = await findQuestion(trx, organizationId, id, true);
      if (!row) throw notFound('The product question');
      const events = await deleteLockedQuestions(trx, organizationId, [row]);
      await recordEvents(trx, events);
      // The question as its productQuestion.deleted event carries it: with the answers deleted with it.
      return events[0]!.record as DeletedProductQuestion;
    });
  }

  /**
   * POST /product-questions/{id}/answers: the merchant's answer by default (authorName: the organization's name),
   * published unless the body says otherwise; a shopper's answer must name its author.
   */
  async createAnswer(
    organizationId: string,
    questionId: string,
    body: ProductQuestionAnswerCreateBody,
  ): Promise<ProductQuestionAnswer> {
    const { fields, path } = unwrapData<ProductQuestionAnswerCreateInput>(body, 'answer');
    requireFields(fields, PRODUCT_QUESTION_ANSWER_REQUIRED, path);
    const source = fields.source ?? 'merchant';
    if (source === 'shopper' && fields.authorName === undefined) {
      throw validationError(`Invalid request: ${path}.authorName is required for a shopper's answer.`, [
        { path: `${path}.authorName`, message: "is required when source is 'shopper'" },
      ]);
    }
    return this.db.transaction().execute(async (trx) => {
      // The question is locked so that its deletion cannot pass the new answer by (its event carries its answers).
      const question = await findQuestion(trx, organizationId, questionId, true);
      if (!question) throw notFound('The product question');
      const authorName = fields.authorName ?? (await organizationName(trx, organizationId));
      const [row] = await insertAnswers(trx, organizationId, [
        {
          id: uuidv7(),
          questionId: question.id,
          body: fields.body!,
          authorName,
          source,
          status: fields.status ?? 'published',
        },
      ]);
      await recordEvents(trx, [productQuestionAnswerEvent(organizationId, 'productQuestionAnswer.created', row!)]);
      return toProductQuestionAnswer(row!);
    });
  }

  /** The answer's text, author name and status; a PATCH that changes nothing writes and sends nothing. */
  async updateAnswer(organizationId: string, id: string, patch: ProductQuestionAnswerPatch) {
    return this.db.transaction().execute(async (trx) => {
      const before = await findAnswer(trx, organizationId, id, true);
      if (!before) throw notFound('The answer');
      const after = await updateIfChanged(
        trx,
        { table: 'product_question_answers', organizationId, id: before.id },
        {
          body: patch.body,
          author_name: patch.authorName,
          status: patch.status,
          published_at: patch.status === undefined ? undefined : publishedAtFor(patch.status),
        },
      );
      if (!after) return toProductQuestionAnswer(before);
      await recordEvents(trx, [productQuestionAnswerEvent(organizationId, 'productQuestionAnswer.updated', after)]);
      return toProductQuestionAnswer(after);
    });
  }

  async deleteAnswer(organizationId: string, id: string) {
    return this.db.transaction().execute(async (trx) => {
      const [row] = await deleteAnswerRows(trx, organizationId, [id]);
      if (!row) throw notFound('The answer');
      await recordEvents(trx, [productQuestionAnswerEvent(organizationId, 'productQuestionAnswer.deleted', row)]);
      return toProductQuestionAnswer(row);
    });
  }

  async import(organizationId: string, body: ProductQuestionImportBody) {
    return this.db.transaction().execute((trx) => importProductQuestions(trx, organizationId, body));
  }
}

async function organizationName(db: Executor, organizationId: string): Promise<string> {
  const { rows } = await sql<{ name: string }>`
    select name from organizations where id = ${organizationId}::uuid`.execute(db);
  return rows[0]!.name;
}

/**
 * Deletes questions the caller locked (in id order) with their answers: each sends productQuestion.deleted carrying
 * the answers it had. Returns the events for the caller's recordEvents.
 */
async function deleteLockedQuestions(
  trx: Executor,
  organizationId: string,
  rows: readonly ProductQuestionFields[],
): Promise<EventToRecord[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const answers = await answerRowsOf(trx, organizationId, ids);
  await deleteQuestionRows(trx, organizationId, ids);
  return rows.map((row) => productQuestionEvent(organizationId, 'productQuestion.deleted', row, answers.get(row.id)!));
}

/**
 * Customers: deleting a customer deletes the questions they asked, with their answers (a deletion is usually a
 * privacy request; docs/api.md#product-questions-and-answers). Call it inside the customer's deletion transaction,
 * before the customer row goes; pass the events to recordEvents.
 */
export async function deleteQuestionsOfCustomer(
  trx: Executor,
  organizationId: string,
  customerId: string,
): Promise<EventToRecord[]> {
  const rows = await lockQuestions(trx, organizationId, { customerId: customerId.toLowerCase() });
  return deleteLockedQuestions(trx, organizationId, rows);
}

/**
 * Products: deleting a product unlinks its questions like its reviews (productId null; a published one goes back to
 * pending, since no storefront can show it), each sending productQuestion.updated; with the organization's
 * cascadeDeleteReviews they are deleted, each sending productQuestion.deleted. Call it inside the product's deletion
 * transaction, before the product row goes; pass the events to recordEvents.
 */
export async function detachQuestionsOfProduct(
  trx: Executor,
  organizationId: string,
  productId: string,
  cascade: boolean,
): Promise<EventToRecord[]> {
  const rows = await lockQuestions(trx, organizationId, { productId: productId.toLowerCase() });
  if (rows.length === 0) return [];
  if (cascade) return deleteLockedQuestions(trx, organizationId, rows);
  const ids = rows.map((row) => row.id);
  const { rows: unlinked } = await sql<ProductQuestionFields>`
    update product_questions set product_id = null, updated_at = now(),
      status = case when status = 'published' then 'pending' else status end,
      published_at = case when status = 'published' then null else published_at end
    where organization_id = ${organizationId}::uuid and id = any(${ids}::uuid[])
    returning ${columnList(PRODUCT_QUESTION_COLUMNS)}`.execute(trx);
  unlinked.sort((a, b) => (a.id < b.id ? -1 : 1));
  const answers = await answerRowsOf(trx, organizationId, ids);
  return unlinked.map((row) =>
    productQuestionEvent(organizationId, 'productQuestion.updated', row, answers.get(row.id)!),
  );
}
