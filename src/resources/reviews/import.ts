import { sql, type Transaction } from 'kysely';
import { uuidv7 } from '../../util/ids.js';
import type { DB } from '../../db/schema.js';
import { recordEvents } from '../../events/outbox.js';
import { validationError } from '../../core/errors.js';
import {
  checkImportSize,
  importCounts,
  importOutcomes,
  refuseDuplicates,
  strictFailure,
  type Skipped,
} from '../../resource-kit/imports.js';
import { resolveCustomers, resolveProducts } from '../../resource-kit/references.js';
import { MAX_METADATA_KEYS } from '../../resource-kit/text.js';
import { notifySummaries, type ReviewChange } from './events.js';
import type { ReviewImportBody, ReviewImportRow } from './schemas.js';
import { REVIEW_COLUMNS, reviewEvent, toReview, type ReviewFields } from '../../records/review.js';
import { columnList } from '../../db/executor.js';

type Row = ReviewImportRow & { index: number };
/** An accepted row, references resolved, and the stored review it updates (locked) when there is one. */
interface Accepted {
  row: Row;
  productId: string;
  customerId: string;
  existing?: ReviewFields | undefined;
}

/**
 * POST /reviews/import: creates or updates reviews. A row matches the review with its remoteId; a row without one
 * (or whose remoteId is new) matches the oldest review of the same customer for the same product that has no
 * remoteId, which then takes the row's remoteId. So importing the same rows twice never duplicates a review.
 * Products (id or slug) and customers (id or email) must exist: a row with a miss is skipped, or with strict the
 * import fails with 422 and writes nothing. Events: review.created per new review, review.updated per review whose
 * values changed (an unchanged row writes nothing and sends nothing).
 */
export async function importReviews(trx: Transaction<DB>, organizationId: string, body: ReviewImportBody) {
  checkImportSize(body.data);
  const rows: Row[] = body.data.map((row, index) => ({ ...row, index }));
  refuseDuplicates(
    rows.map((row) => row.remoteId),
    'remoteId',
    { noun: 'review' },
  );

  const products = await resolveProducts(trx, organizationId, [...new Set(rows.map((row) => row.product))]);
  const customers = await resolveCustomers(trx, organizationId, [...new Set(rows.map((row) => row.customer))]);
  const skipped: Skipped[] = [];
  const resolved: Accepted[] = [];
  for (const row of rows) {
    const productId = products.get(row.product);
    const customerId = customers.get(row.customer);
    if (productId && customerId) {
      resolved.push({ row, productId, customerId });
      continue;
    }
    const missing = [
      ...(productId ? [] : [`product "${row.product}"`]),
      ...(customerId ? [] : [`customer "${row.customer}"`]),
    ];
    const subject = missing.join(' and ');
    const miss = {
      index: row.index,
      message: `${subject.charAt(0).toUpperCase()}${subject.slice(1)} ${missing.length > 1 ? 'do' : 'does'} not exist in this organization.`,
    };
    if (body.strict) throw strictFailure(miss);
    skipped.push(miss);
  }
  refuseSameAuthor(resolved);
  const accepted = await matchExisting(trx, organizationId, resolved);

  const created = await insertReviews(
    trx,
    organizationId,
    accepted.filter((entry) => !entry.existing),
  );
  const updated = await updateReviews(
    trx,
    organizationId,
    accepted.filter((entry) => entry.existing),
    Boolean(body.mergeMetadata),
  );
  const overfull = updated.find((row) => Object.keys(row.metadata).length > MAX_METADATA_KEYS);
  if (overfull) {
    const entry = accepted.find((candidate) => candidate.existing?.id === overfull.id)!;
    throw validationError(
      `Invalid request: merging body.data[${entry.row.index}].metadata would leave the review with more than ${MAX_METADATA_KEYS} metadata keys; nothing was imported.`,
      [
        {
          path: `body.data[${entry.row.index}].metadata`,
          message: `would exceed ${MAX_METADATA_KEYS} keys once merged`,
        },
      ],
    );
  }

  const outcomes = importOutcomes(
    accepted.map((entry) => ({ id: entry.existing?.id ?? entry.newId!, existing: entry.existing })),
    created,
    updated,
  );
  const changes: ReviewChange[] = [];
  const events = [];
  for (const [at, entry] of accepted.entries()) {
    const { record, action } = outcomes[at]!;
    if (action === 'created') {
      changes.push({ after: record });
      events.push(reviewEvent(organizationId, 'review.created', record));
    } else if (action === 'updated') {
      changes.push({ before: entry.existing, after: record });
      events.push(reviewEvent(organizationId, 'review.updated', record));
    }
  }
  const data = outcomes.map(({ record }) => toReview(record));
  await notifySummaries(trx, organizationId, changes);
  await recordEvents(trx, events);
  return { data, skipped, ...importCounts(outcomes) };
}

/** Two rows without remoteId for the same customer and product would update one review twice: 400 naming them. */
function refuseSameAuthor(rows: readonly Accepted[]): void {
  const seen = new Map<string, number>();
  for (const { row, productId, customerId } of rows) {
    if (row.remoteId !== undefined) continue;
    const key = `${productId}/${customerId}`;
    const first = seen.get(key);
    if (first !== undefined) {
      throw validationError(
        `Invalid request: body.data[${row.index}] and body.data[${first}] are reviews of the same product by the same customer without a remoteId, so they would be the same review; send it once, or give each a remoteId.`,
        [
          {
            path: `body.data[${row.index}]`,
            message: `names the same product and customer as body.data[${first}] without a remoteId`,
          },
        ],
      );
    }
    seen.set(key, row.index);
  }
}

type Matched = Accepted & { newId?: string };

/**
 * The stored review each row updates, locked until commit: by remoteId first, else the oldest review of the same
 * customer and product without a remoteId (each claimed by one row at most). Each lookup probes an index once per
 * row (lateral subqueries), never a scan of the organization's reviews.
 */
async function matchExisting(
  trx: Transaction<DB>,
  organizationId: string,
  rows: readonly Accepted[],
): Promise<Matched[]> {
  const remoteIds = rows.flatMap((entry) => (entry.row.remoteId !== undefined ? [entry.row.remoteId] : []));
  const byRemoteId = new Map<string, ReviewFields>();
  if (remoteIds.length) {
    const { rows: found } = await sql<ReviewFields & { remote_id: string }>`
      select x.* from unnest(${remoteIds}::text[]) as k(remote_id)
      cross join lateral (
        select ${columnList(REVIEW_COLUMNS)}, remote_id from reviews
        where organization_id = ${organizationId}::uuid and remote_id = k.remote_id for update
      ) x`.execute(trx);
    for (const row of found) byRemoteId.set(row.remote_id, row);
  }
  const unmatched = rows.filter((entry) => entry.row.remoteId === undefined || !byRemoteId.has(entry.row.remoteId));
  const byAuthor = new Map<string, ReviewFields>();
  if (unmatched.length) {
    const { rows: found } = await sql<ReviewFields>`
      select x.* from unnest(${unmatched.map((entry) => entry.productId)}::uuid[], ${unmatched.map((entry) => entry.customerId)}::uuid[])
        as k(product_id, customer_id)
      cross join lateral (
        select ${columnList(REVIEW_COLUMNS)} from reviews
        where organization_id = ${organizationId}::uuid and customer_id = k.customer_id and product_id = k.product_id and remote_id is null
        order by created_at, id limit 1 for update
      ) x`.execute(trx);
    for (const row of found) byAuthor.set(`${row.product_id}/${row.customer_id}`, row);
  }
  const claimed = new Set<string>();
  return rows.map((entry) => {
    const byRemote = entry.row.remoteId !== undefined ? byRemoteId.get(entry.row.remoteId) : undefined;
    if (byRemote) return { ...entry, existing: byRemote };
    const legacy = byAuthor.get(`${entry.productId}/${entry.customerId}`);
    if (legacy && !claimed.has(legacy.id)) {
      claimed.add(legacy.id);
      return { ...entry, existing: legacy };
    }
    return { ...entry, newId: uuidv7() };
  });
}

/**
 * The rows as one JSON parameter unpacked by json_to_recordset (one bind parameter for any number of rows). A key a
 * row omits reads as null; language carries a `_sent` flag to tell "not sent" (keep) from null (clear).
 */
const writesJson = (entries: readonly Matched[]) =>
  JSON.stringify(
    entries.map(({ row, productId, customerId, existing, newId }) => ({
      id: existing?.id ?? newId,
      product_id: productId,
      customer_id: customerId,
      remote_id: row.remoteId,
      rating: row.rating,
      title: row.title,
      body: row.body,
      published: row.published,
      verified_buyer: row.verifiedBuyer,
      flagged: row.flagged,
      language: row.language,
      language_sent: row.language !== undefined,
      answers: row.answers,
      metadata: row.metadata,
      created_at: row.createdAt,
    })),
  );

const WRITE_COLUMNS =
  sql.raw(`id uuid, product_id uuid, customer_id uuid, remote_id text, rating int, title text, body text,
  published boolean, verified_buyer boolean, flagged boolean, language text, language_sent boolean, answers jsonb, metadata jsonb,
  created_at timestamptz`);

async function insertReviews(
  trx: Transaction<DB>,
  organizationId: string,
  entries: readonly Matched[],
): Promise<ReviewFields[]> {
  if (entries.length === 0) return [];
  const { rows } = await sql<ReviewFields>`
    insert into reviews (organization_id, id, product_id, customer_id, remote_id, rating, title, body, published, verified_buyer,
      flagged, language, answers, metadata, created_at, updated_at)
    select ${organizationId}::uuid, u.id, u.product_id, u.customer_id, u.remote_id, u.rating, coalesce(u.title, ''), coalesce(u.body, ''),
      coalesce(u.published, false), coalesce(u.verified_buyer, false), coalesce(u.flagged, false), u.language,
      coalesce(u.answers, '[]'::jsonb), coalesce(u.metadata, '{}'::jsonb), coalesce(u.created_at, now()), coalesce(u.created_at, now())
    from json_to_recordset(${writesJson(entries)}::json) as u(${WRITE_COLUMNS})
    returning ${columnList(REVIEW_COLUMNS)}`.execute(trx);
  return rows;
}

/**
 * Updates the matched reviews: product, customer and rating are always sent; every other field a row omits keeps its
 * stored value. Only reviews whose values change are written and returned (updatedAt moves, an event is due).
 */
async function updateReviews(
  trx: Transaction<DB>,
  organizationId: string,
  entries: readonly Matched[],
  mergeMetadata: boolean,
): Promise<ReviewFields[]> {
  if (entries.length === 0) return [];
  const { rows } = await sql<ReviewFields>`
    with n as (
      select o.id, u.product_id, u.customer_id, coalesce(u.remote_id, o.remote_id) as remote_id, u.rating,
        coalesce(u.title, o.title) as title, coalesce(u.body, o.body) as body, coalesce(u.published, o.published) as published,
        coalesce(u.verified_buyer, o.verified_buyer) as verified_buyer, coalesce(u.flagged, o.flagged) as flagged,
        case when u.language_sent then u.language else o.language end as language, coalesce(u.answers, o.answers) as answers,
        case when u.metadata is null then o.metadata when ${mergeMetadata} then o.metadata || u.metadata else u.metadata end as metadata,
        coalesce(u.created_at, o.created_at) as created_at
      from json_to_recordset(${writesJson(entries)}::json) as u(${WRITE_COLUMNS})
      join reviews o on o.organization_id = ${organizationId}::uuid and o.id = u.id
    )
    update reviews t set
      product_id = n.product_id, customer_id = n.customer_id, remote_id = n.remote_id, rating = n.rating, title = n.title,
      body = n.body, published = n.published, verified_buyer = n.verified_buyer, flagged = n.flagged, language = n.language,
      answers = n.answers, metadata = n.metadata, created_at = n.created_at, updated_at = now()
    from n
    where t.organization_id = ${organizationId}::uuid and t.id = n.id
      and (t.product_id, t.customer_id, t.remote_id, t.rating, t.title, t.body, t.published, t.verified_buyer, t.flagged, t.language,
        t.answers, t.metadata, date_trunc('milliseconds', t.created_at))
      is distinct from (n.product_id, n.customer_id, n.remote_id, n.rating, n.title, n.body, n.published, n.verified_buyer, n.flagged,
        n.language, n.answers, n.metadata, date_trunc('milliseconds', n.created_at))
    returning ${columnList(REVIEW_COLUMNS, 't')}`.execute(trx);
  return rows;
}
