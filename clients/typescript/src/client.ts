import createFetchClient, {
  type Client,
  type HeadersOptions,
  type ParamsOption,
  type RequestBodyOption,
} from 'openapi-fetch';
import type {
  MediaType,
  PathsWithMethod,
  Readable,
  RequiredKeysOf,
  ResponseObjectMap,
  SuccessResponse,
} from 'openapi-typescript-helpers';
import { PatronError } from './errors.js';
import type { paths } from './generated/schema.js';
import {
  API_VERSIONS,
  LATEST_API_VERSION,
  type ApiVersion,
  type LatestApiVersion,
  type PathsByVersion,
} from './generated/versions.js';
import { retryingFetch, type RetryOptions } from './retry.js';

/** The HTTP methods of the API. */
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export { API_VERSIONS, LATEST_API_VERSION, type ApiVersion, type LatestApiVersion, type PathsByVersion };
/** The paths (as the document writes them, e.g. `/customers/{id}`) that have an operation for `M`. */
export type PathsOf<M extends Method> = PathsWithMethod<paths, M>;
/** The operation of a path and method, as generated from the document. */
export type OperationOf<P extends keyof paths, M extends Method> = paths[P][M];
/** The same for the document of API version `V` (docs/api.md, "API versions"). */
type VersionPaths<V extends ApiVersion> = PathsByVersion[V];
type PathsIn<V extends ApiVersion, M extends Method> = PathsWithMethod<VersionPaths<V>, M>;
type OperationIn<V extends ApiVersion, P, M extends Method> = P extends keyof VersionPaths<V>
  ? VersionPaths<V>[P][M & keyof VersionPaths<V>[P]]
  : never;

/** What a call takes: its parameters (`params: { path, query, header }`) and body, as the document requires them. */
export type CallInit<O> = ParamsOption<O> &
  RequestBodyOption<O> & {
    /** Extra headers, e.g. `{ 'Idempotency-Key': '…' }` or `{ 'X-Request-Id': '…' }`. */
    headers?: HeadersOptions;
    /** Cancels the request, and any wait between its retries. */
    signal?: AbortSignal;
  };
type CallArgs<O> = RequiredKeysOf<CallInit<O>> extends never ? [init?: CallInit<O>] : [init: CallInit<O>];

/** What a successful call of an operation resolves to: the body of its 2xx answer. */
export type ResponseOf<O> = O extends { responses: object }
  ? Readable<SuccessResponse<ResponseObjectMap<O>, MediaType>>
  : never;
/** The body of a path's operation, e.g. `RequestBodyOf<'/loyalty-rewards', 'post'>`. */
export type RequestBodyOf<P extends PathsOf<M>, M extends Method> = NonNullable<
  CallInit<OperationOf<P, M>> extends { body?: infer B } ? B : never
>;
/**
 * The record a create or update carries, e.g. `RequestDataOf<'/loyalty-rewards', 'post'>`: the `data` of the wrapped
 * body `{ data: {...} }`, which holds the same fields as the bare body the API also accepts.
 */
export type RequestDataOf<P extends PathsOf<M>, M extends Method> = Extract<
  RequestBodyOf<P, M>,
  { data: unknown }
>['data'];
/** The 2xx body of a path's operation, e.g. `ResponseDataOf<'/customers/{id}', 'get'>`. */
export type ResponseDataOf<P extends PathsOf<M>, M extends Method> = ResponseOf<OperationOf<P, M>>;

/** The list operations: every GET whose answer is a page `{ data: [...], nextCursor }` (docs/api.md#lists). */
export type ListPath<V extends ApiVersion = LatestApiVersion> = {
  [P in PathsIn<V, 'get'>]: ResponseOf<OperationIn<V, P, 'get'>> extends {
    data: readonly unknown[];
    nextCursor: unknown;
  }
    ? P
    : never;
}[PathsIn<V, 'get'>];
/** One page of a list operation. */
export type PageOf<P extends ListPath<V>, V extends ApiVersion = LatestApiVersion> = ResponseOf<
  OperationIn<V, P, 'get'>
>;
/** One record of a list operation, e.g. `ListItemOf<'/customers'>` is a customer. */
export type ListItemOf<P extends ListPath<V>, V extends ApiVersion = LatestApiVersion> =
  PageOf<P, V> extends { data: readonly (infer Item)[] } ? Item : never;
/** What paginate() takes: the list's parameters without the cursor, which it manages. */
export type PaginateInit<P extends ListPath<V>, V extends ApiVersion = LatestApiVersion> = Omit<
  CallInit<OperationIn<V, P, 'get'>>,
  'params'
> &
  (RequiredKeysOf<PaginateParams<OperationIn<V, P, 'get'>>> extends never
    ? { params?: PaginateParams<OperationIn<V, P, 'get'>> }
    : { params: PaginateParams<OperationIn<V, P, 'get'>> });
type PaginateParams<O> = O extends { parameters: infer Params }
  ? Omit<Params, 'query'> & { query?: Omit<NonNullable<Params extends { query?: infer Q } ? Q : never>, 'cursor'> }
  : never;

/** The query parameters of GET /events: type (or a prefix such as `order.*`), objectId, createdAt bounds, limit, cursor. */
export type EventListQuery = NonNullable<CallInit<OperationOf<'/events', 'get'>>['params']>['query'];
/** An event as GET /events and GET /events/{id} read it: byte for byte the body its deliveries send. */
export type PatronEvent = ListItemOf<'/events'>;
/** What every helper call also takes: extra headers and an AbortSignal. */
export interface HelperInit {
  /** Extra headers, e.g. `{ 'Idempotency-Key': '…' }`. */
  headers?: HeadersOptions;
  /** Cancels the request, and any wait between its retries. */
  signal?: AbortSignal;
}

/**
 * The Events API (docs/api.md, "Events API"): every event of the organization, subscribed to or not, newest first.
 */
export interface EventsHelper {
  /** One page of events; pass its `nextCursor` as `cursor` for the next. */
  list(query?: EventListQuery, init?: HelperInit): Promise<PageOf<'/events'>>;
  /** Every event the query selects, newest first, page after page (as paginate('/events')). */
  paginate(query?: Omit<NonNullable<EventListQuery>, 'cursor'>, init?: HelperInit): AsyncIterableIterator<PatronEvent>;
  /** One event; another organization's, or one past retention, throws PatronError with status 404. */
  get(id: string, init?: HelperInit): Promise<PatronEvent>;
  /**
   * Sends a past event now to one endpoint, whether or not it subscribes to its type: a new signed delivery
   * (`requested: true`), answered with its outcome. Needs webhooks:write.
   */
  deliver(
    id: string,
    webhookEndpointId: string,
    init?: HelperInit,
  ): Promise<ResponseDataOf<'/events/{id}/deliver', 'post'>>;
}

/**
 * A signed-in dashboard session (docs/api.md, "Dashboard sessions"): the browser sends its cookie itself, and the
 * client sends `csrfToken` as X-CSRF-Token with every request but GET, HEAD and OPTIONS. It is read at each request,
 * so after signing in again the same object can be given the new token.
 */
export interface SessionAuth {
  csrfToken: string;
}

interface CommonClientOptions {
  /**
   * Where the server is: its origin (`http://127.0.0.1:3000`) or the API's base URL (`…/v1`); the client adds the
   * document's `/v1` when the URL does not end with it. In a page served by Patron, `window.location.origin`.
   */
  baseUrl: string;
  /** Retries of 429 and 503 answers (see RetryOptions); `false` turns them off. */
  retry?: RetryOptions | false;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** The fetch used (defaults to the global one), e.g. to add a dispatcher or instrument calls. */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * How the client authenticates: a secret key (servers; a live `sk_…` or a test `sk_test_…` key alike), or a dashboard
 * session (the dashboard in a browser); and the API version it speaks.
 */
export type PatronClientOptions<V extends ApiVersion = LatestApiVersion> = CommonClientOptions & {
  /**
   * The API version every request is sent at (`Patron-Version`), and whose document the calls are typed from
   * (docs/api.md, "API versions"). Default: the newest this client was generated from, LATEST_API_VERSION.
   */
  apiVersion?: V;
} & (
    | {
        /** A secret key, `sk_…` (live) or `sk_test_…` (test mode); sent as `Authorization: Bearer`. */
        apiKey: string;
        session?: never;
      }
    | {
        /** The signed-in session: no Authorization header, cookies sent same-origin, X-CSRF-Token on writes. */
        session: SessionAuth;
        apiKey?: never;
      }
  );

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Adds the session's current CSRF token to every request that is not a read. */
function withCsrfToken(
  send: (request: Request) => Promise<Response>,
  session: SessionAuth,
): (request: Request) => Promise<Response> {
  return (request) => {
    if (!SAFE_METHODS.has(request.method.toUpperCase())) request.headers.set('x-csrf-token', session.csrfToken);
    return send(request);
  };
}

/** A client of API version `V`: every call is typed from that version's document. */
export interface PatronClient<V extends ApiVersion = LatestApiVersion> {
  /** The version every request is sent at (the Patron-Version header). */
  readonly apiVersion: V;
  /** Calls a GET operation; resolves to its 2xx body, throws PatronError for any other answer. */
  GET<P extends PathsIn<V, 'get'>>(
    path: P,
    ...init: CallArgs<OperationIn<V, P, 'get'>>
  ): Promise<ResponseOf<OperationIn<V, P, 'get'>>>;
  /** Calls a POST operation (with an Idempotency-Key, generated unless given); throws PatronError on failure. */
  POST<P extends PathsIn<V, 'post'>>(
    path: P,
    ...init: CallArgs<OperationIn<V, P, 'post'>>
  ): Promise<ResponseOf<OperationIn<V, P, 'post'>>>;
  PUT<P extends PathsIn<V, 'put'>>(
    path: P,
    ...init: CallArgs<OperationIn<V, P, 'put'>>
  ): Promise<ResponseOf<OperationIn<V, P, 'put'>>>;
  PATCH<P extends PathsIn<V, 'patch'>>(
    path: P,
    ...init: CallArgs<OperationIn<V, P, 'patch'>>
  ): Promise<ResponseOf<OperationIn<V, P, 'patch'>>>;
  DELETE<P extends PathsIn<V, 'delete'>>(
    path: P,
    ...init: CallArgs<OperationIn<V, P, 'delete'>>
  ): Promise<ResponseOf<OperationIn<V, P, 'delete'>>>;
  /**
   * Every record of a list, page after page: requests the first page with the given parameters, then follows
   * `nextCursor` until it is null. Pages are fetched as the iteration reaches them, one request at a time.
   */
  paginate<P extends ListPath<V>>(path: P, ...init: PaginateArgs<P, V>): AsyncIterableIterator<ListItemOf<P, V>>;
  /** The same walk as paginate(), a page at a time. */
  pages<P extends ListPath<V>>(path: P, ...init: PaginateArgs<P, V>): AsyncIterableIterator<PageOf<P, V>>;
  /** The Events API: list, paginate, get and deliver. */
  readonly events: EventsHelper;
  /** The openapi-fetch client underneath (same retries, keys and version), for what this surface does not cover. */
  readonly raw: Client<VersionPaths<V>>;
}
type PaginateArgs<P extends ListPath<V>, V extends ApiVersion> =
  RequiredKeysOf<PaginateInit<P, V>> extends never ? [init?: PaginateInit<P, V>] : [init: PaginateInit<P, V>];

/** The `/v1` of the document's `servers`, which its paths are relative to. */
const API_PREFIX = '/v1';

/**
 * A typed client of the Patron API. Every path, parameter, body and answer is typed from the document of the API
 * version it speaks (`apiVersion`, default the newest it was generated from), which it sends as Patron-Version.
 */
export function createPatronClient<V extends ApiVersion = LatestApiVersion>(
  options: PatronClientOptions<V>,
): PatronClient<V> {
  const base = options.baseUrl.replace(/\/+$/, '');
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const apiVersion = (options.apiVersion ?? LATEST_API_VERSION) as V;
  if (!(API_VERSIONS as readonly string[]).includes(apiVersion)) {
    throw new TypeError(`Unknown apiVersion "${apiVersion}": this client knows ${API_VERSIONS.join(', ')}.`);
  }
  // Given headers come last: a Patron-Version among them overrides apiVersion (its types do not follow it).
  const headers = { 'patron-version': apiVersion, ...options.headers };
  const raw = createFetchClient<VersionPaths<V>>({
    baseUrl: base.endsWith(API_PREFIX) ? base : base + API_PREFIX,
    ...(options.session
      ? // The browser sends the session cookie itself, to the page's own origin only.
        {
          headers,
          credentials: 'same-origin' as const,
          fetch: retryingFetch(withCsrfToken(send, options.session), options.retry),
        }
      : {
          headers: { ...headers, authorization: `Bearer ${options.apiKey}` },
          fetch: retryingFetch(send, options.retry),
        }),
  });

  // Typed by PatronClient's signatures; `never` lets each one return its own answer type.
  const call = async (method: string, path: string, init: object | undefined): Promise<never> => {
    const { data, error, response } = await raw.request(method as 'get', path as never, init as never);
    if (!response.ok) throw PatronError.fromResponse(response, error, method.toUpperCase());
    return data as never;
  };

  async function* pages(path: string, init: { params?: { query?: object } } = {}) {
    let cursor: string | undefined;
    do {
      const query = cursor === undefined ? init.params?.query : { ...init.params?.query, cursor };
      const page: { data: unknown[]; nextCursor: string | null } = await call('get', path, {
        ...init,
        params: { ...init.params, query },
      });
      yield page;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  async function* paginate(path: string, init?: object) {
    for await (const page of pages(path, init)) yield* page.data;
  }

  return {
    apiVersion,
    GET: (path, ...[init]) => call('get', String(path), init),
    POST: (path, ...[init]) => call('post', String(path), init),
    PUT: (path, ...[init]) => call('put', String(path), init),
    PATCH: (path, ...[init]) => call('patch', String(path), init),
    DELETE: (path, ...[init]) => call('delete', String(path), init),
    paginate: paginate as PatronClient<V>['paginate'],
    pages: pages as PatronClient<V>['pages'],
    events: {
      list: (query, init) => call('get', '/events', { ...init, params: { query } }),
      paginate: (query, init) => paginate('/events', { ...init, params: { query } }) as never,
      get: (id, init) => call('get', '/events/{id}', { ...init, params: { path: { id } } }),
      deliver: (id, webhookEndpointId, init) =>
        call('post', '/events/{id}/deliver', { ...init, params: { path: { id } }, body: { webhookEndpointId } }),
    },
    raw,
  };
}
