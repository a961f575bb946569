/**
 * Review summary generation on the job runner: the overnight refresh, failures (summary untouched, logged,
 * counted, retried), the prompt wake-up in `serve`, and the OpenAI-compatible generator against a local stand-in.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { scheduledJobs } from '../../src/compose.js';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { createJobRunner } from '../../src/jobs/runner/runner.js';
import { createSummaryGenerator } from '../../src/resources/review-summaries/generators/index.js';
import { createOpenAiGenerator } from '../../src/resources/review-summaries/generators/openai.js';
import type { SummaryGenerator } from '../../src/resources/review-summaries/generators/types.js';
import { reviewSummaryJobs } from '../../src/resources/review-summaries/jobs.js';
import { startTestApp, type TestApp } from '../support/app.js';
import {
  api,
  DAY,
  drain,
  importProducts,
  importReviews,
  morning,
  ok,
  recordingLogger,
  simpleReviews,
  summaryRunner,
  type Clock,
} from '../fixtures/reviews/harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;
const tenant = (extra: Parameters<TestApp['tenant']>[0] = {}) =>
  t.tenant({ apiRequestsPerMinute: 1_000_000, ...extra });

async function product(
  owner: Awaited<ReturnType<typeof tenant>>,
  reviews: number,
  clock: Clock,
  runner = summaryRunner(t, clock),
) {
  const slug = `p-${Math.random().toString(36).slice(2, 8)}`;
  const { [slug]: productId } = await importProducts(t, owner, [{ slug, title: 'Linen Shirt' }]);
  const imported = await importReviews(t, owner, simpleReviews(productId!, slug, reviews));
  await drain(runner, clock);
  return { productId: productId!, slug, reviews: imported };
}

async function counterValue(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((entry) => entry.name === name);
  const value = metric?.values.find((entry) =>
    Object.entries(labels).every(([key, wanted]) => entry.labels[key] === wanted),
  );
  return value?.value ?? 0;
}

describe('overnight refresh', () => {
  it("regenerates, at 02:30 on each organization's clock, the shown summaries whose published reviews changed, and no others", async () => {
    const clock: Clock = { now: new Date() };
    const runner = summaryRunner(t, clock);
    const owner = await tenant({ timezone: 'Asia/Tokyo' });
    const client = api(t, owner);
    const grown = await product(owner, 5, clock, runner);
    const unpublishedFrom = await product(owner, 6, clock, runner);
    const unchanged = await product(owner, 5, clock, runner);
    const edited = await product(owner, 5, clock, runner);
    const before = {
      grown: await ok(client.summary(grown.productId)),
      unpublishedFrom: await ok(client.summary(unpublishedFrom.productId)),
      unchanged: await ok(client.summary(unchanged.productId)),
      edited: await ok(client.summary(edited.productId)),
    };
    await importReviews(t, owner, simpleReviews(grown.productId, `${grown.slug}-more`, 2));
    await ok(
      t.request({
        method: 'PATCH',
        url: `/v1/reviews/${unpublishedFrom.reviews[`${unpublishedFrom.slug}-1`].id}`,
        key: owner.key,
        body: { published: false },
      }),
    );
    // A change that is not in what a summary reads (metadata) is not a reason to regenerate.
    await ok(
      t.request({
        method: 'PATCH',
        url: `/v1/reviews/${edited.reviews[`${edited.slug}-1`].id}`,
        key: owner.key,
        body: { metadata: { checked: 'yes' } },
      }),
    );

    const tokyoDay = Math.floor((Date.now() + 9 * 3_600_000) / DAY) + 3; // a Tokyo date three days on
    await drain(runner, clock, new Date(tokyoDay * DAY - 9 * 3_600_000 + 2 * 3_600_000)); // 02:00 in Tokyo
    expect(await ok(client.summary(grown.productId))).toEqual(before.grown);
    await drain(runner, clock, new Date(tokyoDay * DAY - 9 * 3_600_000 + 2.5 * 3_600_000)); // 02:30 in Tokyo
    expect(await ok(client.summary(grown.productId))).toMatchObject({ reviewCount: 7, previous: { reviewCount: 5 } });
    expect(await ok(client.summary(unpublishedFrom.productId))).toMatchObject({
      reviewCount: 5,
      previous: { reviewCount: 6 },
    });
    expect(await ok(client.summary(unchanged.productId))).toEqual(before.unchanged);
    expect(await ok(client.summary(edited.productId))).toEqual(before.edited);
    const refreshRuns = await db()
      .selectFrom('jobs')
      .selectAll()
      .where('organization_id', '=', owner.organization.id)
      .where('name', '=', 'reviewSummary.refresh')
      .execute();
    const night = new Date(tokyoDay * DAY).toISOString().slice(0, 10);
    expect(refreshRuns.find((run) => run.run_key === night)).toMatchObject({
      status: 'succeeded',
      result: { queued: 2 },
    });

    // The next night has nothing to do.
    await drain(runner, clock, new Date((tokyoDay + 1) * DAY - 9 * 3_600_000 + 3 * 3_600_000));
    expect(await ok(client.summary(grown.productId))).toMatchObject({ reviewCount: 7, previous: { reviewCount: 5 } });
  });

  it('does not undo a revert or an accept without a new review', async () => {
    const clock: Clock = { now: new Date() };
    const runner = summaryRunner(t, clock);
    const owner = await tenant();
    const client = api(t, owner);
    const p = await product(owner, 5, clock, runner);
    await importReviews(t, owner, simpleReviews(p.productId, `${p.slug}-more`, 1));
    await ok(client.regenerate(p.productId), 202);
    await drain(runner, clock, new Date(Date.now() + 1_000));
    const reverted = await ok(client.revert(p.productId));
    expect(reverted.reviewCount).toBe(5);
    await drain(runner, clock, morning(5));
    expect(await ok(client.summary(p.productId))).toEqual(reverted);
    await importReviews(t, owner, simpleReviews(p.productId, `${p.slug}-later`, 1));
    await drain(runner, clock, morning(6));
    expect(await ok(client.summary(p.productId))).toMatchObject({ reviewCount: 7, previous: { reviewCount: 5 } });
  });
});

describe('a failed generation', () => {
  it('leaves the current summary untouched, is logged and counted, is retried, and gives the day back when it fails for good', async () => {
    const clock: Clock = { now: new Date() };
    const owner = await tenant();
    const client = api(t, owner);
    const p = await product(owner, 5, clock);
    const before = await ok(client.summary(p.productId));

    const registry = new Registry();
    const logger = recordingLogger();
    let calls = 0;
    const failing: SummaryGenerator = {
      kind: 'builtin',
      modelId: 'broken',
      promptVersion: 1,
      generate: async () => {
        calls += 1;
        throw new Error('model crashed');
      },
    };
    const runner = summaryRunner(t, clock, {
      generator: failing,
      registry,
      logger,
      maxAttempts: 2,
      retryDelayMs: 60_000,
    });
    expect(await ok(client.regenerate(p.productId), 202)).toEqual({ queued: true });
    await drain(runner, clock);
    expect(calls).toBe(1);
    expect(await ok(client.summary(p.productId))).toEqual(before);
    const failure = logger.lines.find((line) => line.message.startsWith('review summary generation failed'));
    expect(failure).toMatchObject({
      level: 'error',
      object: { productId: p.productId, organizationId: owner.organization.id, failure: 'error', willRetry: true },
    });
    expect(
      await counterValue(registry, 'patron_review_summary_generation_failures_total', {
        generator: 'builtin',
        reason: 'error',
      }),
    ).toBe(1);
    expect(
      await counterValue(registry, 'patron_review_summary_generations_total', {
        generator: 'builtin',
        outcome: 'failed',
      }),
    ).toBe(1);
    // While the retry is pending the day is spent.
    expect((await client.regenerate(p.productId)).statusCode).toBe(429);

    await drain(runner, clock, new Date(Date.now() + 61_000));
    expect(calls).toBe(2);
    expect(await ok(client.summary(p.productId))).toEqual(before);
    expect(
      await counterValue(registry, 'patron_review_summary_generation_failures_total', {
        generator: 'builtin',
        reason: 'error',
      }),
    ).toBe(2);
    const job = await db()
      .selectFrom('jobs')
      .selectAll()
      .where('organization_id', '=', owner.organization.id)
      .where('name', '=', 'reviewSummary.generate')
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    expect(job).toMatchObject({ status: 'failed', last_error: 'model crashed', attempts: 2 });
    // Failed for good: nothing is pending and the regeneration did not count.
    expect(await ok(client.regenerate(p.productId), 202)).toEqual({ queued: true });
  });

  it('refuses output that does not fit the summary schema', async () => {
    const clock: Clock = { now: new Date() };
    const owner = await tenant();
    const client = api(t, owner);
    const p = await product(owner, 5, clock);
    const before = await ok(client.summary(p.productId));
    const registry = new Registry();
    const outputs: unknown[] = [
      { summary: 'Fine.', themes: [{ label: 'fit', sentiment: 'great', reviewCount: 1 }], language: 'en' },
      { summary: '', themes: [], language: 'en' },
      { summary: 'Fine.', themes: [{ label: 'fit', sentiment: 'positive', reviewCount: 6 }], language: 'en' },
      { summary: 'Fine.', themes: [], language: 'English' },
      { summary: 'Fine.', themes: [], language: 'en', extra: true },
    ];
    for (const [index, output] of outputs.entries()) {
      const generator: SummaryGenerator = {
        kind: 'builtin',
        modelId: 'odd',
        promptVersion: 1,
        generate: async () => output as never,
      };
      const runner = summaryRunner(t, clock, { generator, registry, maxAttempts: 1 });
      await db()
        .updateTable('review_summaries')
        .set({ regenerate_requested_at: null })
        .where('product_id', '=', p.productId)
        .execute();
      expect(await ok(client.regenerate(p.productId), 202)).toEqual({ queued: true });
      await drain(runner, clock);
      expect(await ok(client.summary(p.productId)), `output ${index}`).toEqual(before);
    }
    expect(
      await counterValue(registry, 'patron_review_summary_generation_failures_total', {
        generator: 'builtin',
        reason: 'invalid_output',
      }),
    ).toBe(outputs.length);
  });
});

describe('serve runs a queued generation promptly', () => {
  it('wakes the started runner when a regeneration is queued, instead of waiting for its poll', async () => {
    const owner = await tenant();
    const client = api(t, owner);
    const clock: Clock = { now: new Date() };
    const p = await product(owner, 5, clock);
    const before = await ok(client.summary(p.productId));
    // A tick ends with a claim that finds no due job; the runner's claims are watched for the first such one.
    let emptyClaims = 0;
    const claims = new WeakSet<object>();
    const watched = db().withPlugin({
      transformQuery: ({ node, queryId }) => {
        if (node.kind === 'RawNode' && node.sqlFragments.join('').includes("update jobs j set status = 'running'"))
          claims.add(queryId);
        return node;
      },
      transformResult: async ({ queryId, result }) => {
        if (claims.has(queryId) && result.rows.length === 0) emptyClaims += 1;
        return result;
      },
    });
    const runner = createJobRunner({
      db: watched,
      jobs: reviewSummaryJobs({ generator: createSummaryGenerator({ kind: 'builtin' }) }),
      logger: recordingLogger(),
      pollMs: 60_000,
    });
    runner.start();
    try {
      // The first tick has run (its last claim found nothing); the next poll is a minute away. Only a wake-up finds
      // what is queued from here within the bounds below, a third of that minute, wide enough for a busy machine.
      await vi.waitFor(() => expect(emptyClaims).toBeGreaterThan(0), { timeout: 30_000 });
      const started = performance.now();
      await importReviews(t, owner, simpleReviews(p.productId, `${p.slug}-wake`, 1));
      expect(await ok(client.regenerate(p.productId), 202)).toEqual({ queued: true });
      let summary = before;
      await vi
        .waitFor(
          async () => {
            summary = await ok(client.summary(p.productId));
            if (summary.generatedAt === before.generatedAt) throw new Error('not generated yet');
          },
          { timeout: 30_000, interval: 50 },
        )
        .catch(() => {});
      expect(summary.reviewCount).toBe(6);
      expect(performance.now() - started).toBeLessThan(20_000);

      // A first generation queued inside an import's transaction (before it commits) is found as promptly.
      const slug = `wake-${Math.random().toString(36).slice(2, 8)}`;
      const { [slug]: productId } = await importProducts(t, owner, [{ slug, title: 'Wool Socks' }]);
      const importedAt = performance.now();
      await importReviews(t, owner, simpleReviews(productId!, slug, 5));
      let first = null;
      await vi
        .waitFor(
          async () => {
            first = await ok(client.summary(productId!));
            if (!first) throw new Error('not generated yet');
          },
          { timeout: 30_000, interval: 50 },
        )
        .catch(() => {});
      expect(first).toMatchObject({ reviewCount: 5 });
      expect(performance.now() - importedAt).toBeLessThan(20_000);
    } finally {
      await runner.stop();
    }
  });
});

describe('the OpenAI-compatible generator', () => {
  interface Exchange {
    status?: number;
    body?: unknown;
    raw?: string;
    delayMs?: number;
  }
  let server: Server;
  let url: string;
  let next: Exchange = {};
  const received: { headers: IncomingMessage['headers']; body: any }[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      let text = '';
      request.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, body: JSON.parse(text) });
        const { status = 200, body, raw, delayMs = 0 } = next;
        setTimeout(() => {
          if (response.destroyed) return;
          response.writeHead(status, { 'content-type': 'application/json' });
          response.end(raw ?? JSON.stringify(body));
        }, delayMs);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const completion = (content: string) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  });

  it('is chosen by configuration, validated at start', () => {
    const config = loadConfig({
      REVIEW_SUMMARY_GENERATOR: 'openai',
      REVIEW_SUMMARY_OPENAI_URL: 'https://llm.example/v1/',
      REVIEW_SUMMARY_OPENAI_MODEL: 'gpt-4o-mini',
      REVIEW_SUMMARY_OPENAI_KEY: 'sk-test',
    });
    expect(config.reviewSummaryGenerator).toEqual({
      kind: 'openai',
      url: 'https://llm.example/v1',
      apiKey: 'sk-test',
      model: 'gpt-4o-mini',
      timeoutMs: 30_000,
    });
    expect(createSummaryGenerator(config.reviewSummaryGenerator)).toMatchObject({
      kind: 'openai',
      modelId: 'gpt-4o-mini',
      promptVersion: 1,
    });
    expect(loadConfig({}).reviewSummaryGenerator).toEqual({ kind: 'builtin' });
    expect(createSummaryGenerator(loadConfig({}).reviewSummaryGenerator)).toMatchObject({
      kind: 'builtin',
      modelId: 'patron-extractive',
    });
    expect(() => loadConfig({ REVIEW_SUMMARY_GENERATOR: 'gpt' })).toThrow(ConfigError);
    expect(() => loadConfig({ REVIEW_SUMMARY_GENERATOR: 'openai', REVIEW_SUMMARY_OPENAI_MODEL: 'm' })).toThrow(
      /Missing REVIEW_SUMMARY_OPENAI_URL/,
    );
    expect(() =>
      loadConfig({ REVIEW_SUMMARY_GENERATOR: 'openai', REVIEW_SUMMARY_OPENAI_URL: 'https://x.example' }),
    ).toThrow(/Missing REVIEW_SUMMARY_OPENAI_MODEL/);
    expect(() => loadConfig({ REVIEW_SUMMARY_OPENAI_URL: 'ftp://x' })).toThrow(/Invalid REVIEW_SUMMARY_OPENAI_URL/);
    expect(() => loadConfig({ REVIEW_SUMMARY_OPENAI_TIMEOUT_MS: 'soon' })).toThrow(
      /Invalid REVIEW_SUMMARY_OPENAI_TIMEOUT_MS/,
    );
    expect(scheduledJobs(config).map((job) => job.name)).toEqual([
      'retention.prune',
      'loyalty.overnight',
      'reviewSummary.generate',
      'reviewSummary.refresh',
      'testData.reset',
      'exportJob.write',
      'importJob.run',
    ]);
  });

  it('writes what the model answers, sending only published reviews, and leaves the summary untouched on errors', async () => {
    const clock: Clock = { now: new Date() };
    const owner = await tenant();
    const client = api(t, owner);
    const p = await product(owner, 5, clock);
    await importReviews(t, owner, [
      ...simpleReviews(p.productId, `${p.slug}-secret`, 1, {
        published: false,
        body: 'UNPUBLISHED-CANARY text that must never be sent.',
      }),
      ...simpleReviews(p.productId, `${p.slug}-flag`, 1, {
        flagged: true,
        body: 'FLAGGED-CANARY text that must never be sent.',
      }),
    ]);
    const registry = new Registry();
    const logger = recordingLogger();
    const generator = createOpenAiGenerator({ url, apiKey: 'sk-stand-in', model: 'stand-in-model', timeoutMs: 300 });
    const runner = summaryRunner(t, clock, { generator, registry, logger, maxAttempts: 1 });
    const regenerate = async () => {
      await db()
        .updateTable('review_summaries')
        .set({ regenerate_requested_at: null })
        .where('product_id', '=', p.productId)
        .execute();
      expect(await ok(client.regenerate(p.productId), 202)).toEqual({ queued: true });
      await drain(runner, clock, new Date(Date.now() + 1_000));
      return ok(client.summary(p.productId));
    };

    next = {
      body: completion(
        '```json\n' +
          JSON.stringify({
            summary: 'Reviewers love the fit and the soft fabric.',
            themes: [{ label: 'fit', sentiment: 'positive', reviewCount: 3, note: 'dropped' }],
            language: 'EN',
            confidence: 0.9,
          }) +
          '\n```',
      ),
    };
    const written = await regenerate();
    expect(written).toMatchObject({
      summary: 'Reviewers love the fit and the soft fabric.',
      themes: [{ label: 'fit', sentiment: 'positive', reviewCount: 3 }],
      language: 'en',
      reviewCount: 5,
      modelId: 'stand-in-model',
      promptVersion: 1,
      previous: { modelId: 'patron-extractive' },
    });
    const request = received.at(-1)!;
    expect(request.headers.authorization).toBe('Bearer sk-stand-in');
    expect(request.body).toMatchObject({
      model: 'stand-in-model',
      temperature: 0,
      response_format: { type: 'json_object' },
    });
    const prompt = JSON.stringify(request.body.messages);
    expect(prompt).toContain('The fit is perfect');
    expect(prompt).not.toContain('UNPUBLISHED-CANARY');
    expect(prompt).not.toContain('FLAGGED-CANARY');

    const failures: [Exchange, string][] = [
      [{ status: 500, body: { error: { message: 'overloaded' } } }, 'http_error'],
      [{ status: 429, body: { error: { message: 'rate limited' } } }, 'http_error'],
      [{ raw: 'not json' }, 'invalid_output'],
      [{ body: completion('Sure! Here is a summary: the shirt is nice.') }, 'invalid_output'],
      [
        {
          body: completion(
            JSON.stringify({
              summary: 'Nice.',
              themes: [{ label: 'fit', sentiment: 'ok', reviewCount: 1 }],
              language: 'en',
            }),
          ),
        },
        'invalid_output',
      ],
      [
        {
          body: completion(
            JSON.stringify({
              summary: 'Nice.',
              themes: [{ label: 'fit', sentiment: 'positive', reviewCount: 50 }],
              language: 'en',
            }),
          ),
        },
        'invalid_output',
      ],
      [{ body: { choices: [] } }, 'invalid_output'],
      [
        { body: completion(JSON.stringify({ summary: 'Nice.', themes: [], language: 'en' })), delayMs: 1_000 },
        'timeout',
      ],
    ];
    for (const [exchange, reason] of failures) {
      next = exchange;
      expect(await regenerate(), `${reason}: ${JSON.stringify(exchange).slice(0, 80)}`).toEqual(written);
      expect(
        logger.lines.filter((line) => line.message.startsWith('review summary generation failed')).at(-1),
      ).toMatchObject({ level: 'error', object: { failure: reason, generator: 'openai', productId: p.productId } });
    }
    expect(
      await counterValue(registry, 'patron_review_summary_generation_failures_total', {
        generator: 'openai',
        reason: 'http_error',
      }),
    ).toBe(2);
    expect(
      await counterValue(registry, 'patron_review_summary_generation_failures_total', {
        generator: 'openai',
        reason: 'invalid_output',
      }),
    ).toBe(5);
    expect(
      await counterValue(registry, 'patron_review_summary_generation_failures_total', {
        generator: 'openai',
        reason: 'timeout',
      }),
    ).toBe(1);
    expect(
      await counterValue(registry, 'patron_review_summary_generations_total', {
        generator: 'openai',
        outcome: 'succeeded',
      }),
    ).toBe(1);

    // A server that cannot be reached.
    const unreachable = createOpenAiGenerator({ url: 'http://127.0.0.1:1/v1', model: 'm', timeoutMs: 300 });
    await expect(unreachable.generate([])).rejects.toMatchObject({ reason: 'network_error' });
  });
});
