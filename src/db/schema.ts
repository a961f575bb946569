import type { ColumnType, Generated } from 'kysely';

export type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
export type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;

/** The tenant root. Not a tenant table itself: its id is the organization_id every tenant row carries. */
export interface OrganizationsTable {
  id: string;
  name: string;
  timezone: string;
  api_requests_per_minute: Generated<number>;
  loyalty_events_per_minute: Generated<number>;
  loyalty_stamps_per_minute: Generated<number>;
  cascade_delete_reviews: Generated<boolean>;
  review_summary_min_reviews: Generated<number>;
  expiring_soon_days: Generated<number>;
  /** The default API version of the organization's key requests and endpoints (migration 0039). */
  api_version: Generated<string>;
  /**
   * Set on a test twin: the live organization it belongs to (migration 0038, docs/api.md#test-mode); null for a live
   * organization.
   */
  live_organization_id: Generated<string | null>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface ApiKeysTable {
  organization_id: string;
  id: string;
  name: string | null;
  /** The first characters of the key, shown in listings so an operator can tell keys apart. */
  prefix: string;
  /** Hex SHA-256 of the whole key; the key itself is never stored. */
  key_hash: string;
  permissions: string[];
  created_at: CreatedAt;
  revoked_at: Date | null;
}

export interface IdempotencyKeysTable {
  organization_id: string;
  key: string;
  fingerprint: string;
  state: 'in_progress' | 'completed';
  status_code: number | null;
  content_type: string | null;
  response_body: string | null;
  /** Rewritten when an expired or abandoned key is claimed again. */
  created_at: UpdatedAt;
  /** Rows older than this are treated as absent and deleted by the retention job. */
  expires_at: Date;
  /** The server_processes id of the process running the first request, while it is in progress. */
  owner_process: string | null;
}

/** The dashboard's roles (docs/api.md#dashboard-sessions). */
export type UserRole = 'owner' | 'admin' | 'viewer';

/** A person who signs in to the dashboard; the email is unique across the deployment, compared in lowercase. */
export interface UsersTable {
  organization_id: string;
  id: string;
  email: string;
  name: string | null;
  role: UserRole;
  /** Self-describing scrypt hash (src/auth/passwords.ts); null until the user sets a password. */
  password_hash: string | null;
  created_at: CreatedAt;
  last_signed_in_at: Date | null;
  /** One of USER_LOCALES (src/records/user.ts); `en` until the user picks another. */
  locale: Generated<string>;
}

/** A signed-in dashboard session; the cookie's token is stored only as its SHA-256. */
export interface SessionsTable {
  organization_id: string;
  id: string;
  user_id: string;
  token_hash: string;
  csrf_token: string;
  created_at: CreatedAt;
  last_used_at: Generated<Date>;
  /** The latest the session may live, whatever its use: 7 days after sign-in. */
  expires_at: Date;
  /** The session acts on the test twin of its user's organization (docs/api.md#test-mode). */
  test_mode: Generated<boolean>;
  /**
   * Until when the session may set a new password without the current one: an hour after a sign-in with a one-time
   * link, until a password is set (migration 0041, docs/api.md#forgotten-passwords).
   */
  password_reset_until: Generated<Date | null>;
}

/** A one-time sign-in link; the token (in the link's fragment) is stored only as its SHA-256. */
export interface SignInLinksTable {
  organization_id: string;
  id: string;
  user_id: string;
  token_hash: string;
  created_at: CreatedAt;
  expires_at: Date;
  used_at: Date | null;
  /** A "forgot password" link (migration 0041): its sign-in may set a new password without the current one. */
  for_password_reset: Generated<boolean>;
}

/** One request of POST /v1/session/password-reset, for its limits (migration 0041). Global, like sign_in_failures. */
export interface PasswordResetRequestsTable {
  email: string;
  id: string;
  ip: string;
  requested_at: Generated<Date>;
}

/** A failed sign-in for an email (lowercased), known or not. Global: not a tenant table. */
export interface SignInFailuresTable {
  email: string;
  id: string;
  failed_at: Generated<Date>;
}

/** The API processes alive, each renewing its row (docs/api.md#idempotency-keys). Global: not a tenant table. */
export interface ServerProcessesTable {
  id: string;
  started_at: Generated<Date>;
  renewed_at: Generated<Date>;
}

/** The outbox: written in the same transaction as the change that caused it. */
export interface EventsTable {
  organization_id: string;
  id: string;
  name: string;
  payload: ColumnType<unknown, string, never>;
  created_at: CreatedAt;
  /** Global insertion order, used by the dispatcher to keep per-endpoint order. */
  position: Generated<string>;
  /** The id of the record the event is about (its payload's `id`), null where the payload has none (migration 0036). */
  object_id: Generated<string | null>;
}

/** A jsonb column with a database default: optional on insert, written as JSON text or a value. */
type Json<T> = ColumnType<T, string | T | undefined, string | T>;
export type Metadata = Record<string, string>;

/** A saved view of one list (docs/api.md#quick-filters). */
export interface QuickFiltersTable {
  organization_id: string;
  id: string;
  resource: string;
  name: string;
  filter: Json<Record<string, unknown>>;
  search: string | null;
  sort: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface EmailTemplatesTable {
  organization_id: string;
  id: string;
  name: string;
  kind: string;
  subject: string;
  html: string;
  text: string;
  locale: string;
  is_active: boolean;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface SitesTable {
  organization_id: string;
  id: string;
  name: string;
  domain: string;
  platform: string;
  currency_code: string;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type EmailOptOutSource = 'customer' | 'merchant' | 'import' | 'platform';

export interface CustomersTable {
  organization_id: string;
  id: string;
  email: string;
  phone: string | null;
  first_name: string | null;
  last_name: string | null;
  country: string | null;
  birthday: string | null;
  metadata: Json<Metadata>;
  notes: string | null;
  email_opt_out: Generated<boolean>;
  email_opt_out_at: Date | null;
  email_opt_out_source: EmailOptOutSource | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface ProductsTable {
  organization_id: string;
  id: string;
  slug: string;
  title: Generated<string>;
  description: Generated<string>;
  image_url: Generated<string>;
  url: Generated<string>;
  metadata: Json<Metadata>;
  notes: Generated<string>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface ProductVariantsTable {
  organization_id: string;
  id: string;
  product_id: string;
  slug: string;
  title: Generated<string>;
  image_url: Generated<string>;
  price_cents: Generated<number>;
  currency_code: Generated<string>;
  available: Generated<boolean>;
  metadata: Json<Metadata>;
  position: Generated<number>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface ProductSitesTable {
  organization_id: string;
  product_id: string;
  site_id: string;
}

export type TagKind = 'customer' | 'order' | 'product';

export interface TagsTable {
  organization_id: string;
  id: string;
  kind: TagKind;
  name: string;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface OrdersTable {
  organization_id: string;
  id: string;
  site_id: string;
  customer_id: string;
  remote_id: string;
  number: string;
  total_cents: Generated<number>;
  subtotal_cents: Generated<number>;
  shipping_cents: Generated<number>;
  tax_cents: Generated<number>;
  currency_code: string;
  shipped_at: Date | null;
  delivered_at: Date | null;
  cancelled_at: Date | null;
  metadata: Json<Metadata>;
  notes: Generated<string>;
  earn_loyalty: Generated<boolean>;
  discount_codes: Generated<string[]>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface OrderItemsTable {
  organization_id: string;
  id: string;
  order_id: string;
  product_id: string;
  product_variant_id: string;
  quantity: number;
  unit_price_cents: number;
  position: Generated<number>;
}

export interface CustomerTagsTable {
  organization_id: string;
  customer_id: string;
  tag_id: string;
}
export interface OrderTagsTable {
  organization_id: string;
  order_id: string;
  tag_id: string;
}
export interface ProductTagsTable {
  organization_id: string;
  product_id: string;
  tag_id: string;
}

export interface ImportJobRecordsTable {
  organization_id: string;
  import_job_id: string;
  record_id: string;
  type: string;
  action: 'created' | 'updated';
  row: number;
  created_at: CreatedAt;
}

export interface ReviewsTable {
  organization_id: string;
  id: string;
  product_id: string | null;
  customer_id: string | null;
  rating: number;
  title: Generated<string>;
  body: Generated<string>;
  published: Generated<boolean>;
  verified_buyer: Generated<boolean>;
  flagged: Generated<boolean>;
  language: string | null;
  answers: Json<{ question: string; step: number }[]>;
  metadata: Json<Metadata>;
  /** Identifier in the system the review was imported from (migration 0012); import matches on it. */
  remote_id: string | null;
  /** The merchant's reply (migration 0040, docs/api.md#review-replies): all six set, or all null. */
  reply_body: string | null;
  reply_created_at: Date | null;
  reply_updated_at: Date | null;
  reply_author_type: 'apiKey' | 'user' | null;
  reply_author_id: string | null;
  reply_author_label: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** A customer's named list of products (migration 0027, docs/api.md#wishlists). */
export interface WishlistsTable {
  organization_id: string;
  id: string;
  customer_id: string;
  name: string;
  /** Identifier in the system the wishlist was imported from; import matches on it. */
  remote_id: string | null;
  metadata: Json<Metadata>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** A product (and optionally one of its variants) held by a wishlist (migration 0027). */
export interface WishlistItemsTable {
  organization_id: string;
  id: string;
  wishlist_id: string;
  product_id: string;
  product_variant_id: string | null;
  note: string | null;
  added_at: CreatedAt;
}

/**
 * How many wishlists hold a product (migration 0031, docs/api.md#wishlists): a row only while at least one does, so
 * a product without one counts 0.
 */
export interface ProductWishlistCountsTable {
  organization_id: string;
  product_id: string;
  wishlists_count: number;
}

/** A question about a product, asked by a shopper or recorded by the merchant (migration 0028). */
export interface ProductQuestionsTable {
  organization_id: string;
  id: string;
  /** Null once the product was deleted and the question unlinked. */
  product_id: string | null;
  customer_id: string | null;
  author_name: string;
  author_email: string | null;
  body: string;
  status: 'pending' | 'published' | 'rejected';
  source: 'shopper' | 'merchant';
  /** Identifier in the system the question was imported from; import matches on it. */
  remote_id: string | null;
  published_at: Date | null;
  metadata: Json<Metadata>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** An answer to a product question (migration 0028); deleted with its question. */
export interface ProductQuestionAnswersTable {
  organization_id: string;
  id: string;
  question_id: string;
  body: string;
  author_name: string;
  source: 'merchant' | 'shopper';
  status: 'pending' | 'published' | 'hidden';
  published_at: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** A subscriber to events (service.md "Webhook endpoint"). The secret is stored AES-256-GCM encrypted. */
export interface WebhookEndpointsTable {
  organization_id: string;
  id: string;
  url: string;
  is_active: Generated<boolean>;
  events: ColumnType<string[], string[] | undefined, string[]>;
  secret_ciphertext: string | null;
  /** After a rotation (migration 0023): the secret it replaced, which signs beside the new one until it expires. */
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: Date | null;
  /** The last delivery sequence handed out; bumped under the row lock so sequences follow commit order. */
  last_sequence: ColumnType<string, string | number | undefined, string | number>;
  /** The dispatcher holding this endpoint's queue, and until when. */
  lease_owner: string | null;
  lease_expires_at: Date | null;
  /** The dispatch cursor (migration 0011): deliveries up to dispatched_through were claimed, up to settled_through finished. */
  dispatched_through: ColumnType<string, string | number | undefined, string | number>;
  settled_through: ColumnType<string, string | number | undefined, string | number>;
  /** The API version its deliveries are rendered in (migration 0039); null: the organization's. */
  api_version: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type DeliveryStatus = 'pending' | 'sending' | 'succeeded' | 'failed';

/** One POST of one event to one endpoint (service.md "Webhook delivery record"). */
export interface WebhookDeliveriesTable {
  organization_id: string;
  id: string;
  webhook_id: string;
  sequence: ColumnType<string, string | number, string | number>;
  event_id: string | null;
  event_name: string;
  idempotency_key: string;
  url: string;
  /** The envelope sent, as JSON text in the API's key order; null for a recorded event's delivery (composed from the event). */
  payload: ColumnType<unknown, string, string>;
  status: ColumnType<DeliveryStatus, DeliveryStatus | undefined, DeliveryStatus>;
  error: string | null;
  response_status: number | null;
  attempted_at: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
  /** Sent by hand (a resend, a test ping, POST /events/{id}/deliver) rather than fanned out (migration 0036). */
  requested: Generated<boolean>;
}

/* ---- Loyalty (migration 0009) ---- */

export type RewardExpiryJson =
  { type: 'never' } | { type: 'daysAfterIssuance'; days: number } | { type: 'fixedDate'; expiresAt: string };

export interface LoyaltyProgramsTable {
  organization_id: string;
  id: string;
  name: string;
  points_name: Generated<string>;
  default_reward_expiry: Json<RewardExpiryJson>;
  /** Days after earning that points lapse; null = never. */
  points_expiry_days: number | null;
  tier_window: ColumnType<'lifetime' | 'rolling', 'lifetime' | 'rolling' | undefined, 'lifetime' | 'rolling'>;
  /** Months of the rolling window; set exactly when tier_window is rolling. */
  tier_window_months: number | null;
  metadata: Json<Metadata>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface LoyaltyTiersTable {
  organization_id: string;
  id: string;
  loyalty_program_id: string;
  name: string;
  threshold_points: number;
  position: Generated<number>;
  metadata: Json<Metadata>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type LoyaltyRuleSection = 'rules' | 'rewards' | 'offers' | 'stampCards';

export interface LoyaltyRulesTable {
  organization_id: string;
  id: string;
  loyalty_program_id: string;
  section: LoyaltyRuleSection;
  name: string;
  /** Section-specific configuration, shaped by src/records/loyalty/rule-config.ts, checked by src/resources/loyalty/rules/config.ts. */
  config: ColumnType<Record<string, unknown>, string | Record<string, unknown>, string | Record<string, unknown>>;
  is_active: Generated<boolean>;
  metadata: Json<Metadata>;
  /** Set by DELETE: the rule leaves configuration but rewards keep pointing at it. */
  deleted_at: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface LoyaltyMembershipsTable {
  organization_id: string;
  id: string;
  customer_id: string;
  loyalty_program_id: string;
  loyalty_tier_id: string | null;
  tier_assigned_manually: Generated<boolean>;
  tier_attained_at: Date | null;
  tier_review_at: Date | null;
  left_at: Date | null;
  referral_code: string;
  referred_by_membership_id: string | null;
  /** Changed only by the ledger (src/resources/loyalty-points/ledger.ts). */
  points_balance: Generated<number>;
  lifetime_points: Generated<number>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type LoyaltyTransactionKind = 'earned' | 'spent' | 'adjusted' | 'expired';

export interface LoyaltyTransactionsTable {
  organization_id: string;
  id: string;
  loyalty_membership_id: string;
  customer_id: string;
  kind: LoyaltyTransactionKind;
  points: number;
  balance_after: number;
  reason: string | null;
  loyalty_rule_id: string | null;
  loyalty_reward_id: string | null;
  order_id: string | null;
  event_name: string | null;
  /** Idempotency of earning (e.g. `order:<id>:rule:<id>`), unique per membership. */
  source_key: string | null;
  expires_at: Date | null;
  /** For credits: the points not yet spent or expired; null for debits. */
  remaining: number | null;
  expiring_soon_sent_at: Date | null;
  metadata: Json<Metadata>;
  created_at: CreatedAt;
}

export interface StampCardsTable {
  organization_id: string;
  id: string;
  loyalty_membership_id: string;
  loyalty_rule_id: string;
  stamps: Generated<number>;
  stamps_required: number;
  completed_at: Date | null;
  loyalty_reward_id: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type LoyaltyRewardStatus = 'pending' | 'redeemed' | 'expired' | 'revoked';

export interface LoyaltyRewardsTable {
  organization_id: string;
  id: string;
  loyalty_membership_id: string;
  /** The membership's customer, copied so customer.* filters join customers directly. */
  customer_id: string;
  loyalty_rule_id: string | null;
  stamp_card_id: string | null;
  loyalty_transaction_id: string | null;
  reward: ColumnType<Record<string, unknown>, string | Record<string, unknown>, string | Record<string, unknown>>;
  status: ColumnType<LoyaltyRewardStatus, LoyaltyRewardStatus | undefined, LoyaltyRewardStatus>;
  code: string | null;
  redeemed_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  metadata: Json<Metadata>;
  fulfillment: ColumnType<
    Record<string, unknown> | null,
    string | Record<string, unknown> | null | undefined,
    string | Record<string, unknown> | null
  >;
  rule_snapshot: ColumnType<
    Record<string, unknown> | null,
    string | Record<string, unknown> | null | undefined,
    string | Record<string, unknown> | null
  >;
  reason: string | null;
  order_id: string | null;
  expiring_soon_sent_at: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface LoyaltyActivityTable {
  organization_id: string;
  id: string;
  loyalty_membership_id: string;
  customer_id: string;
  /** The entry's kind (ACTIVITY_KINDS in src/records/loyalty/activity-entry.ts), e.g. pointsEarned, tierChanged. */
  type: string;
  reason: string | null;
  /** The points a points entry moved (signed); null for the others. */
  points: number | null;
  loyalty_reward_id: string | null;
  loyalty_transaction_id: string | null;
  loyalty_tier_id: string | null;
  stamp_card_id: string | null;
  data: Json<Record<string, unknown>>;
  created_at: CreatedAt;
}

export interface ReferralsTable {
  organization_id: string;
  id: string;
  referrer_membership_id: string;
  referred_membership_id: string | null;
  referred_customer_id: string | null;
  status: ColumnType<'pending' | 'attributed', 'pending' | 'attributed' | undefined, 'pending' | 'attributed'>;
  order_id: string | null;
  attributed_at: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/** Overnight and queued work, one row per (organization, name, run key). */
export type BulkJobType = 'import' | 'export';
export type BulkJobFormat = 'csv' | 'jsonl';
export type BulkJobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/**
 * An import or export job (migration 0029, docs/api.md#export-jobs). `parameters` holds what the job was asked for
 * (an export's resource selection); `position` where its run stopped, committed with each chunk.
 */
export interface BulkJobsTable {
  organization_id: string;
  id: string;
  type: BulkJobType;
  resource: string;
  format: BulkJobFormat;
  status: ColumnType<BulkJobStatus, BulkJobStatus | undefined, BulkJobStatus>;
  parameters: Json<Record<string, unknown>>;
  rows_total: number | null;
  rows_processed: Generated<number>;
  created: Generated<number>;
  updated: Generated<number>;
  skipped: Generated<number>;
  unchanged: Generated<number>;
  error: string | null;
  position: Json<Record<string, unknown>> | null;
  created_at: CreatedAt;
  started_at: Date | null;
  finished_at: Date | null;
  expires_at: Date | null;
  /** False for a job of an organization's test twin (migration 0038, docs/api.md#test-mode). */
  livemode: Generated<boolean>;
}

/** One chunk of an export's gzip file (migration 0029): the rows of one page of the walk; in `seq` order, one gzip. */
export interface BulkJobChunksTable {
  organization_id: string;
  job_id: string;
  seq: number;
  data: Uint8Array;
  rows: number;
}

/**
 * A batch of an import job's rows, staged until the job has written it (migration 0030, docs/api.md#import-jobs):
 * `rows` holds `[index, line, row, problem]` per row: its index in the file, the line it starts on, the row as the
 * synchronous import takes it, and why it cannot be imported as it is (or null).
 */
export interface BulkJobRowsTable {
  organization_id: string;
  job_id: string;
  first_index: number;
  rows: Json<unknown[]>;
}

/** A row (or an order's item) an import job skipped, and why (migration 0030). */
export interface BulkJobSkippedTable {
  organization_id: string;
  job_id: string;
  id: string;
  row_index: number;
  item_index: number | null;
  line: number;
  message: string;
}

export interface JobsTable {
  organization_id: string;
  id: string;
  name: string;
  run_key: string;
  status: ColumnType<JobStatus, JobStatus | undefined, JobStatus>;
  run_after: ColumnType<Date, Date | string | undefined, Date | string>;
  claimed_by: string | null;
  lease_expires_at: Date | null;
  attempts: Generated<number>;
  last_error: string | null;
  result: ColumnType<unknown, string | null | undefined, string | null>;
  started_at: Date | null;
  finished_at: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/**
 * A product's generated review summary (migration 0013). `current`/`previous` are versions in their API shape;
 * the fingerprints tell the overnight refresh whether the product's summarizable reviews changed since.
 */
export interface ReviewSummariesTable {
  organization_id: string;
  product_id: string;
  current: ColumnType<unknown, string | null | undefined, string | null>;
  previous: ColumnType<unknown, string | null | undefined, string | null>;
  suppressed_at: Date | null;
  pending_since: Date | null;
  pending_reason: 'threshold' | 'manual' | 'refresh' | 'withdrawn' | null;
  regenerate_requested_at: Date | null;
  reviews_fingerprint: string | null;
  summary_fingerprint: string | null;
  /** The reviews `current`'s words come from (0015); a summary drawing on a withdrawn one is regenerated at once. */
  current_source_ids: string[] | null;
  /** The reviews `previous`'s words come from (0015). */
  previous_source_ids: string[] | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type MailKind =
  'surveyRequest' | 'rewardIssued' | 'rewardExpiringSoon' | 'pointsExpiringSoon' | 'reviewReplied' | 'passwordReset';
export type MailStatus = 'queued' | 'sending' | 'sent' | 'logged' | 'suppressed' | 'failed' | 'interrupted';

/** The mail outbox and log (migration 0034, docs/api.md#mail). */
export interface MailTable {
  organization_id: string;
  id: string;
  kind: MailKind;
  marketing: boolean;
  recipient: string;
  customer_id: string | null;
  subject: string;
  html: string;
  text: string;
  status: Generated<MailStatus>;
  error: string | null;
  smtp_response: string | null;
  message_id: string | null;
  due_at: Generated<Date>;
  claimed_by: string | null;
  claimed_until: Date | null;
  attempts: Generated<number>;
  sent_at: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type SurveyTrigger = 'orderShipped' | 'orderDelivered';
export type SurveyStatus = 'scheduled' | 'sent' | 'suppressed' | 'failed' | 'answered';
export type SurveyQuestionKind = 'rating' | 'choice' | 'text';
export interface SurveyQuestion {
  id: string;
  text: string;
  kind: SurveyQuestionKind;
  choices?: string[];
}
export interface SurveyAnswer {
  questionId: string;
  step?: number;
  choice?: string;
  text?: string;
}

/** Survey flows (migration 0035, docs/api.md#surveys). */
export interface SurveyFlowsTable {
  organization_id: string;
  id: string;
  name: string;
  trigger: SurveyTrigger;
  delay_days: number;
  email_template_id: string;
  questions: Json<SurveyQuestion[]>;
  is_active: Generated<boolean>;
  metadata: Json<Metadata>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/** Surveys, one per order and flow (migration 0035, docs/api.md#surveys). */
export interface SurveysTable {
  organization_id: string;
  id: string;
  survey_flow_id: string;
  customer_id: string;
  order_id: string;
  status: Generated<SurveyStatus>;
  scheduled_for: Date;
  sent_at: Date | null;
  answered_at: Date | null;
  answers: Json<SurveyAnswer[]>;
  mail_id: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

/**
 * Every table's row type. The tables that predate it are here; a new table's type is declared beside its record by
 * module augmentation (`declare module '../db/schema.js' { interface DB { <table>: <Name>Table } }`,
 * docs/architecture.md#a-new-resource), which every file compiled with it sees.
 */
export interface DB {
  organizations: OrganizationsTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  server_processes: ServerProcessesTable;
  users: UsersTable;
  sessions: SessionsTable;
  sign_in_links: SignInLinksTable;
  sign_in_failures: SignInFailuresTable;
  password_reset_requests: PasswordResetRequestsTable;
  events: EventsTable;
  sites: SitesTable;
  quick_filters: QuickFiltersTable;
  email_templates: EmailTemplatesTable;
  customers: CustomersTable;
  products: ProductsTable;
  product_variants: ProductVariantsTable;
  product_sites: ProductSitesTable;
  tags: TagsTable;
  orders: OrdersTable;
  order_items: OrderItemsTable;
  customer_tags: CustomerTagsTable;
  order_tags: OrderTagsTable;
  product_tags: ProductTagsTable;
  import_job_records: ImportJobRecordsTable;
  reviews: ReviewsTable;
  wishlists: WishlistsTable;
  wishlist_items: WishlistItemsTable;
  product_wishlist_counts: ProductWishlistCountsTable;
  product_questions: ProductQuestionsTable;
  product_question_answers: ProductQuestionAnswersTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  /** View (migration 0011): deliveries as the API shows them, the envelope composed where the row does not store it. */
  webhook_delivery_records: WebhookDeliveriesTable;
  loyalty_programs: LoyaltyProgramsTable;
  loyalty_tiers: LoyaltyTiersTable;
  loyalty_rules: LoyaltyRulesTable;
  loyalty_memberships: LoyaltyMembershipsTable;
  loyalty_transactions: LoyaltyTransactionsTable;
  stamp_cards: StampCardsTable;
  loyalty_rewards: LoyaltyRewardsTable;
  loyalty_activity: LoyaltyActivityTable;
  referrals: ReferralsTable;
  jobs: JobsTable;
  bulk_jobs: BulkJobsTable;
  bulk_job_chunks: BulkJobChunksTable;
  bulk_job_rows: BulkJobRowsTable;
  bulk_job_skipped: BulkJobSkippedTable;
  review_summaries: ReviewSummariesTable;
  mail: MailTable;
  survey_flows: SurveyFlowsTable;
  surveys: SurveysTable;
}
