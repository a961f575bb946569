/**
 * preValidation for a POST whose body is optional: no body at all reads as {}, so the body schema applies as if the
 * caller sent an empty object. A JSON null is a body, and not an object: it still fails validation (400).
 */
export async function optionalBody(request: { body: unknown }): Promise<void> {
  if (request.body === undefined) request.body = {};
}
