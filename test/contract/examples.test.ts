import { readFile, writeFile } from 'node:fs/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import prettier from 'prettier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, findUser, setPasswordHash } from '../../src/auth/accounts.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { seedDemo, type DemoSeed } from '../../src/cli/demo.js';
import { DEMO_OWNER_PASSWORD } from '../../src/demo/examples.js';
import { DEMO_ANCHOR } from '../../src/demo/index.js';
import { operationExamples as OPERATION_EXAMPLES } from '../../src/compose.js';
import { startTestApp, type TestApp } from '../support/app.js';

/**
 * Every documented example is a request the server accepts (docs/api.md#documented-examples-and-the-demo-world): on a fresh demo world,
 * each one, sent as the document shows it, answers its documented success status. The success response examples are
 * what these requests answered, and must still match their schemas. They are generated data
 * (data/demo-responses.json): the test checks that each one still has the status and the shape of what its request
 * answers now, and `UPDATE_EXAMPLES=1` writes them again.
 */
type Json = Record<string, any>;
const update = process.env.UPDATE_EXAMPLES === '1';
/** Records a list example keeps: enough to show the shape. */
const LIST_EXAMPLE_RECORDS = 2;
/** The stored response examples: generated, never edited by hand. */
const RESPONSES_FILE = new URL('../../data/demo-responses.json', import.meta.url);
const REGENERATE =
  'regenerate it with `UPDATE_EXAMPLES=1 npx vitest run test/contract/examples.test.ts`, then the published document ' +
  'with `npx vitest run test/contract -u`, and review both diffs';
type StoredResponse = { status: number; body: unknown };

let t: TestApp;
let key: string;
let demo: DemoSeed;
let document: Json;
let storedText: string;
let stored: Record<string, StoredResponse>;
const operations: { method: string; path: string; operation: Json }[] = [];

beforeAll(async () => {
  // The world's endpoints point at a receiver on this machine (docs/api.md#documented-examples-and-the-demo-world).
  t = await startTestApp({ config: { allowHttpWebhooks: true, webhookAllowPrivateHosts: true } });
  // Seeded as of the world's anchor, so the examples do not depend on the day they are generated: seeded today the
  // same records have the same ids and shapes, their dates moved (docs/api.md#documented-examples-and-the-demo-world).
  demo = await seedDemo(t.testDatabase.database, t.config, { now: DEMO_ANCHOR });
  ({ key } = demo);
  storedText = await readFile(RESPONSES_FILE, 'utf8');
  stored = JSON.parse(storedText).responses;
  document = (await t.request({ url: '/openapi.json' })).json();
  for (const [path, methods] of Object.entries(document.paths as Record<string, Json>))
    for (const [method, operation] of Object.entries(methods)) operations.push({ method, path, operation });
}, 120_000);
afterAll(() => t?.close());

/**
 * How an example is sent: with the demo key (its test key for an operation of test mode only), or for the dashboard's own endpoints as the demo owner
 * (docs/api.md#dashboard-sessions), whose demo password is set again first (changing it is an example too) and,
 * but for signing in, a session of its own, so signing out or changing the password leaves the next example a session.
 */
async function credentials(operation: Json): Promise<{ key?: string; headers: Record<string, string> }> {
  if (OPERATION_EXAMPLES[operation.operationId]?.testMode) return { key: demo.testKey, headers: {} };
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

/**
 * What a stored example must keep of what its request answers now: the keys and the kinds of value, not the values
 * (ids, times and tokens differ on every demo world).
 */
function shapeOf(value: unknown): unknown {
  if (value === null) return null;
  if (Array.isArray(value)) return value.map(shapeOf);
  if (typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value as Json)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([name, field]) => [name, shapeOf(field)]),
    );
  return typeof value;
}

/** The file's text as the generator writes it. */
async function renderResponses(responses: Record<string, StoredResponse>): Promise<string> {
  const file = {
    $comment:
      `Generated: do not edit by hand. What each documented example answered on the demo world, by operationId ` +
      `(lists cut to ${LIST_EXAMPLE_RECORDS} records), shown as its success response's example ` +
      `(docs/api.md#documented-examples-and-the-demo-world). test/contract/examples.test.ts checks it; ${REGENERATE}.`,
    responses,
  };
  const options = (await prettier.resolveConfig(RESPONSES_FILE.pathname)) ?? {};
  return prettier.format(JSON.stringify(file, null, 2), { ...options, parser: 'json' });
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
      // Every header the document marks required on this answer is sent (docs/api.md#the-openapi-document).
      for (const [name, header] of Object.entries((operation.responses[expected]?.headers ?? {}) as Json)) {
        const definition = header.$ref ? document.components.headers[header.$ref.split('/').pop()] : header;
        if (definition.required && response.headers[name.toLowerCase()] === undefined)
          failures.push(`${operation.operationId}: no ${name} header on its ${expected}`);
      }
      // A file (an export's download) is shown as text, its first lines only.
      const isJson = String(response.headers['content-type'] ?? '').startsWith('application/json');
      answered[operation.operationId] = {
        status: response.statusCode,
        body: isJson ? trimmed(response.json()) : firstLines(response.body),
      };
    }
    expect(failures).toEqual([]);
    if (update) {
      await writeFile(RESPONSES_FILE, await renderResponses(answered));
      return;
    }
    const differing = Object.entries(answered)
      .filter(
        ([operationId, answer]) =>
          stored[operationId]?.status !== answer.status ||
          JSON.stringify(shapeOf(stored[operationId]?.body)) !== JSON.stringify(shapeOf(answer.body)),
      )
      .map(([operationId]) => operationId);
    expect(differing, `data/demo-responses.json differs from what these examples answer: ${REGENERATE}`).toEqual([]);
  }, 120_000);

  it('the stored response examples are as the generator writes them', async () => {
    expect(
      storedText === (await renderResponses(stored)),
      `data/demo-responses.json was edited by hand: ${REGENERATE}`,
    ).toBe(true);
  });

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
    expect(Object.keys(stored).sort(), `data/demo-responses.json: ${REGENERATE}`).toEqual(
      operations.map(({ operation }) => operation.operationId).sort(),
    );
  });
});

describe('a create missing its required fields', () => {
  it('is 400 naming them before its Idempotency-Key is looked at: the key stays free, and a used key changes nothing', async () => {
    // A world of its own: the examples above have changed the first one.
    const { key: ownKey } = await seedDemo(t.testDatabase.database, t.config);
    // Bodies whose fields go inside data or at the top level: the schema cannot require them (imports' rows can).
    // Read from the document: every body whose `data` object requires fields, whether or not `data` itself is
    // required (docs/api.md, "Wrapped and unwrapped bodies"), so a new create is covered without being named.
    const creates = operations.filter(({ operation }) => {
      // Either form of a body that may be wrapped (anyOf: wrapped, bare), or a body with only the wrapped form.
      const schema = operation.requestBody?.content?.['application/json']?.schema;
      const data = (schema?.anyOf ?? [schema]).find((form: Json) => form?.properties?.data)?.properties.data;
      return (data?.required?.length ?? 0) > 0;
    });
    expect(creates.map(({ operation }) => operation.operationId)).toEqual(
      expect.arrayContaining(['createSite', 'createLoyaltyProgram', 'issueLoyaltyReward']),
    );
    for (const { method, path, operation } of creates) {
      let url = `/v1${path}`;
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'path') url = url.replace(`{${parameter.name}}`, parameter.example);
      }
      const media = operation.requestBody.content['application/json'];
      const example = (Object.values(media.examples)[0] as Json).value;
      const required = media.schema.anyOf[0].properties.data.required as string[];
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
