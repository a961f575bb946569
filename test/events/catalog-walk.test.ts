/**
 * Every name in GET /v1/webhook-events fires (docs/api.md#event-catalog): on a fresh demo world, every documented
 * example is sent through the API as the document shows it, the queued jobs run (import and export jobs, the
 * overnight loyalty job on a later morning), and a few requests no example makes (a tier reached, a stamp card
 * filled, a referral, expiries) are sent too. Then each name of the catalog must have been recorded for the demo
 * organization at least once, and delivered to an endpoint subscribed to everything.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scheduledJobs } from '../../src/compose.js';
import { seedDemo, type DemoSeed } from '../../src/cli/demo.js';
import { operationExamples as OPERATION_EXAMPLES } from '../../src/compose.js';
import { DEMO } from '../../src/demo/ids.js';
import { createJobRunner } from '../../src/jobs/runner/runner.js';
import { overnightJob } from '../../src/resources/loyalty/engine/overnight/overnight.js';
import { startTestApp, type TestApp } from '../support/app.js';

type Json = Record<string, any>;
let t: TestApp;
let demo: DemoSeed;

beforeAll(async () => {
  t = await startTestApp({ config: { allowHttpWebhooks: true, webhookAllowPrivateHosts: true } });
  demo = await seedDemo(t.testDatabase.database, t.config);
}, 120_000);
afterAll(() => t?.close());

const db = () => t.testDatabase.database.db;
const silent = { info() {}, warn() {}, error() {} };
const DAY = 86_400_000;
/** 04:00 UTC on the day `days` from today: after the 03:00 run of the overnight job on the demo's UTC clock. */
const morning = (days: number) => new Date(Math.floor(Date.now() / DAY) * DAY + days * DAY + 4 * 3_600_000);

async function ok(method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown, status = 200) {
  const response = await t.request({ method, url, key: demo.key, body });
  expect(response.statusCode, `${method} ${url}: ${response.body}`).toBe(status);
  return response.json();
}

/**
 * What no documented example does, as a store would do it: fill a stamp card, refer a member, and let a reward and
 * some points run towards their expiry through two nights of the overnight job.
 */
async function sendTheRest(): Promise<void> {
  const { programs, rules, memberships } = DEMO;
  await ok('POST', '/v1/loyalty-stamps', {
    customer: 'ada@example.com',
    loyaltyProgramId: programs.main,
    stampCardRuleId: rules.stampCard,
    stamps: 10,
    key: 'walk-card',
  });
  const ada = await ok('GET', `/v1/loyalty-memberships/${memberships.ada}`);
  await ok(
    'POST',
    '/v1/loyalty-memberships',
    { customerId: DEMO.customers.barbara, loyaltyProgramId: programs.main },
    201,
  );
  await ok('POST', '/v1/loyalty-events', {
    customer: 'barbara@example.com',
    loyaltyProgramId: programs.main,
    event: 'newsletterSignup',
    key: 'walk-referral',
    referralCode: ada.referralCode,
  });
  await ok('PATCH', `/v1/loyalty-programs/${programs.main}`, { pointsExpiry: { type: 'daysAfterEarning', days: 10 } });
  await ok('POST', `/v1/loyalty-memberships/${memberships.ada}/points-adjustments`, { points: 50, reason: 'walk' });
  await ok(
    'POST',
    '/v1/loyalty-rewards',
    {
      loyaltyMembershipId: memberships.ada,
      reward: { type: 'freeShipping', maximumValueCents: null },
      expiresAt: new Date(Date.now() + 2 * DAY).toISOString(),
    },
    201,
  );
  const clock = { now: morning(1) };
  const nights = createJobRunner({ db: db(), jobs: [overnightJob], logger: silent, now: () => clock.now });
  await nights.tick();
  clock.now = morning(4);
  await nights.tick();
}

async function sendExamples(): Promise<void> {
  const document = (await t.request({ url: '/openapi.json' })).json() as Json;
  for (const [path, methods] of Object.entries(document.paths as Record<string, Json>)) {
    for (const [method, operation] of Object.entries(methods as Record<string, Json>)) {
      if (operation['x-session-only'] || operation['x-public']) continue;
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
      const media = operation.requestBody?.content?.[example.contentType ?? 'application/json'];
      const body = media?.examples ? Object.values(media.examples as Record<string, Json>)[0]!.value : undefined;
      await t.request({
        method: method.toUpperCase() as 'GET',
        url: query ? `${url}?${query}` : url,
        key: demo.key,
        body,
        headers: example.contentType ? { 'content-type': example.contentType } : {},
      });
    }
  }
}

describe('the event catalog', () => {
  it('fires every name it lists through the API', async () => {
    const catalog = (await t.request({ url: '/v1/webhook-events', key: demo.key })).json().data as { name: string }[];
    expect(catalog.length).toBeGreaterThanOrEqual(69);
    // An endpoint on this machine subscribed to every name: each event is fanned out to it when recorded.
    const everything = await ok(
      'POST',
      '/v1/webhooks',
      {
        url: 'http://127.0.0.1:9/catalog-walk',
        events: catalog.map((event) => event.name),
        hmacSecret: 'walk-secret-0123456789',
      },
      201,
    );
    await sendExamples();
    await sendTheRest();
    const runner = createJobRunner({ db: db(), jobs: scheduledJobs(t.config), logger: silent });
    while ((await runner.tick()) > 0);
    const fired = new Set(
      (
        await db()
          .selectFrom('events')
          .select('name')
          .distinct()
          .where('organization_id', '=', demo.organization.id)
          .execute()
      ).map((row) => row.name),
    );
    const missing = catalog.map((event) => event.name).filter((name) => !fired.has(name));
    expect(missing).toEqual([]);
    const delivered = new Set(
      (
        await db()
          .selectFrom('webhook_deliveries')
          .select('event_name')
          .distinct()
          .where('organization_id', '=', demo.organization.id)
          .where('webhook_id', '=', everything.id)
          .execute()
      ).map((row) => row.event_name),
    );
    expect(catalog.map((event) => event.name).filter((name) => !delivered.has(name))).toEqual([]);
  }, 180_000);
});
