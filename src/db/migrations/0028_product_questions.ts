import { sql, type Kysely } from 'kysely';

/**
 * Product questions and their answers (docs/api.md#product-questions-and-answers).
 *
 * - product_questions: a question about a product, asked by a shopper (imported from the store) or recorded by the
 *   merchant. product_id is null once its product was deleted (the question unlinked); customer_id is null for a
 *   question asked without an account. Neither reference cascades: deleting a product or a customer is done by the
 *   service, which sends the question events of that change.
 * - The import matches on remote_id (unique per organization when present), else on the product, author and text
 *   (product_questions_product_idx narrows that to the product's questions).
 * - Keyset indexes serve the two sorts (docs/api.md#pagination-and-cursors); published_at is nullable, so its index
 *   holds the nulls too and the sort walks it in two ranges. The search is one lowercased expression of body, author
 *   name and author email, a trigram index scoped by organization (btree_gin, as 0006); src/resources/product-questions
 *   /list.ts compares exactly this expression.
 * - product_question_answers: deleted with their question (the question's deletion event carries them).
 */
const STATEMENTS = [
  sql`create table product_questions (
    organization_id uuid not null,
    id uuid not null,
    product_id uuid,
    customer_id uuid,
    author_name text not null,
    author_email text,
    body text not null,
    status text not null check (status in ('pending', 'published', 'rejected')),
    source text not null check (source in ('shopper', 'merchant')),
    remote_id text,
    published_at timestamptz,
    metadata jsonb not null default '{}',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    primary key (organization_id, id),
    foreign key (organization_id, product_id) references products (organization_id, id),
    foreign key (organization_id, customer_id) references customers (organization_id, id))`,
  sql`create unique index product_questions_remote_id_key on product_questions (organization_id, remote_id)
    where remote_id is not null`,
  sql`create index product_questions_product_idx on product_questions (organization_id, product_id, created_at, id)`,
  sql`create index product_questions_customer_idx on product_questions (organization_id, customer_id)`,
  sql`create index product_questions_created_idx on product_questions (organization_id, created_at, id)`,
  sql`create index product_questions_published_idx on product_questions (organization_id, published_at, id)`,
  sql`create index product_questions_text_trgm on product_questions
    using gin (organization_id, lower(body || ' ' || author_name || ' ' || coalesce(author_email, '')) gin_trgm_ops)`,
  sql`create table product_question_answers (
    organization_id uuid not null,
    id uuid not null,
    question_id uuid not null,
    body text not null,
    author_name text not null,
    source text not null check (source in ('merchant', 'shopper')),
    status text not null check (status in ('pending', 'published', 'hidden')),
    published_at timestamptz,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    primary key (organization_id, id),
    foreign key (organization_id, question_id) references product_questions (organization_id, id) on delete cascade)`,
  sql`create index product_question_answers_question_idx
    on product_question_answers (organization_id, question_id, created_at, id)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create extension if not exists pg_trgm`.execute(db);
  await sql`create extension if not exists btree_gin`.execute(db);
  for (const statement of STATEMENTS) await statement.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists product_question_answers`.execute(db);
  await sql`drop table if exists product_questions`.execute(db);
}
