import { Liquid } from 'liquidjs';

/** The parts of a template, each Liquid source (docs/api.md#email-templates). */
export const TEMPLATE_PARTS = ['subject', 'html', 'text'] as const;
export type TemplatePart = (typeof TEMPLATE_PARTS)[number];
export type TemplateSources = Record<TemplatePart, string>;

/** What a template renders to: the subject on one line, the HTML part escaped, the text part as written. */
export interface RenderedMail {
  subject: string;
  html: string;
  text: string;
}

/**
 * The bounds of one render, all three parts together (docs/api.md#rendering-limits). Time is wall-clock time on the
 * render's own worker thread, where nothing else runs, so it bounds the CPU a render can spend.
 */
export const RENDER_TIME_LIMIT_MS = 1_000;
/** Characters and array items Liquid may allocate in a part (liquidjs memoryLimit): a range (1..n) counts n. */
export const RENDER_MEMORY_LIMIT = 10_000_000;
/** The rendered subject, HTML and text together, in UTF-8 bytes: a mail, not a data dump. */
export const RENDERED_MAIL_LIMIT_BYTES = 1024 * 1024;

/** Which bound a render reached, for the 422 (or the 400 when saving) that names it. */
export type RenderLimit = 'time' | 'memory' | 'output';

/** The limit in words, as errors name it. */
export function describeLimit(limit: RenderLimit): string {
  switch (limit) {
    case 'time':
      return `its ${RENDER_TIME_LIMIT_MS.toLocaleString('en-US')} ms CPU-time limit`;
    case 'memory':
      return `its memory limit (${RENDER_MEMORY_LIMIT.toLocaleString('en-US')} characters or list items allocated in a part)`;
    case 'output':
      return `its output limit (${RENDERED_MAIL_LIMIT_BYTES.toLocaleString('en-US')} bytes of subject, HTML and text together)`;
  }
}

/**
 * Liquid without its file tags (include, render, layout): a template is only its own text, nothing it names can read
 * the server's disk. Unknown filters are refused when saved rather than ignored when sent (strictFilters), and
 * rendering is bounded in time and memory (docs/api.md#email-templates).
 */
function engine(escapeOutput: boolean): Liquid {
  const liquid = new Liquid({
    strictFilters: true,
    ownPropertyOnly: true,
    // An empty in-memory file system: even a file tag brought back could read nothing from disk.
    templates: {},
    // Times are UTC strings (docs/api.md#variables); the date filter shows them in UTC whatever the server's zone.
    timezoneOffset: 0,
    ...(escapeOutput ? { outputEscape: 'escape' as const } : {}),
    parseLimit: 1_000_000,
    renderLimit: RENDER_TIME_LIMIT_MS,
    memoryLimit: RENDER_MEMORY_LIMIT,
  });
  for (const tag of ['include', 'render', 'layout']) delete liquid.tags[tag];
  // In the HTML part every output is escaped; raw would let a customer's name carry markup into the mail.
  if (escapeOutput) delete liquid.filters['raw'];
  return liquid;
}

const htmlEngine = engine(true);
const plainEngine = engine(false);
export const engineOf = (part: TemplatePart) => (part === 'html' ? htmlEngine : plainEngine);

/** The first line of a Liquid error, which names the line and column (e.g. `tag "foo" not found, line:1, col:4`). */
export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
