import { sql } from 'kysely';
import { columnList, type Executor } from '../../db/executor.js';
import { CUSTOMER_COLUMNS, toCustomer, type CustomerFields } from '../../records/customer.js';
import { PRODUCT_COLUMNS, toProduct, type ProductFields } from '../../records/product.js';
import {
  PRODUCT_QUESTION_ANSWER_COLUMNS,
  PRODUCT_QUESTION_COLUMNS,
  toProductQuestionAnswer,
  type ProductQuestionAnswerFields,
  type ProductQuestionFields,
} from '../../records/product-question.js';

export async function findQuestion(
  db: Executor,
  organizationId: string,
  id: string,
  lock = false,
): Promise<ProductQuestionFields | undefined> {
  const { rows } = await sql<ProductQuestionFields>`
    select ${columnList(PRODUCT_QUESTION_COLUMNS)} from product_questions
    where organization_id = ${organizationId}::uuid and id = ${id}::uuid
    ${lock ? sql`for update` : sql``}`.execute(db);
  return rows[0];
}

/** The answers of each question, oldest first, one query for all of them. */
export async function answerRowsOf(
  db: Executor,
  organizationId: string,
  questionIds: readonly string[],
): Promise<Map<string, ProductQuestionAnswerFields[]>> {
  const byQuestion = new Map<string, ProductQuestionAnswerFields[]>(questionIds.map((id) => [id, []]));
  if (questionIds.length === 0) return byQuestion;
  const { rows } = await sql<ProductQuestionAnswerFields>`
    select ${columnList(PRODUCT_QUESTION_ANSWER_COLUMNS)} from product_question_answers
    where organization_id = ${organizationId}::uuid and question_id = any(${[...questionIds]}::uuid[])
    order by question_id, created_at, id`.execute(db);
  for (const row of rows) byQuestion.get(row.question_id)?.push(row);
  return byQuestion;
}

/** include=answers: the API shape of each question's answers. */
export async function answersOfQuestions(
  db: Executor,
  organizationId: string,
  questionIds: readonly string[],
): Promise<Map<string, unknown>> {
  const rows = await answerRowsOf(db, organizationId, questionIds);
  return new Map([...rows].map(([id, answers]) => [id, answers.map(toProductQuestionAnswer)]));
}

/** include=answersCount, one grouped query for the page. */
export async function answerCountsOf(
  db: Executor,
  organizationId: string,
  questionIds: readonly string[],
): Promise<Map<string, unknown>> {
  const { rows } = await sql<{ question_id: string; n: number }>`
    select question_id, count(*)::int as n from product_question_answers
    where organization_id = ${organizationId}::uuid and question_id = any(${[...questionIds]}::uuid[])
    group by question_id`.execute(db);
  return new Map(rows.map((row) => [row.question_id, row.n]));
}

/** include=customer: the asking customer of each question, one query for the page. */
export async function customersOfQuestions(
  db: Executor,
  organizationId: string,
  questionIds: readonly string[],
): Promise<Map<string, unknown>> {
  const { rows } = await sql<CustomerFields & { question_id: string }>`
    select ${columnList(CUSTOMER_COLUMNS, 'c')}, q.id as question_id from product_questions q
    join customers c on c.organization_id = q.organization_id and c.id = q.customer_id
    where q.organization_id = ${organizationId}::uuid and q.id = any(${[...questionIds]}::uuid[])`.execute(db);
  return new Map(rows.map(({ question_id, ...customer }) => [question_id, toCustomer(customer)]));
}

/** include=product: the product each question is about (base fields), one query for the page. */
export async function productsOfQuestions(
  db: Executor,
  organizationId: string,
  questionIds: readonly string[],
): Promise<Map<string, unknown>> {
  const { rows } = await sql<ProductFields & { question_id: string }>`
    select ${columnList(PRODUCT_COLUMNS, 'p')}, q.id as question_id from product_questions q
    join products p on p.organization_id = q.organization_id and p.id = q.product_id
    where q.organization_id = ${organizationId}::uuid and q.id = any(${[...questionIds]}::uuid[])`.execute(db);
  return new Map(rows.map(({ question_id, ...product }) => [question_id, toProduct(product)]));
}

/**
 * `published_at` for a write that sets `status` (docs/api.md#product-questions-and-answers): the time of the first
 * publication of a run of published states, kept while the record stays published, null once it is not; `at` is the
 * publication time a history import brings.
 */
export const publishedAtFor = (status: string, at: string | null = null) =>
  sql`case when ${status}::text = 'published'
    then coalesce(case when status = 'published' then published_at end, ${at}::timestamptz, now()) end`;

export async function findAnswer(
  db: Executor,
  organizationId: string,
  id: string,
  lock = false,
): Promise<ProductQuestionAnswerFields | undefined> {
  const { rows } = await sql<ProductQuestionAnswerFields>`
    select ${columnList(PRODUCT_QUESTION_ANSWER_COLUMNS)} from product_question_answers
    where organization_id = ${organizationId}::uuid and id = ${id}::uuid
    ${lock ? sql`for update` : sql``}`.execute(db);
  return rows[0];
}

export interface AnswerInsert {
  id: string;
  questionId: string;
  body: string;
  authorName: string;
  source: string;
  status: string;
  publishedAt?: string | null | undefined;
  createdAt?: string | undefined;
}

export async function insertAnswers(
  trx: Executor,
  organizationId: string,
  answers: readonly AnswerInsert[],
): Promise<ProductQuestionAnswerFields[]> {
  if (answers.length === 0) return [];
  const json = JSON.stringify(
    answers.map((answer) => ({
      id: answer.id,
      question_id: answer.questionId,
      body: answer.body,
      author_name: answer.authorName,
      source: answer.source,
      status: answer.status,
      published_at: answer.publishedAt ?? null,
      created_at: answer.createdAt ?? null,
    })),
  );
  const { rows } = await sql<ProductQuestionAnswerFields>`
    insert into product_question_answers
      (organization_id, id, question_id, body, author_name, source, status, published_at, created_at, updated_at)
    select ${organizationId}::uuid, u.id, u.question_id, u.body, u.author_name, u.source, u.status,
      case when u.status = 'published' then coalesce(u.published_at, u.created_at, now()) end,
      coalesce(u.created_at, now()), now()
    from json_to_recordset(${json}::json) as u(id uuid, question_id uuid, body text, author_name text, source text,
      status text, published_at timestamptz, created_at timestamptz)
    returning ${columnList(PRODUCT_QUESTION_ANSWER_COLUMNS)}`.execute(trx);
  return rows;
}

export async function deleteAnswerRows(
  trx: Executor,
  organizationId: string,
  ids: readonly string[],
): Promise<ProductQuestionAnswerFields[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<ProductQuestionAnswerFields>`
    delete from product_question_answers where organization_id = ${organizationId}::uuid and id = any(${[...ids]}::uuid[])
    returning ${columnList(PRODUCT_QUESTION_ANSWER_COLUMNS)}`.execute(trx);
  return rows;
}

export async function deleteQuestionRows(trx: Executor, organizationId: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`delete from product_questions where organization_id = ${organizationId}::uuid and id = any(${[...ids]}::uuid[])`.execute(
    trx,
  );
}

/** Locks questions in id order (how every writer takes them) and returns them. */
export async function lockQuestions(
  trx: Executor,
  organizationId: string,
  where: { customerId: string } | { productId: string },
): Promise<ProductQuestionFields[]> {
  const condition =
    'customerId' in where ? sql`customer_id = ${where.customerId}::uuid` : sql`product_id = ${where.productId}::uuid`;
  const { rows } = await sql<ProductQuestionFields>`
    select ${columnList(PRODUCT_QUESTION_COLUMNS)} from product_questions
    where organization_id = ${organizationId}::uuid and ${condition}
    order by id for update`.execute(trx);
  return rows;
}

/**
 * The bulk-update write over the locked ids: status set (publishedAt following it, as a PATCH does), metadata merged
 * and pruned. Only questions whose values change are written and returned.
 */
export async function bulkEditQuestions(
  trx: Executor,
  organizationId: string,
  ids: readonly string[],
  changes: { status?: string | undefined; addMetadata?: Record<string, string>; removeMetadataKeys?: string[] },
): Promise<ProductQuestionFields[]> {
  if (ids.length === 0) return [];
  const status = changes.status ?? null;
  const { rows } = await sql<ProductQuestionFields>`
    with n as (
      select o.id, coalesce(${status}::text, o.status) as status,
        case when coalesce(${status}::text, o.status) = 'published'
          then coalesce(case when o.status = 'published' then o.published_at end, now()) end as published_at,
        (o.metadata || ${JSON.stringify(changes.addMetadata ?? {})}::jsonb) - ${changes.removeMetadataKeys ?? []}::text[]
          as metadata
      from product_questions o where o.organization_id = ${organizationId}::uuid and o.id = any(${[...ids]}::uuid[])
    )
    update product_questions t set status = n.status, published_at = n.published_at, metadata = n.metadata,
      updated_at = now()
    from n
    where t.organization_id = ${organizationId}::uuid and t.id = n.id
      and (t.status, t.published_at, t.metadata) is distinct from (n.status, n.published_at, n.metadata)
    returning ${columnList(PRODUCT_QUESTION_COLUMNS, 't')}`.execute(trx);
  return rows;
}
