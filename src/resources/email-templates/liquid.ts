import { analyzeSync, Liquid, type Template } from 'liquidjs';
import { validationError, type ErrorDetail } from '../../core/errors.js';
import type { EmailTemplateKind } from '../../records/email-template.js';
import { TEMPLATE_VARIABLES, type TemplateVariables } from './variables.js';

/** The parts of a template, each Liquid source (docs/api.md#email-templates). */
export const TEMPLATE_PARTS = ['subject', 'html', 'text'] as const;
export type TemplatePart = (typeof TEMPLATE_PARTS)[number];
export type TemplateSources = Record<TemplatePart, string>;

/** A subject is one header line (RFC 5322 caps a line at 998 characters); a part at 256 KiB. */
export const MAX_SUBJECT_LENGTH = 998;
export const MAX_PART_BYTES = 256 * 1024;

/**
 * Liquid without its file tags (include, render, layout): a template is only its own text, nothing it names can read
 * the server's disk. Unknown filters are refused when saved rather than ignored when sent (strictFilters), and
 * rendering is bounded in time and memory, so a loop over a huge range cannot hold the server
 * (docs/api.md#email-templates).
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
    renderLimit: 1_000,
    memoryLimit: 10_000_000,
  });
  for (const tag of ['include', 'render', 'layout']) delete liquid.tags[tag];
  // In the HTML part every output is escaped; raw would let a customer's name carry markup into the mail.
  if (escapeOutput) delete liquid.filters['raw'];
  return liquid;
}

const htmlEngine = engine(true);
const plainEngine = engine(false);
const engineOf = (part: TemplatePart) => (part === 'html' ? htmlEngine : plainEngine);

/** The first line of a Liquid error, which names the line and column (e.g. `tag "foo" not found, line:1, col:4`). */
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0]!;

function parse(part: TemplatePart, source: string, path: string): Template[] {
  try {
    return engineOf(part).parse(source);
  } catch (error) {
    throw validationError(`${path} is not a valid Liquid template: ${messageOf(error)}.`, [
      { path, message: `has a Liquid syntax error: ${messageOf(error)}` },
    ]);
  }
}

/**
 * Every variable the part reads that the kind's table does not name: a variable assigned or looped over in the
 * template itself is the template's own. An object variable's fields are checked too (customer.firstNme is refused);
 * what follows a known field (customer.firstName.size) is Liquid's own.
 */
function unknownVariables(kind: EmailTemplateKind, templates: Template[]): string[] {
  const table = TEMPLATE_VARIABLES[kind];
  const unknown = new Set<string>();
  for (const [root, uses] of Object.entries(analyzeSync(templates).globals)) {
    const spec = Object.hasOwn(table, root) ? table[root] : undefined;
    if (!spec) {
      unknown.add(root);
      continue;
    }
    if (!spec.fields) continue;
    for (const use of uses) {
      const field = use.segments[1];
      if (field === undefined) continue;
      if (typeof field !== 'string' || !Object.hasOwn(spec.fields, field)) unknown.add(use.toString());
    }
  }
  return [...unknown];
}

/**
 * Checks the parts sent (POST and PATCH) against the kind's variables: a size over the cap, a syntax error or an
 * unknown variable is 400 naming the field, and the variable or the line and column (docs/api.md#email-templates).
 */
export function checkTemplate(kind: EmailTemplateKind, parts: Partial<TemplateSources>, path: string): void {
  const details: ErrorDetail[] = [];
  for (const part of TEMPLATE_PARTS) {
    const source = parts[part];
    if (source === undefined) continue;
    const fieldPath = `${path}.${part}`;
    if (part !== 'subject' && Buffer.byteLength(source) > MAX_PART_BYTES) {
      details.push({ path: fieldPath, message: `must be at most ${MAX_PART_BYTES} bytes (256 KiB)` });
      continue;
    }
    let templates: Template[];
    try {
      templates = parse(part, source, fieldPath);
    } catch (error) {
      details.push(...((error as { details?: ErrorDetail[] }).details ?? []));
      continue;
    }
    let unknown: string[];
    try {
      unknown = unknownVariables(kind, templates);
    } catch (error) {
      // The analysis reads what parsing accepted; should it still fail, the template is refused, never a 500.
      details.push({ path: fieldPath, message: `could not be checked: ${messageOf(error)}` });
      continue;
    }
    for (const name of unknown) {
      details.push({ path: fieldPath, message: `uses the unknown variable ${name}, which ${kind} mails do not have` });
    }
  }
  if (details.length) {
    const first = details[0]!;
    throw validationError(
      `Invalid template: ${first.path} ${first.message}${details.length > 1 ? ` (and ${details.length - 1} more)` : ''}.`,
      details,
    );
  }
}

/** What a template renders to: the subject on one line, the HTML part escaped, the text part as written. */
export interface RenderedMail {
  subject: string;
  html: string;
  text: string;
}

/**
 * Renders a saved template with the given variables (the mail sender's, or the preview's samples). A template that
 * fails while rendering (a render limit, a bad filter argument) is 400 naming the part.
 */
export async function renderTemplate(template: TemplateSources, variables: TemplateVariables): Promise<RenderedMail> {
  const rendered = {} as RenderedMail;
  for (const part of TEMPLATE_PARTS) {
    try {
      const engine = engineOf(part);
      rendered[part] = String(await engine.render(engine.parse(template[part]), variables));
    } catch (error) {
      throw validationError(`The template's ${part} could not be rendered: ${messageOf(error)}.`, [
        { path: part, message: `could not be rendered: ${messageOf(error)}` },
      ]);
    }
  }
  // A subject is a header: a line break in a variable must not start another header line.
  rendered.subject = rendered.subject.replace(/\s*[\r\n]+\s*/g, ' ').trim();
  return rendered;
}
