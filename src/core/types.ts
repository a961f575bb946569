import type { Plan } from '../ratelimit/types.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Kysely, Selectable } from 'kysely';
import type { Registry } from 'prom-client';
import type { Config } from '../config/index.js';
import type { JobDefinition } from './job-definition.js';
import type { Database } from '../db/engine.js';
import type { DB, SessionsTable, UsersTable } from '../db/schema.js';
import type { EndpointBucket } from '../ratelimit/buckets.js';
import type { SecretBox } from './secret-box.js';
import type { CascadeEdge, CascadeRegistry } from './cascades.js';

/** The Fastify instance every resource registers its routes on: TypeBox schemas type the handlers. */
export type PatronApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** What a live session resolves to: the session, its user, and the organization's name and plan. */
export interface SessionLookup {
  session: Selectable<SessionsTable>;
  user: Selectable<UsersTable>;
  /** The user's (live) organization; the session acts on `testOrganizationId` instead while `session.test_mode`. */
  organization: {
    id: string;
    name: string;
    /** Its test twin (docs/api.md#test-mode). */
    testOrganizationId: string;
    api_requests_per_minute: number;
    loyalty_events_per_minute: number;
    loyalty_stamps_per_minute: number;
  };
}

/**
 * Who is calling: resolved before anything else runs, from the Bearer key, or without an Authorization header from
 * the dashboard session's cookie (docs/api.md#dashboard-sessions).
 */
export interface AuthContext {
  /** Set when a secret key authenticated the request. */
  keyId?: string;
  /** The key's visible prefix (`sk_` or `sk_test_`, and 8 characters), which identifies it in logs and key lists. */
  keyPrefix?: string;
  /** Set when a dashboard session authenticated the request: never charged to the organization's buckets. */
  session?: SessionLookup;
  /** The organization the caller acts on: a test key's, or a test-mode session's, is the test twin. */
  organizationId: string;
  /** False when the caller acts on a test twin (docs/api.md#test-mode). */
  livemode: boolean;
  /** What the key holds, or what the session's user's role grants, written out from the catalog. */
  permissions: string[];
  plan: Plan;
  /** The organization's default API version, for a key's requests (docs/api.md#api-versions); none for a session. */
  apiVersion?: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The permission a key needs (service.md "resource:action"), or 'any' for any valid key. Declaring it is what
     * puts a route behind authentication and the rate limit; every /v1 route must (checked at startup).
     */
    permission?: string;
    /** Tokens the call spends from the organization bucket (service.md Cost table). */
    cost?: number;
    /**
     * Who may call, beyond the default (a secret key, or a dashboard session): 'session' answers only a signed-in
     * dashboard session (a key is 403) and is never charged, so it declares a permission and no cost; 'public'
     * needs no caller at all (signing in), and declares neither (docs/api.md#dashboard-sessions).
     */
    access?: 'session' | 'public';
    /**
     * The route acts only on test data (docs/api.md#test-mode): a live key or a session outside test mode is 403,
     * checked with the permission, and /openapi.json marks the operation `x-test-mode-only`.
     */
    testModeOnly?: true;
    /** Separate per-endpoint buckets charged together with the organization bucket. */
    buckets?: readonly EndpointBucket[];
    /**
     * The refusals this route answers beyond those the platform documents for it (src/http/openapi.ts), each
     * with when it happens. Documentation only: it puts every status a client may get into /openapi.json.
     */
    refusals?: Refusals;
    /**
     * For a route whose answer can carry a secret shown once: the stored copy of its answer for Idempotency-Key
     * replays is sealed with this, and opened again to replay it (docs/api.md#idempotency-keys).
     */
    sealStoredAnswer?: SecretBox | undefined;
    /**
     * What the body's schema cannot state, checked after it and before the request acts: throws the 400 the check
     * makes (e.g. a rule's config against the section the body names). Runs before the Idempotency-Key claim, so
     * a refusal claims no key, like any validation error (docs/api.md#order-of-checks). Synchronous and pure: it
     * reads nothing but the body.
     */
    checkBody?: (body: unknown) => void;
    /**
     * The request body as the document shows it, for a route that reads its body as a stream rather than through a
     * body schema (an import job's file): `{ description, content: { <media type>: { schema } } }`.
     */
    documentedBody?: {
      description: string;
      content: Record<string, { schema: object }>;
      /** What its 413 and 415 mean, in place of the JSON body's. */
      tooLarge: string;
      unsupported: string;
    };
  }
  interface FastifyRequest {
    auth: AuthContext | null;
  }
}

/** A route's own refusals by status: 404 beyond a missing path record, 409 state conflicts, 422 missing references. */
export type Refusals = Partial<Record<404 | 409 | 422 | 429, string>>;

/** What the platform hands every resource module. */
export interface PlatformServices {
  database: Database;
  db: Kysely<DB>;
  config: Config;
  /** Every permission a key can be granted: service.md's eleven and those the resources add. */
  permissionCatalog: readonly string[];
  /** Every parent's cascade, built from the modules' `cascades`: what a parent's deletion calls for its children. */
  cascades: CascadeRegistry;
  /** Every event an endpoint can subscribe to, built from the modules' `events` (src/events/catalog.ts). */
  eventCatalog: EventCatalog;
}

/** A resource plugs into the platform through this and nothing else (see src/compose.ts). */
export interface ResourceModule {
  name: string;
  /** Permissions beyond service.md's eleven that this resource's routes use. */
  permissions?: readonly string[];
  /** OpenAPI tag description. */
  description?: string;
  /** Registers the resource's routes; paths are relative to /v1. */
  routes(app: PatronApp, services: PlatformServices): void | Promise<void>;
  /**
   * The events this resource sends and the record each carries as `data` (its response schema, the one the event is
   * serialized with), and when each is sent: the event catalog is built from these (src/events/catalog.ts).
   */
  events?: readonly EventPayload[];
  /**
   * The documented example of each of its operations, by operationId
   * (docs/api.md#documented-examples-and-the-demo-world); the composition root merges every module's.
   */
  examples?: Readonly<Record<string, OperationExample>>;
  /** The background jobs this resource runs (daily on each organization's clock, or when queued). */
  jobs?(context: JobsContext): JobDefinition[];
  /**
   * What this resource holds under parents of other resources (a customer, a product, an order, …) and what their
   * deletion does to it: deleted, detached, or refusing the deletion (docs/architecture.md#declared-cascades).
   */
  cascades?: readonly CascadeEdge[];
}

/**
 * Events a resource sends, the schema of the record they carry as `data`, and when each is sent: the composition root
 * builds the event catalog (GET /v1/webhook-events, the document's webhooks) from these (src/events/catalog.ts).
 */
export interface EventPayload {
  names: readonly string[];
  schema: object;
  /**
   * What sends them, as GET /v1/webhook-events shows it: the operations and jobs, in one sentence for all the names,
   * or one by name (every name of `names`).
   */
  firesWhen: string | Readonly<Record<string, string>>;
}

/** One event an endpoint can subscribe to, as GET /v1/webhook-events lists it (docs/api.md#event-catalog). */
export interface CatalogEvent {
  name: string;
  /** What sends it: the operations and jobs of this API, or, for a name nothing sends yet, service.md's words. */
  firesWhen: string;
  /**
   * False for a name service.md lists for records this API does not hold yet: a subscription to it is accepted and
   * receives nothing until they exist (docs/api.md#event-catalog).
   */
  firing: boolean;
}

/** Every subscribable event, in its published order, built by src/events/catalog.ts from the modules' `events`. */
export interface EventCatalog {
  events: readonly CatalogEvent[];
  /** Exact, case-sensitive match: service.md "Subscriptions use the exact event name strings". */
  isKnown(name: string): boolean;
}

/** What a resource's jobs are built from: the configuration and where their metrics go. */
export interface JobsContext {
  config: Config;
  /** The app's metrics registry in `serve`; absent when a job is run by hand. */
  registry?: Registry | undefined;
}

/**
 * A documented example of one operation, keyed by operationId (docs/api.md#documented-examples-and-the-demo-world): what "Test Request"
 * in /docs sends pre-filled. The composition root supplies them; each must answer its success status on the demo
 * organization's world (a test sends every one).
 */
export interface OperationExample {
  /** What the example does, in a few words. */
  summary: string;
  /** Path parameters by name. */
  params?: Readonly<Record<string, string>>;
  /** Query parameters by name, as sent (a filter as its JSON text). */
  query?: Readonly<Record<string, string>>;
  /** The request body, in the form the document shows it (a file's text for a body that is not JSON). */
  body?: unknown;
  /** The body's media type when it is not JSON (an import job's CSV). */
  contentType?: string;
  /** The success status it answers, where the operation documents several. */
  status?: number;
  /** Sent with the demo's test key (`sk_test_…`): the operation answers test keys only (docs/api.md#test-mode). */
  testMode?: boolean;
}

/** What an example request answered on the demo world: shown as the success response's example. */
export interface ResponseExample {
  status: number;
  body: unknown;
}

export interface DocumentedExamples {
  requests: Readonly<Record<string, OperationExample>>;
  responses: Readonly<Record<string, ResponseExample>>;
}
