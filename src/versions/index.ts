/**
 * Dated API versions (docs/api.md#api-versions): the ordered registry of version changes and what it answers for a
 * route, an event or the OpenAPI document at a given version. The resources speak only the newest version; this
 * folder imports no resource (it knows routes by method and url, events by name).
 */
import { ApiError } from '../core/errors.js';
import type { OpenApiDocument, RouteInfo, VersionChange } from './change.js';
import { questionDeleteAnswers } from './changes/2026-12-01-question-delete-answers.js';
import { strictIntegerQuery } from './changes/2026-12-01-strict-integer-query.js';
import { tierPositionLast } from './changes/2026-12-07-tier-position-last.js';

export type { OpenApiDocument, RouteInfo, RouteTransforms, VersionChange, VersionedRequest } from './change.js';

/** The first version: the behaviour of the API before versions existed. */
export const FIRST_VERSION = '2026-11-20';

/** Every change, oldest version first (within a version, in the changelog's order). */
export const CHANGES: readonly VersionChange[] = [strictIntegerQuery, questionDeleteAnswers, tierPositionLast];

/** Every version, oldest first. */
export const VERSIONS: readonly string[] = [FIRST_VERSION, ...new Set(CHANGES.map((change) => change.version))];
export const LATEST_VERSION = VERSIONS[VERSIONS.length - 1]!;

const KNOWN = new Set(VERSIONS);
export const isKnownVersion = (version: string): boolean => KNOWN.has(version);

/** How long behaviour a later version changed keeps answering its old callers after that version (one year). */
export const SUNSET_AFTER_DAYS = 365;

/** The 400 for a Patron-Version (or an apiVersion) that names no version, listing the ones there are. */
export function invalidVersion(given: string, where = 'header.patron-version'): ApiError {
  return new ApiError(
    'INVALID_VERSION',
    `Unknown API version "${given.slice(0, 40)}": send one of ${VERSIONS.join(', ')} (YYYY-MM-DD).`,
    [{ path: where, message: `must be one of ${VERSIONS.join(', ')}` }],
  );
}

/** What the version layer does for one route at one older version. */
export interface RoutePlan {
  /** Old → new, oldest change first. */
  request: ((request: { query: Record<string, unknown>; body: unknown }) => void)[];
  /** New → old, newest change first. */
  response: ((body: unknown) => unknown)[];
  /** The headers that tell a caller of this version that the route behaves otherwise in a later one. */
  deprecationHeaders: Record<string, string>;
}

/**
 * A route's plans, one per older version whose callers it treats differently from the newest; a version missing from
 * the map (the newest always) passes through untouched. Built once per route, when it is registered.
 */
export function planRoute(route: RouteInfo, changes: readonly VersionChange[] = CHANGES): Map<string, RoutePlan> {
  const touching = changes.flatMap((change) => {
    const transforms = change.route(route);
    return transforms ? [{ change, transforms }] : [];
  });
  const plans = new Map<string, RoutePlan>();
  for (const version of VERSIONS) {
    const later = touching.filter(({ change }) => change.version > version);
    if (later.length === 0) continue;
    plans.set(version, {
      request: later.flatMap(({ transforms }) => (transforms.request ? [transforms.request] : [])),
      response: later.reverse().flatMap(({ transforms }) => (transforms.response ? [transforms.response] : [])),
      deprecationHeaders: deprecationHeaders(later[later.length - 1]!.change.version),
    });
  }
  return plans;
}

/**
 * RFC 9745 Deprecation (when the behaviour was deprecated: the day the changing version came out, as `@<seconds>`),
 * RFC 8594 Sunset (SUNSET_AFTER_DAYS later, an HTTP-date) and a Link to that version's changelog entry.
 */
export function deprecationHeaders(changedIn: string): Record<string, string> {
  const deprecatedAt = Date.parse(`${changedIn}T00:00:00Z`);
  return {
    deprecation: `@${deprecatedAt / 1000}`,
    sunset: new Date(deprecatedAt + SUNSET_AFTER_DAYS * 86_400_000).toUTCString(),
    link: `</changelog#${changedIn}>; rel="deprecation"; type="text/markdown"`,
  };
}

const eventSteps = new Map<string, ((data: unknown) => unknown)[]>();

/** The event transforms from the newest version back to `version`, newest first (cached per event and version). */
function eventStepsOf(event: string, version: string): ((data: unknown) => unknown)[] {
  const key = `${version} ${event}`;
  let steps = eventSteps.get(key);
  if (!steps) {
    steps = CHANGES.filter((change) => change.version > version && change.events?.[event])
      .reverse()
      .map((change) => change.events![event]!);
    eventSteps.set(key, steps);
  }
  return steps;
}

/** The versions older than some change of an event payload: only their envelopes are ever parsed. */
const RENDERED_VERSIONS = new Set(
  VERSIONS.filter((version) =>
    CHANGES.some((change) => change.version > version && Object.keys(change.events ?? {}).length > 0),
  ),
);

/**
 * An event's envelope (the delivery body, GET /v1/events/{id}) as a caller of `version` reads it. At the newest
 * version, and at any version no change of an event payload is newer than, it is the same text, untouched (the
 * database composed it: docs/api.md#events-api); otherwise its `data` goes through the event's transforms.
 */
export function renderEnvelope(text: string, version: string): string {
  if (!RENDERED_VERSIONS.has(version)) return text;
  const envelope = JSON.parse(text) as { event: string; data: unknown };
  const steps = eventStepsOf(envelope.event, version);
  if (steps.length === 0) return text;
  for (const step of steps) envelope.data = step(envelope.data);
  return JSON.stringify(envelope);
}

/** The newest document rewritten for `version`: each newer change's document transform, newest first. */
export function documentForVersion(newest: OpenApiDocument, version: string): OpenApiDocument {
  const document = structuredClone(newest);
  for (const change of [...CHANGES].reverse()) {
    if (change.version > version) change.document?.(document);
  }
  (document.info as Record<string, unknown>).version = version;
  return document;
}

/** The changelog as text (GET /changelog): every version, newest first, with its changes. */
export function changelogText(): string {
  const lines = ['# Patron API changelog', ''];
  for (const version of [...VERSIONS].reverse()) {
    lines.push(`## ${version}`, '');
    const changes = CHANGES.filter((change) => change.version === version);
    if (changes.length === 0) lines.push('The first version: the API as it was before dated versions.', '');
    for (const change of changes) lines.push(`- **${change.title}.** ${change.description}`);
    if (changes.length > 0) lines.push('');
  }
  return lines.join('\n');
}
