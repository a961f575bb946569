import { sql, type Transaction } from 'kysely';
import { columnList } from '../../db/executor.js';
import type { DB } from '../../db/schema.js';
import { recordEvents } from '../../events/outbox.js';
import type { EventToRecord } from '../../core/event-to-record.js';
import { validationError } from '../../core/errors.js';
import {
  checkImportSize,
  firstSameRecord,
  importCounts,
  importOutcomes,
  refuseDuplicates,
  strictFailure,
  type Skipped,
} from '../../resource-kit/imports.js';
import { MAX_METADATA_KEYS } from '../../resource-kit/text.js';
import { resolveCustomers, resolveProducts } from '../../resource-kit/references.js';
import { uuidv7 } from '../../util/ids.js';
import {
  PRODUCT_QUESTION_ANSWER_COLUMNS,
  PRODUCT_QUESTION_COLUMNS,
  productQuestionAnswerEvent,
  productQuestionEvent,
  toProductQuestionWithAnswers,
  type ProductQuestionAnswerFields,
  type ProductQuestionFields,
} from '../../records/product-question.js';
import { answerRowsOf, deleteAnswerRows, insertAnswers, type AnswerInsert } from './queries.js';
import type { ProductQuestionImportBody, ProductQuestionImportRow } from './schemas.js';

type Row = ProductQuestionImportRow & { index: number };
interface Resolved {
  row: Row;
  productId: string;
  customerId: string | undefined;
}
type Plan = Resolved & { id: string; existing?: ProductQuestionFields | undefined };

/** Questions without a remoteId are the same question when product, author and text are (docs/api.md#question-import). */
const naturalKey = (productId: string, authorName: string, authorEmail: string | null | undefined, body: string) =>
  JSON.stringify([productId, authorName, authorEmail ?? null, body]);

/**
 * POST /product-questions/import (docs/api.md#question-import): creates or updates questions. A row matches the
 * question with its remoteId; else the oldest question without a remoteId with the same product, author (name and
 * email) and text, which then takes the row's remoteId. A missing product, or a customer named and missing, skips the
 * row, or with strict fails the import with 422 and writes nothing. A row's `answers`, when sent, replace the stored
 * ones exactly (an answer with the same author name and text keeps its id). Events: productQuestion.created per new
 * question (carrying its answers), productQuestion.updated per question whose own fields changed, and
 * productQuestionAnswer.created/updated/deleted per answer the import wrote; an unchanged row writes and sends nothing.
 */
export async function importProductQuestions(
  trx: Transaction<DB>,
  organizationId: string,
  body: ProductQuestionImportBody,
) {
  checkImportSize(body.data);
  const rows: Row[] = body.data.map((row, index) => ({ ...row, index }));
  refuseDuplicates(
    rows.map((row) => row.remoteId),
    'remoteId',
    { noun: 'question' },
  );
  const products = await resolveProducts(trx, organizationId, [...new Set(rows.map((row) => row.product))]);
  const customers = await resolveCustomers(trx, organizationId, [
    ...new Set(rows.flatMap((row) => (row.customer !== undefined ? [row.customer] : []))),
  ]);
  const skipped: Skipped[] = [];
  const resolved: Resolved[] = [];
  for (const row of rows) {
    const productId = products.get(row.product);
    const customerId = row.customer !== undefined ? customers.get(row.customer) : undefined;
    const miss =
      productId === undefined
        ? `Product "${row.product}" does not exist in this organization.`
        : row.customer !== undefined && customerId === undefined
          ? `Customer "${row.customer}" does not exist in this organization.`
          : undefined;
    if (miss !== undefined) {
      if (body.strict) throw strictFailure({ index: row.index, message: miss });
      skipped.push({ index: row.index, message: miss });
    } else {
      resolved.push({ row, productId: productId!, customerId });
    }
  }
  refuseSameQuestion(resolved);
  const plans = (await matchExisting(trx, organizationId, resolved)).map((entry): Plan => ({
    ...entry,
    id: entry.existing?.id ?? uuidv7(),
  }));

  const created = await insertQuestions(
    trx,
    organizationId,
    plans.filter((plan) => !plan.existing),
  );
  const updated = await updateQuestions(
    trx,
    organizationId,
    plans.filter((plan) => plan.existing),
    body.mergeMetadata ?? false,
  );
  const overfull = updated.find((row) => Object.keys(row.metadata).length > MAX_METADATA_KEYS);
  if (overfull) {
    const index = plans.find((plan) => plan.id === overfull.id)!.row.index;
    throw validationError(
      `Invalid request: merging body.data[${index}].metadata would leave the question with more than ${MAX_METADATA_KEYS} metadata keys; nothing was imported.`,
      [{ path: `body.data[${index}].metadata`, message: `would exceed ${MAX_METADATA_KEYS} keys once merged` }],
    );
  }
  const answerEvents = await replaceAnswers(trx, organizationId, plans);

  const answers = await answerRowsOf(
    trx,
    organizationId,
    plans.map((plan) => plan.id),
  );
  const outcomes = importOutcomes(plans, created, updated);
  const events: EventToRecord[] = [];
  const actions = plans.map((plan, at) => {
    const { record, action } = outcomes[at]!;
    const questionAnswers = answers.get(plan.id)!;
    if (action !== 'unchanged') {
      const name = action === 'created' ? 'productQuestion.created' : 'productQuestion.updated';
      events.push(productQuestionEvent(organizationId, name, record, questionAnswers));
    }
    // A question's own events come before those of its answers, so a receiver knows the question an answer names.
    events.push(...(answerEvents.get(plan.id) ?? []));
    return { action: action === 'unchanged' && answerEvents.has(plan.id) ? ('updated' as const) : action };
  });
  const data = plans.map((plan, at) => toProductQuestionWithAnswers(outcomes[at]!.record, answers.get(plan.id)!));
  await recordEvents(trx, events);
  return { data, skipped, ...importCounts(actions) };
}

/** Two rows without remoteId with the same product, author and text would be one question: 400 naming them. */
function refuseSameQuestion(rows: readonly Resolved[]): void {
  const repeat = firstSameRecord(rows, ({ row, productId }) =>
    naturalKey(productId, row.authorName, row.authorEmail, row.body),
  );
  if (!repeat) return;
  const [index, first] = repeat;
  throw validationError(
    `Invalid request: body.data[${index}] and body.data[${first}] are the same question (product, author and text) without a remoteId; send it once, or give each a remoteId.`,
    [{ path: `body.data[${index}]`, message: `is the same question as body.data[${first}]` }],
  );
}

/**
 * The stored question each row updates, locked until commit: by remoteId first, else the oldest without a remoteId
 * with the same product, author and text, each claimed by one row at most.
 */
async function matchExisting(
  trx: Transaction<DB>,
  organizationId: string,
  rows: readonly Resolved[],
): Promise<(Resolved & { existing?: ProductQuestionFields })[]> {
  const remoteIds = rows.flatMap((entry) => (entry.row.remoteId !== undefined ? [entry.row.remoteId] : []));
  const byRemoteId = new Map<string, ProductQuestionFields>();
  if (remoteIds.length) {
    const { rows: found } = await sql<ProductQuestionFields>`
      select ${columnList(PRODUCT_QUESTION_COLUMNS)} from product_questions
      where organization_id = ${organizationId}::uuid and remote_id = any(${remoteIds}::text[])
      order by id for update`.execute(trx);
    for (const row of found) byRemoteId.set(row.remote_id!, row);
  }
  const unmatched = rows.filter((entry) => entry.row.remoteId === undefined || !byRemoteId.has(entry.row.remoteId));
  const candidates = new Map<string, ProductQuestionFields[]>();
  if (unmatched.length) {
    // The product's questions without a remoteId (product_questions_product_idx), compared on author and text here.
    const { rows: found } = await sql<ProductQuestionFields>`
      select ${columnList(PRODUCT_QUESTION_COLUMNS)} from product_questions
      where organization_id = ${organizationId}::uuid and remote_id is null
        and product_id = any(${[...new Set(unmatched.map((entry) => entry.productId))]}::uuid[])
        and body = any(${[...new Set(unmatched.map((entry) => entry.row.body))]}::text[])
      order by id for update`.execute(trx);
    found.sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : 1));
    for (const row of found) {
      const key = naturalKey(row.product_id!, row.author_name, row.author_email, row.body);
      candidates.set(key, [...(candidates.get(key) ?? []), row]);
    }
  }
  // A question a row names by its remoteId is that row's, whichever comes first: no other row may match it by name.
  const claimed = new Set(
    rows.flatMap((entry) => {
      const byRemote = entry.row.remoteId !== undefined ? byRemoteId.get(entry.row.remoteId) : undefined;
      return byRemote ? [byRemote.id] : [];
    }),
  );
  return rows.map((entry) => {
    const byRemote = entry.row.remoteId !== undefined ? byRemoteId.get(entry.row.remoteId) : undefined;
    if (byRemote) return { ...entry, existing: byRemote };
    const key = naturalKey(entry.productId, entry.row.authorName, entry.row.authorEmail, entry.row.body);
    const match = (candidates.get(key) ?? []).find((row) => !claimed.has(row.id));
    if (match) {
      claimed.add(match.id);
      return { ...entry, existing: match };
    }
    return entry;
  });
}

async function insertQuestions(
  trx: Transaction<DB>,
  organizationId: string,
  plans: readonly Plan[],
): Promise<ProductQuestionFields[]> {
  if (plans.length === 0) return [];
  const json = JSON.stringify(
    plans.map((plan) => ({
      id: plan.id,
      product_id: plan.productId,
      customer_id: plan.customerId ?? null,
      author_name: plan.row.authorName,
      author_email: plan.row.authorEmail ?? null,
      body: plan.row.body,
      status: plan.row.status ?? 'pending',
      source: plan.row.source ?? 'shopper',
      remote_id: plan.row.remoteId ?? null,
      published_at: plan.row.publishedAt ?? null,
      metadata: plan.row.metadata ?? {},
      created_at: plan.row.createdAt ?? null,
    })),
  );
  const { rows } = await sql<ProductQuestionFields>`
    insert into product_questions (organization_id, id, product_id, customer_id, author_name, author_email, body, status,
      source, remote_id, published_at, metadata, created_at, updated_at)
    select ${organizationId}::uuid, u.id, u.product_id, u.customer_id, u.author_name, u.author_email, u.body, u.status,
      u.source, u.remote_id, case when u.status = 'published' then coalesce(u.published_at, u.created_at, now()) end,
      u.metadata, coalesce(u.created_at, now()), now()
    from json_to_recordset(${json}::json) as u(id uuid, product_id uuid, customer_id uuid, author_name text,
      author_email text, body text, status text, source text, remote_id text, published_at timestamptz, metadata jsonb,
      created_at timestamptz)
    returning ${columnList(PRODUCT_QUESTION_COLUMNS)}`.execute(trx);
  return rows;
}

/**
 * Updates the matched questions: product, author name and text always sent; customer, email, status, source,
 * remoteId and metadata kept when omitted (metadata merged with mergeMetadata). publishedAt follows the status: a
 * question staying published keeps it unless the row sends one. Only questions whose values change are written and
 * returned (updatedAt moves).
 */
async function updateQuestions(
  trx: Transaction<DB>,
  organizationId: string,
  plans: readonly Plan[],
  mergeMetadata: boolean,
): Promise<ProductQuestionFields[]> {
  if (plans.length === 0) return [];
  const json = JSON.stringify(
    plans.map((plan) => ({
      id: plan.id,
      product_id: plan.productId,
      customer_id: plan.customerId ?? null,
      keep_customer: plan.row.customer === undefined,
      author_name: plan.row.authorName,
      author_email: plan.row.authorEmail ?? null,
      keep_email: plan.row.authorEmail === undefined,
      body: plan.row.body,
      status: plan.row.status ?? null,
      source: plan.row.source ?? null,
      remote_id: plan.row.remoteId ?? null,
      published_at: plan.row.publishedAt ?? null,
      metadata: plan.row.metadata ?? null,
    })),
  );
  const { rows } = await sql<ProductQuestionFields>`
    with u as (
      select * from json_to_recordset(${json}::json) as u(id uuid, product_id uuid, customer_id uuid,
        keep_customer boolean, author_name text, author_email text, keep_email boolean, body text, status text,
        source text, remote_id text, published_at timestamptz, metadata jsonb)
    ), n as (
      select o.id, u.product_id,
        case when u.keep_customer then o.customer_id else u.customer_id end as customer_id,
        u.author_name,
        case when u.keep_email then o.author_email else u.author_email end as author_email,
        u.body, coalesce(u.status, o.status) as status, coalesce(u.source, o.source) as source,
        coalesce(u.remote_id, o.remote_id) as remote_id,
        case when coalesce(u.status, o.status) = 'published'
          then coalesce(u.published_at, case when o.status = 'published' then o.published_at end, now()) end
          as published_at,
        case when u.metadata is null then o.metadata when ${mergeMetadata} then o.metadata || u.metadata
          else u.metadata end as metadata
      from u join product_questions o on o.organization_id = ${organizationId}::uuid and o.id = u.id
    )
    update product_questions t set product_id = n.product_id, customer_id = n.customer_id,
      author_name = n.author_name, author_email = n.author_email, body = n.body, status = n.status, source = n.source,
      remote_id = n.remote_id, published_at = n.published_at, metadata = n.metadata, updated_at = now()
    from n
    where t.organization_id = ${organizationId}::uuid and t.id = n.id
      and (t.product_id, t.customer_id, t.author_name, t.author_email, t.body, t.status, t.source, t.remote_id,
        t.published_at, t.metadata)
      is distinct from (n.product_id, n.customer_id, n.author_name, n.author_email, n.body, n.status, n.source,
        n.remote_id, n.published_at, n.metadata)
    returning ${columnList(PRODUCT_QUESTION_COLUMNS, 't')}`.execute(trx);
  return rows;
}

/**
 * The answers of the rows that send them become exactly those: a stored answer with the same author name and text
 * keeps its id (and is updated when its source, status or publication differ), the others are deleted, the new ones
 * inserted. Returns each question's answer events, in the order written.
 */
async function replaceAnswers(
  trx: Transaction<DB>,
  organizationId: string,
  plans: readonly Plan[],
): Promise<Map<string, EventToRecord[]>> {
  const sending = plans.filter((plan) => plan.row.answers !== undefined);
  const events = new Map<string, EventToRecord[]>();
  if (sending.length === 0) return events;
  const stored = await answerRowsOf(
    trx,
    organizationId,
    sending.flatMap((plan) => (plan.existing ? [plan.id] : [])),
  );
  const inserts: AnswerInsert[] = [];
  const updates: { id: string; source: string; status: string; published_at: string | null }[] = [];
  const removals: string[] = [];
  for (const plan of sending) {
    const left = [...(stored.get(plan.id) ?? [])];
    for (const answer of plan.row.answers!) {
      const at = left.findIndex((row) => row.author_name === answer.authorName && row.body === answer.body);
      if (at < 0) {
        inserts.push({
          id: uuidv7(),
          questionId: plan.id,
          ...answer,
          status: answer.status ?? 'published',
          source: answer.source ?? 'merchant',
        });
        continue;
      }
      const [kept] = left.splice(at, 1) as [ProductQuestionAnswerFields];
      updates.push({
        id: kept.id,
        source: answer.source ?? kept.source,
        status: answer.status ?? kept.status,
        published_at: answer.publishedAt ?? null,
      });
    }
    removals.push(...left.map((row) => row.id));
  }
  const add = (row: ProductQuestionAnswerFields, name: Parameters<typeof productQuestionAnswerEvent>[1]) =>
    events.set(row.question_id, [
      ...(events.get(row.question_id) ?? []),
      productQuestionAnswerEvent(organizationId, name, row),
    ]);
  for (const row of await deleteAnswerRows(trx, organizationId, removals)) add(row, 'productQuestionAnswer.deleted');
  for (const row of await updateAnswers(trx, organizationId, updates)) add(row, 'productQuestionAnswer.updated');
  for (const row of await insertAnswers(trx, organizationId, inserts)) add(row, 'productQuestionAnswer.created');
  return events;
}

/** Source, status and publication of kept answers; only those that change are written and returned. */
async function updateAnswers(
  trx: Transaction<DB>,
  organizationId: string,
  updates: readonly { id: string; source: string; status: string; published_at: string | null }[],
): Promise<ProductQuestionAnswerFields[]> {
  if (updates.length === 0) return [];
  const { rows } = await sql<ProductQuestionAnswerFields>`
    with n as (
      select o.id, u.source, u.status,
        case when u.status = 'published'
          then coalesce(u.published_at, case when o.status = 'published' then o.published_at end, now()) end
          as published_at
      from json_to_recordset(${JSON.stringify(updates)}::json)
        as u(id uuid, source text, status text, published_at timestamptz)
      join product_question_answers o on o.organization_id = ${organizationId}::uuid and o.id = u.id
    )
    update product_question_answers t set source = n.source, status = n.status, published_at = n.published_at,
      updated_at = now()
    from n
    where t.organization_id = ${organizationId}::uuid and t.id = n.id
      and (t.source, t.status, t.published_at) is distinct from (n.source, n.status, n.published_at)
    returning ${columnList(PRODUCT_QUESTION_ANSWER_COLUMNS, 't')}`.execute(trx);
  return rows;
}
