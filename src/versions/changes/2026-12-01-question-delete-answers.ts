import type { OpenApiDocument, VersionChange } from '../change.js';

const ROUTE = 'DELETE /v1/product-questions/:id';
const NEW_SUMMARY = 'Delete a question with its answers; answers the question with them, as its event carries them';
const OLD_SUMMARY = 'Delete a question with its answers; triggers productQuestion.deleted carrying the answers';
const DELETED_FIELDS: readonly string[] = ['answers', 'answersCount'];

interface ObjectSchema {
  properties?: Record<string, unknown>;
  required?: string[];
}
interface OperationWithJsonAnswer {
  summary?: string;
  responses?: Record<string, { content?: Record<string, { schema?: ObjectSchema }> }>;
}

/**
 * DELETE /v1/product-questions/{id} answers the deleted question with its `answers` and `answersCount`, as its
 * `productQuestion.deleted` event always did: the answers were deleted with it, and the answer was the only place a
 * caller could not see which.
 */
export const questionDeleteAnswers: VersionChange = {
  version: '2026-12-01',
  title: 'A deleted question is answered with its answers',
  description:
    'DELETE /v1/product-questions/{id} answers the deleted question with `answers` (every answer deleted with it, ' +
    'oldest first) and `answersCount`, as its `productQuestion.deleted` event does. Before, the answer left both out.',
  route: ({ method, url }) =>
    `${method} ${url}` !== ROUTE
      ? undefined
      : {
          response: (body) => {
            const { answers: _answers, answersCount: _answersCount, ...question } = body as Record<string, unknown>;
            return question;
          },
        },
  // The answer's schema is written inline in the document: the version before had neither field.
  document: (document: OpenApiDocument) => {
    const operation = document.paths['/product-questions/{id}']?.delete as OperationWithJsonAnswer | undefined;
    if (operation?.summary === NEW_SUMMARY) operation.summary = OLD_SUMMARY;
    const schema = operation?.responses?.['200']?.content?.['application/json']?.schema;
    if (!schema?.properties || !schema.required) return;
    for (const field of DELETED_FIELDS) delete schema.properties[field];
    schema.required = schema.required.filter((field) => !DELETED_FIELDS.includes(field));
  },
};

export const QUESTION_DELETE_SUMMARY = NEW_SUMMARY;
