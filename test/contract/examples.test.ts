import { writeFile } from 'node:fs/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import prettier from 'prettier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, findUser, setPasswordHash } from '../../src/auth/accounts.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { seedDemo, type DemoSeed } from '../../src/cli/demo.js';
import { DEMO_OWNER_PASSWORD, OPERATION_EXAMPLES } from '../../src/demo/examples.js';
import { RESPONSE_EXAMPLES } from '../../src/demo/responses.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * Every documented example is a request the server accepts (docs/api.md#documented-examples-and-the-demo-world): on a fresh demo world,
 * each one, sent as the document shows it, answers its documented success status. The success response examples are
 * what these requests answered, and must still match their schemas. `UPDATE_EXAMPLES=1` writes them again
 * (src/demo/responses.ts).
 */
type Json = Record<string, any>;
const update = process.env.UPDATE_EXAMPLES === '1';
/** Records a list example keeps: enough to show the shape. */
const LIST_EXAMPLE_RECORDS = 2;

let t: TestApp;
let key: string;
let demo: DemoSeed;
let document: Json;
const operations: { method: string; path: string; operation: Json }[] = [];

beforeAll(async () => {
  // The world's endpoints point at a receiver on this machine (docs/api.md#documented-examples-and-the-demo-world).
  t = await startTestApp({ config: { allowHttpWebhooks: true, webhookAllowPrivateHosts: true } });
  demo = await seedDemo(t.testDatabase.database, t.config);
  ({ key } = demo);
  document = (await t.request({ url: '/openapi.json' })).json();
  for (const [path, methods] of Object.entries(document.paths as Record<string, Json>))
    for (const [method, operation] of Object.entries(methods)) operations.push({ method, path, operation });
}, 120_000);
afterAll(() => t?.close());

/**
 * How an example is sent: with the demo key, or for the dashboard's own endpoints as the demo owner
 * (docs/api.md#dashboard-sessions), who first gets the documented password (a fresh quick start gives it none) and,
 * but for signing in, a session of its own, so signing out or changing the password leaves the next example a session.
 */
async function credentials(operation: Json): Promise<{ key?: string; headers: Record<string, string> }> {
  if (!operation['x-session-only'] && !operation['x-public']) return { key, headers: {} };
  const db = t.testDatabase.database.db;
  const owner = (await findUser(db, demo.organization.id, demo.owner.id))!;
  await setPasswordHash(db, owner, await hashPassword(DEMO_OWNER_PASSWORD), undefined);
  if (operation['x-public']) return { headers: {} };
  const { token, session } = await createSession(db, owner);
  return { headers: { cookie: `patron_session=${token}`, 'x-csrf-token': session.csrf_token } };
}

const successStatuses = (operation: Json) => Object.keys(operation.responses).filter((status) => /^2/.test(status));

/** A list's example keeps its first records only. */
function trimmed(body: unknown): unknown {
  if (body && typeof body === 'object' && Array.isArray((body as Json).data)) {
    return { ...(body as Json), data: (body as Json).data.slice(0, LIST_EXAMPLE_RECORDS) };
  }
  return body;
}

/** A file's example keeps its first lines: enough to show the shape. */
function firstLines(text: string): string {
  return text
    .split('\n')
    .slice(0, LIST_EXAMPLE_RECORDS + 1)
    .join('\n');
}

/** Where a response's example is: its JSON, or for a file its first media type. */
function exampleMedia(response: Json): Json | undefined {
  const content = response.content as Json | undefined;
  return content?.['application/json'] ?? (content ? Object.values(content)[0] : undefined);
}

describe('documented examples', () => {
  it('every operation has one, naming every required parameter', () => {
    for (const { method, path, operation } of operations) {
      const example = OPERATION_EXAMPLES[operation.operationId];
      expect(example, `${method.toUpperCase()} ${path} (${operation.operationId}) has no example`).toBeDefined();
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'path')
          expect(parameter.example, `${operation.operationId} ${parameter.name}`).toBeDefined();
      }
      if (operation.requestBody?.required) expect(example!.body, operation.operationId).toBeDefined();
    }
    expect(Object.keys(OPERATION_EXAMPLES).sort()).toEqual(
      operations.map(({ operation }) => operation.operationId).sort(),
    );
  });

  it('each request, sent as documented on the demo world, answers its documented success status', async () => {
    const answered: Record<string, { status: number; body: unknown }> = {};
    const failures: string[] = [];
    for (const { method, path, operation } of operations) {
      const example = OPERATION_EXAMPLES[operation.operationId]!;
      let url = `/v1${path}`;
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'path') url = url.replace(`{${parameter.name}}`, encodeURIComponent(parameter.example));
      }
      const query = new URLSearchParams(
        Object.fromEntries(
          (operation.parameters ?? [])
            .filter((parameter: Json) => parameter.in === 'query' && parameter.examples?.[operation.operationId])
            .map((parameter: Json) => [parameter.name, parameter.examples[operation.operationId].value]),
        ),
      ).toString();
      const contentType = example.contentType ?? 'application/json';
      const media = operation.requestBody?.content?.[contentType];
      const body = media?.examples ? Object.values(media.examples as Record<string, Json>)[0]!.value : undefined;
      const sender = await credentials(operation);
      const response = await t.request({
        method: method.toUpperCase() as 'GET',
        url: query ? `${url}?${query}` : url,
        key: sender.key,
        body,
        headers: { ...sender.headers, ...(example.contentType ? { 'content-type': example.contentType } : {}) },
      });
      const expected = example.status ?? Number(successStatuses(operation)[0]);
      if (response.statusCode !== expected) {
        failures.push(`${operation.operationId}: ${response.statusCode} ${response.body.slice(0, 300)}`);
        continue;
      }
      // A file (an export's download) is shown as text, its first lines only.
      const isJson = String(response.headers['content-type'] ?? '').startsWith('application/json');
      answered[operation.operationId] = {
        status: response.statusCode,
        body: isJson ? trimmed(response.json()) : firstLines(response.body),
      };
    }
    expect(failures).toEqual([]);
    if (update) await writeResponses(answered);
  }, 120_000);

  it('each success response example matches its schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'patron', components: document.components }, 'patron');
    const mismatches: string[] = [];
    for (const { operation } of operations) {
      // A 204 (signing out, a dashboard user deleted) has no body to show.
      if (successStatuses(operation).every((candidate) => candidate === '204')) continue;
      const status = successStatuses(operation).find(
        (candidate) => exampleMedia(operation.responses[candidate])?.examples,
      );
      expect(status, `${operation.operationId}: no success response example`).toBeDefined();
      const content = exampleMedia(operation.responses[status!])!;
      const schema = JSON.parse(JSON.stringify(content.schema).replaceAll('"#/components/', '"patron#/components/'));
      const validate = ajv.compile(schema);
      const value = (Object.values(content.examples)[0] as Json).value;
      if (!validate(value)) mismatches.push(`${operation.operationId}: ${ajv.errorsText(validate.errors)}`);
    }
    expect(mismatches).toEqual([]);
  });

  it('the stored response examples are those of the current operations', () => {
    expect(Object.keys(RESPONSE_EXAMPLES).sort()).toEqual(
      operations.map(({ operation }) => operation.operationId).sort(),
    );
  });
});

describe('a create missing its required fields', () => {
  it('is 400 naming them before its Idempotency-Key is looked at: the key stays free, and a used key changes nothing', async () => {
    // A world of its own: the examples above have changed the first one.
    const { key: ownKey } = await seedDemo(t.testDatabase.database, t.config);
    // Bodies whose fields go inside data or at the top level: the schema cannot require them (imports' rows can).
    const creates = operations.filter(({ operation }) => {
      const schema = operation.requestBody?.content?.['application/json']?.schema;
      return schema?.required?.includes('data') && schema.properties.data.type === 'object';
    });
    expect(creates.map(({ operation }) => operation.operationId).sort()).toEqual([
      'adjustLoyaltyPoints',
      'createEmailTemplate',
      'createExportJob',
      'createLoyaltyProgram',
      'createLoyaltyRule',
      'createLoyaltyTier',
      'createProductQuestion',
      'createProductQuestionAnswer',
      'createQuickFilter',
      'createSite',
      'createSurveyFlow',
      'issueLoyaltyReward',
      'joinLoyaltyProgram',
      'reportLoyaltyEvent',
    ]);
    for (const { method, path, operation } of creates) {
      let url = `/v1${path}`;
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'path') url = url.replace(`{${parameter.name}}`, parameter.example);
      }
      const media = operation.requestBody.content['application/json'];
      const example = (Object.values(media.examples)[0] as Json).value;
      const required = media.schema.properties.data.required as string[];
      const send = (body: unknown) =>
        t.request({
          method: method.toUpperCase() as 'POST',
          url,
          key: ownKey,
          body,
          headers: { 'idempotency-key': `missing-${operation.operationId}` },
        });
      const refused = await send({ data: {} });
      expect(refused.statusCode, `${operation.operationId}: ${refused.body}`).toBe(400);
      expect(refused.json().error.details.map((detail: Json) => detail.path)).toEqual(
        required.map((field) => `body.data.${field}`),
      );
      const accepted = await send(example);
      expect(accepted.statusCode, `${operation.operationId}: ${accepted.body}`).toBeLessThan(300);
      expect(accepted.headers['idempotent-replayed']).toBeUndefined();
      const afterwards = await send({});
      expect(afterwards.statusCode, `${operation.operationId}: ${afterwards.body}`).toBe(400);
    }
  }, 120_000);
});

async function writeResponses(answered: Record<string, { status: number; body: unknown }>) {
  const file = new URL('../../src/demo/responses.ts', import.meta.url);
  const text = `import type { ResponseExample } from '../core/types.js';

/**
 * What each documented example answered on the demo world, by operationId (lists cut to ${LIST_EXAMPLE_RECORDS} records). Written by
 * \`UPDATE_EXAMPLES=1 npx vitest run test/contract/examples.test.ts\`; the test checks every one against its schema.
 */
export const RESPONSE_EXAMPLES: Readonly<Record<string, ResponseExample>> = ${JSON.stringify(answered, null, 2)};
`;
  const options = (await prettier.resolveConfig(file.pathname)) ?? {};
  await writeFile(file, await prettier.format(text, { ...options, parser: 'typescript' }));
}
