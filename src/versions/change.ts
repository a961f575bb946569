/**
 * What one version change is (docs/api.md#api-versions): a named, dated, described difference between the version
 * before it and its own, written once as transforms between the two shapes. The code of the resources speaks only the
 * newest version; these transforms carry a request written for an older version forward to the newest shape, and the
 * newest answer or event payload back to the older one.
 */

/** A route as the version layer knows it: no resource code, only what Fastify registered. */
export interface RouteInfo {
  /** Upper case, e.g. DELETE. */
  method: string;
  /** Fastify's route url, with the /v1 prefix and `:params`, e.g. /v1/product-questions/:id. */
  url: string;
  /** The route's query-string schema (JSON Schema), if it declares one. */
  querystring?: unknown;
}

/** The parts of a request a request transform may rewrite, in place. */
export interface VersionedRequest {
  query: Record<string, unknown>;
  body: unknown;
}

/** What a change does to one route. */
export interface RouteTransforms {
  /** Old → new: rewrites a request written for the version before the change into the change's version (in place). */
  request?: (request: VersionedRequest) => void;
  /** New → old: the successful answer of the change's version as the version before it wrote it. */
  response?: (body: unknown) => unknown;
}

/** A JSON OpenAPI document, as loosely typed as the transforms need. */
export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, unknown>> };

export interface VersionChange {
  /** The version that made the change (the first that behaves the new way), YYYY-MM-DD. */
  version: string;
  /** A short title, as the changelog names it. */
  title: string;
  /** What a caller sees differ, in the changelog's words. */
  description: string;
  /**
   * True when the change is one of behaviour the transforms alone cannot express, so that service code may read the
   * caller's version. None of today's changes needs it.
   */
  behaviour?: boolean;
  /** The change's transforms for a route, or undefined when it does not touch the route. Asked once per route. */
  route: (route: RouteInfo) => RouteTransforms | undefined;
  /** New → old transforms of event payloads (the envelope's `data`), keyed by event name. */
  events?: Readonly<Record<string, (data: unknown) => unknown>>;
  /** Rewrites the newest document into the one of the version before the change (in place). */
  document?: (document: OpenApiDocument) => void;
}
