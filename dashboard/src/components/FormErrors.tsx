import { PatronError, type ErrorDetail } from '@patron/client/browser';
import { ApiErrorAlert } from './ApiErrorAlert';

/**
 * The form field a validation detail names: `body.data.settings.expiringSoonDays` → `settings.expiringSoonDays`,
 * `body.items[2].quantity` → `items.2.quantity` (Mantine form's paths). The body may be wrapped in `data` or not
 * (docs/api.md#wrapped-and-unwrapped-bodies); either way the field is the same.
 */
export function fieldOf(detailPath: string): string {
  return detailPath
    .replace(/^body\.?/, '')
    .replace(/^data\.?/, '')
    .replace(/\[(\d+)\]/g, '.$1');
}

function hasPath(values: unknown, path: string): boolean {
  if (path === '') return false;
  let node: unknown = values;
  for (const key of path.split('.')) {
    if (node === null || typeof node !== 'object' || !(key in node)) return false;
    node = (node as Record<string, unknown>)[key];
  }
  return true;
}

/** The part of a Mantine form (useForm) this needs. */
export interface FormLike {
  values: object;
  setErrors(errors: Record<string, string>): void;
}

/**
 * Puts each validation detail of `error` on the field it names (when the form has that field), so the message shows
 * under the input; returns the details no field shows. Call it in a mutation's onError.
 */
export function applyApiErrors(form: FormLike, error: unknown): ErrorDetail[] {
  if (!(error instanceof PatronError)) return [];
  const errors: Record<string, string> = {};
  const rest: ErrorDetail[] = [];
  for (const detail of error.details) {
    const field = fieldOf(detail.path);
    if (hasPath(form.values, field))
      errors[field] = errors[field] ? `${errors[field]}; ${detail.message}` : detail.message;
    else rest.push(detail);
  }
  form.setErrors(errors);
  return rest;
}

export interface FormErrorProps {
  /** The mutation's error (or null). */
  error: unknown;
  /** The form whose fields show their own details: those are left out here. */
  form?: { values: object };
}

/**
 * The summary above a form's buttons: the API's message, and the details that no field of `form` shows (each field
 * shows its own once applyApiErrors put it there).
 */
export function FormError({ error, form }: FormErrorProps) {
  if (!error) return null;
  if (!(error instanceof PatronError) || !form) return <ApiErrorAlert error={error} />;
  const rest = error.details.filter((detail) => !hasPath(form.values, fieldOf(detail.path)));
  const shown = new PatronError({
    status: error.status,
    code: error.code,
    message: error.message,
    details: rest,
    requestId: error.requestId,
    method: error.method,
    url: error.url,
  });
  return <ApiErrorAlert error={shown} />;
}
