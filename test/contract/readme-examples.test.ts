import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/cli/demo.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { ROOT } from '../support/processes.js';

/**
 * The request examples of README.md and docs/api.md work on a fresh demo world
 * (docs/api.md#documented-examples-and-the-demo-world): each fenced block marked `<!-- example: runs on the demo world
 * -->` on the line before it is read, its curl lines (sh) or its client's calls (ts, read with the TypeScript parser)
 * are sent as written, with the demo key for `sk_…`, and each must answer 2xx. A curl in a fenced block without the
 * mark fails the test, so no request example escapes it.
 */
const MARK = '<!-- example: runs on the demo world -->';
const FILES = ['README.md', 'docs/api.md'];
const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

interface Block {
  file: string;
  line: number;
  language: string;
  text: string;
  marked: boolean;
}
interface Request {
  where: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

/** Every fenced block, with whether the line before it (blank lines skipped) is the mark. */
function fencedBlocks(file: string, markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^```(\w*)\s*$/.exec(lines[index]!);
    if (!open) continue;
    const end = lines.indexOf('```', index + 1);
    let before = index - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    blocks.push({
      file,
      line: index + 1,
      language: open[1]!,
      text: lines.slice(index + 1, end).join('\n'),
      marked: lines[before]?.trim() === MARK,
    });
    index = end;
  }
  return blocks;
}

/** A command line split as a POSIX shell splits it: quotes, backslash escapes and line continuations. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let index = 0; index < command.length; index++) {
    const char = command[index]!;
    if (char === '\\' && command[index + 1] === '\n') index++;
    else if (char === '\\') word = (word ?? '') + command[++index];
    else if (char === "'") {
      const end = command.indexOf("'", index + 1);
      word = (word ?? '') + command.slice(index + 1, end);
      index = end;
    } else if (char === '"') {
      let text = '';
      for (index++; command[index] !== '"'; index++)
        text += command[index] === '\\' && /["\\$`]/.test(command[index + 1]!) ? command[++index] : command[index];
      word = (word ?? '') + text;
    } else if (/\s/.test(char)) {
      if (word !== null) words.push(word);
      word = null;
    } else word = (word ?? '') + char;
  }
  if (word !== null) words.push(word);
  return words;
}

/** The curl commands of a shell block, each as the request it sends (the options the examples use). */
function curlRequests(block: Block): Request[] {
  const commands = block.text.replace(/\\\n/g, ' ').split('\n');
  return commands
    .filter((command) => /^\s*curl\s/.test(command))
    .map((command) => {
      const words = shellWords(command).slice(1);
      const request: Request = {
        where: `${block.file}:${block.line} ${command.trim()}`,
        method: '',
        url: '',
        headers: {},
      };
      for (let index = 0; index < words.length; index++) {
        const word = words[index]!;
        if (word === '-X' || word === '--request') request.method = words[++index]!;
        else if (word === '-H' || word === '--header') {
          const [name, ...value] = words[++index]!.split(':');
          request.headers[name!.trim().toLowerCase()] = value.join(':').trim();
        } else if (word === '-d' || word === '--data' || word === '--data-raw') request.body = words[++index];
        else if (word.startsWith('-')) throw new Error(`${request.where}: the test does not know ${word}`);
        else request.url = word;
      }
      request.method ||= request.body === undefined ? 'GET' : 'POST';
      return request;
    });
}

/**
 * The client's calls of a TypeScript block: `<client>.GET|POST|…('/path', { params, body })` and `.paginate('/path',
 * …)` (a GET), with the block's top-level constants in scope, evaluated as written.
 */
function clientRequests(block: Block): Request[] {
  const source = ts.createSourceFile('example.ts', block.text, ts.ScriptTarget.ES2022, true);
  const constants: Record<string, unknown> = {};
  const requests: Request[] = [];
  const evaluate = (node: ts.Node) =>
    new Function(...Object.keys(constants), `return (${node.getText(source)});`)(...Object.values(constants));
  const visit = (node: ts.Node) => {
    if (ts.isVariableStatement(node) && node.parent === source) {
      for (const declaration of node.declarationList.declarations)
        if (ts.isIdentifier(declaration.name) && declaration.initializer && ts.isStringLiteral(declaration.initializer))
          constants[declaration.name.text] = declaration.initializer.text;
    }
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      (METHODS.has(node.expression.name.text) || node.expression.name.text === 'paginate') &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      const method = node.expression.name.text === 'paginate' ? 'GET' : node.expression.name.text;
      const options = (node.arguments[1] ? evaluate(node.arguments[1]) : {}) as {
        params?: { path?: Record<string, string>; query?: Record<string, string> };
        body?: unknown;
      };
      let path = node.arguments[0].text;
      for (const [name, value] of Object.entries(options.params?.path ?? {})) path = path.replace(`{${name}}`, value);
      const query = new URLSearchParams(
        Object.entries(options.params?.query ?? {}).map(([name, value]): [string, string] => [name, String(value)]),
      ).toString();
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + block.line + 1;
      requests.push({
        where: `${block.file}:${line} ${method} ${path}`,
        method,
        url: `/v1${path}${query ? `?${query}` : ''}`,
        headers: {},
        ...(options.body === undefined ? {} : { body: options.body }),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return requests;
}

let t: TestApp;
let key: string;
let blocks: Block[];

beforeAll(async () => {
  // The world's endpoints point at a receiver on this machine (docs/api.md#documented-examples-and-the-demo-world).
  t = await startTestApp({ config: { allowHttpWebhooks: true, webhookAllowPrivateHosts: true } });
  ({ key } = await seedDemo(t.testDatabase.database, t.config));
  blocks = [];
  for (const file of FILES) blocks.push(...fencedBlocks(file, await readFile(join(ROOT, file), 'utf8')));
}, 120_000);
afterAll(() => t?.close());

describe('the request examples of README.md and docs/api.md', () => {
  it('are all marked: no curl in a fenced block escapes the test', () => {
    const unmarked = blocks.filter((block) => !block.marked && /^\s*curl\s/m.test(block.text));
    expect(unmarked.map((block) => `${block.file}:${block.line}`)).toEqual([]);
  });

  it('each answers 2xx on a fresh demo world, sent as written with the demo key', async () => {
    const marked = blocks.filter((block) => block.marked);
    const requests = marked.flatMap((block) => (block.language === 'ts' ? clientRequests(block) : curlRequests(block)));
    // The quick start's curl, the client's calls in the README, the sign-in in docs/api.md at least.
    expect(marked.map((block) => block.language).sort()).toEqual(['sh', 'sh', 'ts']);
    expect(requests.length).toBeGreaterThanOrEqual(5);
    const failures: string[] = [];
    for (const request of requests) {
      const url = request.url.replace(/^https?:\/\/[^/]+/, '');
      // The placeholder key of a curl line is the demo key; the client sends its key on every call.
      const { authorization, ...headers } = request.headers;
      const withKey = authorization === 'Bearer sk_…' || !request.url.startsWith('http');
      const response = await t.request({
        method: request.method as 'GET',
        url,
        key: withKey ? key : undefined,
        headers,
        body: request.body as object | undefined,
      });
      if (response.statusCode < 200 || response.statusCode > 299)
        failures.push(`${request.where}: ${response.statusCode} ${response.body.slice(0, 300)}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
