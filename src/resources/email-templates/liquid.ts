import { analyzeSync, type Template } from 'liquidjs';
import { ApiError, unprocessable, validationError, type ErrorDetail } from '../../core/errors.js';
import type { EmailTemplateKind } from '../../records/email-template.js';
import {
  describeLimit,
  engineOf,
  messageOf,
  TEMPLATE_PARTS,
  type RenderedMail,
  type TemplatePart,
  type TemplateSources,
} from './engine.js';
import { RenderQueueFull, renderOnPool } from './render-pool.js';
import type { RenderOutcome } from './render-worker.js';
import { sampleVariables, TEMPLATE_VARIABLES, type TemplateVariables } from './variables.js';

export { TEMPLATE_PARTS, type RenderedMail, type TemplatePart, type TemplateSources } from './engine.js';

/** A subject is one header line (RFC 5322 caps a line at 998 characters); a part at 256 KiB. */
export const MAX_SUBJECT_LENGTH = 998;
export const MAX_PART_BYTES = 256 * 1024;

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

const busy = () =>
  new ApiError(
    'TOO_MANY_REQUESTS',
    'This organization already has its most template renders running and waiting: retry in a moment.',
    undefined,
    { 'retry-after': '1' },
  );

/** What a failed render says: the part (when known) and the limit it reached, or Liquid's own message. */
function failureOf(outcome: Extract<RenderOutcome, { ok: false }>): string {
  if (outcome.limit) {
    return `Template rendering exceeded ${describeLimit(outcome.limit)}${outcome.part ? ` (in the ${outcome.part} part)` : ''}.`;
  }
  return `The template's ${outcome.part ?? 'html'} could not be rendered: ${outcome.message}.`;
}

/**
 * Renders a template for a mail being queued, on the render pool within the organization's turns (waiting for one,
 * never refused). A template that fails (a limit reached, a bad filter argument) throws, and the caller skips the mail
 * (docs/api.md#rendering-limits).
 */
export async function renderTemplate(
  organizationId: string,
  template: TemplateSources,
  variables: TemplateVariables,
): Promise<RenderedMail> {
  const outcome = await renderOnPool(organizationId, { sources: pick(template), variables }, 'wait');
  if (outcome.ok) return outcome.rendered;
  throw new Error(failureOf(outcome));
}

/**
 * The preview's render: a limit reached is 422 naming it, Liquid refusing the template is 400 naming the part, and an
 * organization with its most renders already running and waiting is 429 (docs/api.md#rendering-limits).
 */
export async function previewTemplate(
  organizationId: string,
  template: TemplateSources,
  variables: TemplateVariables,
): Promise<RenderedMail> {
  const outcome = await renderRefusingWhenBusy(organizationId, template, variables);
  if (outcome.ok) return outcome.rendered;
  const path = outcome.part ?? 'html';
  if (outcome.limit) {
    throw unprocessable(failureOf(outcome), [{ path, message: `exceeded ${describeLimit(outcome.limit)}` }]);
  }
  throw validationError(failureOf(outcome), [{ path, message: `could not be rendered: ${outcome.message}` }]);
}

/**
 * When saved (POST and PATCH), the template is rendered with its kind's sample data, as the preview does: one that
 * cannot render within the limits is 400 naming the part and the limit, so no template is saved whose mails would never
 * be queued (docs/api.md#rendering-limits). Only the limits are checked here; a real customer's values may still differ.
 */
export async function checkRendersWithinLimits(
  organizationId: string,
  kind: EmailTemplateKind,
  template: TemplateSources,
  path: string,
): Promise<void> {
  const outcome = await renderRefusingWhenBusy(organizationId, template, sampleVariables(kind));
  if (outcome.ok || !outcome.limit) return;
  const fieldPath = `${path}.${outcome.part ?? 'html'}`;
  const message = `cannot be rendered with the sample data within ${describeLimit(outcome.limit)}`;
  throw validationError(`Invalid template: ${fieldPath} ${message}.`, [{ path: fieldPath, message }]);
}

async function renderRefusingWhenBusy(
  organizationId: string,
  template: TemplateSources,
  variables: TemplateVariables,
): Promise<RenderOutcome> {
  try {
    return await renderOnPool(organizationId, { sources: pick(template), variables }, 'refuse');
  } catch (error) {
    if (error instanceof RenderQueueFull) throw busy();
    throw error;
  }
}

/** Only the three sources go to the thread: a record's other fields are no business of the render. */
const pick = (template: TemplateSources): TemplateSources => ({
  subject: template.subject,
  html: template.html,
  text: template.text,
});
