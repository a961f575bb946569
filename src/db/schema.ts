import type { ColumnType, Generated } from 'kysely';

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;

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
  /** Rows older than this are treated as absent and swept. */
  expires_at: Date;
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
}

export interface DB {
  organizations: OrganizationsTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
}
