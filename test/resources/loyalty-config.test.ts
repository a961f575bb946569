import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { eventsOf } from '../support/events.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;
const req = (tenant: Tenant, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) =>
  t.request({ method, url: `/v1${url}`, key: tenant.key, ...(body !== undefined ? { body } : {}) });

async function ok<T = any>(promise: ReturnType<typeof req>, status = 200): Promise<T> {
  const response = await promise;
  expect(response.statusCode, response.body).toBe(status);
  return response.json<T>();
}

const coupon = { type: 'percentageCoupon', percentageDiscount: 10, productFilter: null, minimumOrderTotalCents: null };

describe('loyalty programs', () => {
  it('gives every new organization one default program (D34)', async () => {
    const tenant = await t.tenant();
    const { data } = await ok(req(tenant, 'GET', '/loyalty-programs'));
    expect(data).toEqual([
      expect.objectContaining({
        name: 'Loyalty program',
        pointsName: 'points',
        defaultRewardExpiry: { type: 'never' },
        pointsExpiry: { type: 'never' },
        tierWindow: { type: 'lifetime' },
        metadata: {},
      }),
    ]);
  });

  it('creates, reads, updates and deletes with events', async () => {
    const tenant = await t.tenant();
    const created = await ok(
      req(tenant, 'POST', '/loyalty-programs', {
        data: {
          name: 'VIP',
          pointsName: 'stars',
          defaultRewardExpiry: { type: 'fixedDate', expiresAt: '2030-01-01T01:00:00+01:00' },
          pointsExpiry: { type: 'daysAfterEarning', days: 365 },
          tierWindow: { type: 'rolling', months: 12 },
        },
      }),
      201,
    );
    expect(created).toMatchObject({
      name: 'VIP',
      pointsName: 'stars',
      defaultRewardExpiry: { type: 'fixedDate', expiresAt: '2030-01-01T00:00:00.000Z' },
      pointsExpiry: { type: 'daysAfterEarning', days: 365 },
      tierWindow: { type: 'rolling', months: 12 },
    });
    expect(await ok(req(tenant, 'GET', `/loyalty-programs/${created.id}`))).toEqual(created);
    const updated = await ok(
      req(tenant, 'PATCH', `/loyalty-programs/${created.id}`, {
        tierWindow: { type: 'lifetime' },
        pointsExpiry: { type: 'never' },
      }),
    );
    expect(updated).toMatchObject({
      tierWindow: { type: 'lifetime' },
      pointsExpiry: { type: 'never' },
      pointsName: 'stars',
    });
    const deleted = await ok(req(tenant, 'DELETE', `/loyalty-programs/${created.id}`));
    expect(deleted.id).toBe(created.id);
    expect((await req(tenant, 'GET', `/loyalty-programs/${created.id}`)).statusCode).toBe(404);
    const events = await eventsOf(t, tenant.organization.id);
    expect(events.map((event) => event.name)).toEqual([
      'loyaltyProgram.created',
      'loyaltyProgram.updated',
      'loyaltyProgram.deleted',
    ]);
    expect(events[0]!.payload).toEqual(created);
    expect(events[1]!.payload).toEqual(updated);
  });

  it('validates bounds and requires a name', async () => {
    const tenant = await t.tenant();
    const bad = [
      [{ pointsExpiry: { type: 'daysAfterEarning', days: 0 }, name: 'x' }, 'body.pointsExpiry.days'],
      [{ pointsExpiry: { type: 'daysAfterEarning', days: 3651 }, name: 'x' }, 'body.pointsExpiry.days'],
      [{ defaultRewardExpiry: { type: 'daysAfterIssuance', days: 0 }, name: 'x' }, 'body.defaultRewardExpiry.days'],
      [
        { defaultRewardExpiry: { type: 'fixedDate', expiresAt: '2030-01-01T00:00:00' }, name: 'x' },
        'body.defaultRewardExpiry.expiresAt',
      ],
      [{ tierWindow: { type: 'rolling', months: 0 }, name: 'x' }, 'body.tierWindow.months'],
      [{ tierWindow: { type: 'rolling' }, name: 'x' }, 'body.tierWindow.months'],
      [{ tierWindow: { type: 'weekly' }, name: 'x' }, 'body.tierWindow.type'],
      [{ pointsName: 'stars' }, 'body.name'],
      [{ data: { name: 'x' }, name: 'y' }, 'body.name'],
    ] as const;
    for (const [body, path] of bad) {
      const response = await req(tenant, 'POST', '/loyalty-programs', body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().error.details.map((detail: { path: string }) => detail.path)).toContain(path);
    }
    expect(
      (
        await req(
          tenant,
          'PATCH',
          `/loyalty-programs/${(await ok(req(tenant, 'GET', '/loyalty-programs'))).data[0].id}`,
          {},
        )
      ).statusCode,
    ).toBe(400);
    expect(await eventsOf(t, tenant.organization.id)).toEqual([]);
  });

  it('keeps the only program, and a program with members (409)', async () => {
    const tenant = await t.tenant();
    const [program] = (await ok(req(tenant, 'GET', '/loyalty-programs'))).data;
    expect((await req(tenant, 'DELETE', `/loyalty-programs/${program.id}`)).statusCode).toBe(409);
    const other = await ok(req(tenant, 'POST', '/loyalty-programs', { name: 'Other' }), 201);
    await ok(req(tenant, 'POST', '/customers/import', { data: [{ email: 'm@example.com' }] }));
    const customer = (await ok(req(tenant, 'GET', '/customers'))).data[0];
    await ok(req(tenant, 'POST', '/loyalty-memberships', { customerId: customer.id, loyaltyProgramId: other.id }), 201);
    const refused = await req(tenant, 'DELETE', `/loyalty-programs/${other.id}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.message).toMatch(/1 member/);
  });

  it("answers another organization's program as missing", async () => {
    const [a, b] = [await t.tenant(), await t.tenant()];
    const [program] = (await ok(req(a, 'GET', '/loyalty-programs'))).data;
    for (const [method, body] of [['GET'], ['PATCH', { name: 'x' }], ['DELETE']] as const) {
      expect((await req(b, method, `/loyalty-programs/${program.id}`, body)).statusCode).toBe(404);
    }
    expect((await ok(req(b, 'GET', '/loyalty-programs'))).data.map((p: { id: string }) => p.id)).not.toContain(
      program.id,
    );
  });

  it('needs loyalty permissions', async () => {
    const tenant = await t.tenant({ permissions: ['loyalty:read'] });
    expect((await req(tenant, 'GET', '/loyalty-programs')).statusCode).toBe(200);
    expect((await req(tenant, 'POST', '/loyalty-programs', { name: 'x' })).statusCode).toBe(403);
  });
});

describe('loyalty tiers', () => {
  it('CRUD with events, unique thresholds, program defaulting (D34)', async () => {
    const tenant = await t.tenant();
    const [program] = (await ok(req(tenant, 'GET', '/loyalty-programs'))).data;
    const silver = await ok(
      req(tenant, 'POST', '/loyalty-tiers', { data: { name: 'Silver', thresholdPoints: 100, position: 1 } }),
      201,
    );
    expect(silver).toMatchObject({
      loyaltyProgramId: program.id,
      name: 'Silver',
      thresholdPoints: 100,
      position: 1,
      metadata: {},
    });
    expect((await req(tenant, 'POST', '/loyalty-tiers', { name: 'Dup', thresholdPoints: 100 })).statusCode).toBe(409);
    const updated = await ok(req(tenant, 'PATCH', `/loyalty-tiers/${silver.id}`, { name: 'Argent' }));
    expect(updated.name).toBe('Argent');
    expect(
      (await req(tenant, 'PATCH', `/loyalty-tiers/${silver.id}`, { loyaltyProgramId: program.id })).statusCode,
    ).toBe(400);
    expect(
      (await ok(req(tenant, 'GET', '/loyalty-tiers?sort=thresholdPoints'))).data.map((tier: { id: string }) => tier.id),
    ).toEqual([silver.id]);
    await ok(req(tenant, 'DELETE', `/loyalty-tiers/${silver.id}`));
    expect((await eventsOf(t, tenant.organization.id)).map((event) => event.name)).toEqual([
      'loyaltyTier.created',
      'loyaltyTier.updated',
      'loyaltyTier.deleted',
    ]);
    expect((await req(tenant, 'POST', '/loyalty-tiers', { name: 'x', thresholdPoints: -1 })).statusCode).toBe(400);
    expect((await req(tenant, 'POST', '/loyalty-tiers', { name: 'x', thresholdPoints: 2 ** 53 })).statusCode).toBe(400);
    const missing = await req(tenant, 'POST', '/loyalty-tiers', {
      name: 'x',
      thresholdPoints: 5,
      loyaltyProgramId: '0190a000-0000-7000-8000-000000000000',
    });
    expect(missing.statusCode).toBe(422);
  });

  it('requires loyaltyProgramId once there are several programs', async () => {
    const tenant = await t.tenant();
    await ok(req(tenant, 'POST', '/loyalty-programs', { name: 'Second' }), 201);
    const response = await req(tenant, 'POST', '/loyalty-tiers', { name: 'Gold', thresholdPoints: 5 });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details[0].path).toBe('body.loyaltyProgramId');
  });

  it("answers another organization's tier as missing", async () => {
    const [a, b] = [await t.tenant(), await t.tenant()];
    const tier = await ok(req(a, 'POST', '/loyalty-tiers', { name: 'Gold', thresholdPoints: 5 }), 201);
    for (const [method, body] of [['GET'], ['PATCH', { name: 'x' }], ['DELETE']] as const) {
      expect((await req(b, method, `/loyalty-tiers/${tier.id}`, body)).statusCode).toBe(404);
    }
  });
});

describe('loyalty rules', () => {
  const valid = {
    rules: [
      { type: 'orderSpend', pointsPerUnit: 1 },
      { type: 'event', eventName: 'birthday', points: 50, frequency: 'oncePerYear' },
    ],
    rewards: [{ pointsCost: 500, reward: coupon }],
    offers: [
      { type: 'pointsMultiplier', multiplier: 2, startsAt: '2026-01-01T00:00:00Z', endsAt: '2026-01-03T00:00:00Z' },
      {
        type: 'reward',
        reward: { type: 'freeShipping', maximumValueCents: null },
        startsAt: '2026-01-01T00:00:00Z',
        endsAt: '2026-02-01T00:00:00+02:00',
      },
    ],
    stampCards: [{ stampsRequired: 10, reward: { type: 'giftCard', amountCents: 500, expirySeconds: null } }],
  } as const;

  it('creates a rule of every section and fills in defaults', async () => {
    const tenant = await t.tenant();
    for (const [section, configs] of Object.entries(valid)) {
      for (const config of configs as readonly Record<string, unknown>[]) {
        const rule = await ok(
          req(tenant, 'POST', '/loyalty-rules', { data: { section, name: `${section} rule`, config } }),
          201,
        );
        expect(rule).toMatchObject({ section, isActive: true, metadata: {} });
        if (section === 'rules' && config.type === 'orderSpend')
          expect(rule.config).toEqual({
            type: 'orderSpend',
            pointsPerUnit: 1,
            unitCents: 100,
            minimumOrderTotalCents: null,
          });
        if (section === 'stampCards') expect(rule.config.stampsPerOrder).toBe(1);
        if (section === 'offers' && config.type === 'reward')
          expect(rule.config.endsAt).toBe('2026-01-31T22:00:00.000Z');
      }
    }
    const { data } = await ok(
      req(tenant, 'GET', `/loyalty-rules?filter=${encodeURIComponent(JSON.stringify({ section: 'offers' }))}`),
    );
    expect(data).toHaveLength(2);
    expect((await eventsOf(t, tenant.organization.id, 'loyaltyRule.created')).length).toBe(6);
  });

  it("checks each section's config to the exact bounds of service.md", async () => {
    const tenant = await t.tenant();
    const cases: [string, unknown, string][] = [
      [
        'rewards',
        { pointsCost: 10, reward: { ...coupon, percentageDiscount: 0 } },
        'body.config.reward.percentageDiscount',
      ],
      [
        'rewards',
        { pointsCost: 10, reward: { ...coupon, percentageDiscount: 101 } },
        'body.config.reward.percentageDiscount',
      ],
      [
        'rewards',
        {
          pointsCost: 10,
          reward: { type: 'amountCoupon', amountCents: 0, productFilter: null, minimumOrderTotalCents: null },
        },
        'body.config.reward.amountCents',
      ],
      [
        'rewards',
        {
          pointsCost: 10,
          reward: { type: 'amountCoupon', amountCents: 2 ** 53, productFilter: null, minimumOrderTotalCents: null },
        },
        'body.config.reward.amountCents',
      ],
      [
        'rewards',
        { pointsCost: 10, reward: { ...coupon, expiry: { type: 'daysAfterIssuance', days: 0 } } },
        'body.config.reward.expiry.days',
      ],
      [
        'rewards',
        { pointsCost: 10, reward: { ...coupon, expiry: { type: 'daysAfterIssuance', days: 3651 } } },
        'body.config.reward.expiry.days',
      ],
      ['rewards', { pointsCost: 10, reward: { type: 'points', amount: 5 } }, 'body.config.reward.type'],
      ['rewards', { pointsCost: 0, reward: coupon }, 'body.config.pointsCost'],
      ['rules', { type: 'orderSpend' }, 'body.config.pointsPerUnit'],
      ['rules', { type: 'event', eventName: 'has space', points: 1 }, 'body.config.eventName'],
      [
        'offers',
        { type: 'pointsMultiplier', multiplier: 2, startsAt: '2026-01-03T00:00:00Z', endsAt: '2026-01-01T00:00:00Z' },
        'body.config.endsAt',
      ],
      [
        'offers',
        { type: 'pointsMultiplier', multiplier: 101, startsAt: '2026-01-01T00:00:00Z', endsAt: '2026-01-03T00:00:00Z' },
        'body.config.multiplier',
      ],
      ['stampCards', { stampsRequired: 0, reward: coupon }, 'body.config.stampsRequired'],
      [
        'stampCards',
        { stampsRequired: 5, reward: { type: 'giftCard', amountCents: 5, expirySeconds: 0 } },
        'body.config.reward.expirySeconds',
      ],
    ];
    for (const [section, config, path] of cases) {
      const response = await req(tenant, 'POST', '/loyalty-rules', { section, name: 'x', config });
      expect(response.statusCode, JSON.stringify(config)).toBe(400);
      expect(
        response.json().error.details.map((detail: { path: string }) => detail.path),
        JSON.stringify(config),
      ).toContain(path);
    }
    expect((await req(tenant, 'POST', '/loyalty-rules', { section: 'bonus', name: 'x', config: {} })).statusCode).toBe(
      400,
    );
    // Found by the bad-input fuzzer: config takes any object, and with an Idempotency-Key a deeply nested one
    // overflowed the stack while the body was fingerprinted (a 500).
    const deep = `{"section":"rules","name":"x","config":{"type":"orderSpend","pointsPerUnit":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}}`;
    const nested = await t.request({
      method: 'POST',
      url: '/v1/loyalty-rules',
      key: tenant.key,
      body: deep,
      headers: { 'content-type': 'application/json', 'idempotency-key': 'deep-1' },
    });
    expect(nested.statusCode).toBe(400);
    expect(await eventsOf(t, tenant.organization.id)).toEqual([]);
  });

  it('refuses a wrong config before claiming its Idempotency-Key: 400, nothing stored, the key still free', async () => {
    const tenant = await t.tenant();
    const post = (body: unknown, key?: string) =>
      t.request({
        method: 'POST',
        url: '/v1/loyalty-rules',
        key: tenant.key,
        body,
        ...(key ? { headers: { 'idempotency-key': key } } : {}),
      });
    // A stampCards config sent for an earning rule: well formed, but not the shape of the section it names.
    const wrong = { data: { section: 'rules', name: 'Spend', config: valid.stampCards[0] } };
    const without = await post(wrong);
    expect(without.statusCode).toBe(400);
    for (const attempt of [1, 2]) {
      const refused = await post(wrong, 'rule-config-1');
      expect(refused.statusCode, `attempt ${attempt}`).toBe(400);
      expect(refused.headers['idempotent-replayed']).toBeUndefined();
      // The same error as without a key, naming the paths under config.
      expect(refused.json()).toEqual(without.json());
      expect(refused.json().error).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(refused.json().error.details.map((detail: { path: string }) => detail.path)).toContain(
        'body.data.config.type',
      );
    }
    // A missing required field is refused before the claim too.
    expect((await post({ data: { section: 'rules', config: valid.rules[0] } }, 'rule-config-1')).statusCode).toBe(400);
    expect(await eventsOf(t, tenant.organization.id)).toEqual([]);
    expect(await ok(req(tenant, 'GET', '/loyalty-rules'))).toMatchObject({ data: [] });
    const claims = await db()
      .selectFrom('idempotency_keys')
      .select('key')
      .where('organization_id', '=', tenant.organization.id)
      .execute();
    expect(claims).toEqual([]);

    // The corrected request with the same key runs (no conflict with the refused body), and a retry replays it.
    const right = { data: { section: 'rules', name: 'Spend', config: valid.rules[0] } };
    const created = await post(right, 'rule-config-1');
    expect(created.statusCode, created.body).toBe(201);
    const replayed = await post(right, 'rule-config-1');
    expect(replayed.statusCode).toBe(201);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.json()).toEqual(created.json());
    // Validation comes before the key is looked at, whoever holds it: the wrong body is still 400, not 409.
    expect((await post(wrong, 'rule-config-1')).statusCode).toBe(400);
    expect(await eventsOf(t, tenant.organization.id, 'loyaltyRule.created')).toHaveLength(1);
  });

  it("updates config against the rule's section, and deletes from configuration only", async () => {
    const tenant = await t.tenant();
    const rule = await ok(
      req(tenant, 'POST', '/loyalty-rules', { section: 'stampCards', name: 'Coffee', config: valid.stampCards[0] }),
      201,
    );
    expect(
      (await req(tenant, 'PATCH', `/loyalty-rules/${rule.id}`, { config: { type: 'orderSpend', pointsPerUnit: 1 } }))
        .statusCode,
    ).toBe(400);
    expect((await req(tenant, 'PATCH', `/loyalty-rules/${rule.id}`, { section: 'rules' })).statusCode).toBe(400);
    const updated = await ok(
      req(tenant, 'PATCH', `/loyalty-rules/${rule.id}`, {
        config: { ...valid.stampCards[0], stampsRequired: 8 },
        isActive: false,
      }),
    );
    expect(updated).toMatchObject({ isActive: false, config: { stampsRequired: 8 } });
    const deleted = await ok(req(tenant, 'DELETE', `/loyalty-rules/${rule.id}`));
    expect(deleted.id).toBe(rule.id);
    expect((await req(tenant, 'GET', `/loyalty-rules/${rule.id}`)).statusCode).toBe(404);
    expect((await req(tenant, 'DELETE', `/loyalty-rules/${rule.id}`)).statusCode).toBe(404);
    // A config that fits no section's shape is invalid whatever rule it names: 400 even for a rule that is gone.
    const shapeless = await req(tenant, 'PATCH', `/loyalty-rules/${rule.id}`, { config: { pointsCost: 'many' } });
    expect(shapeless.statusCode).toBe(400);
    expect(shapeless.json().error.details).toEqual([{ path: 'body.config', message: "fits no section's config" }]);
    expect(
      (
        await req(tenant, 'PATCH', `/loyalty-rules/${rule.id}`, {
          config: { ...valid.stampCards[0], stampsRequired: 9 },
        })
      ).statusCode,
    ).toBe(404);
    expect((await ok(req(tenant, 'GET', '/loyalty-rules'))).data).toEqual([]);
    // The row stays for the rewards that name it.
    expect(
      await db().selectFrom('loyalty_rules').select('id').where('id', '=', rule.id).executeTakeFirst(),
    ).toBeTruthy();
    expect((await eventsOf(t, tenant.organization.id)).map((event) => event.name)).toEqual([
      'loyaltyRule.created',
      'loyaltyRule.updated',
      'loyaltyRule.deleted',
    ]);
  });

  it("answers another organization's rule as missing", async () => {
    const [a, b] = [await t.tenant(), await t.tenant()];
    const rule = await ok(
      req(a, 'POST', '/loyalty-rules', { section: 'rules', name: 'Spend', config: valid.rules[0] }),
      201,
    );
    for (const [method, body] of [['GET'], ['PATCH', { name: 'x' }], ['DELETE']] as const) {
      expect((await req(b, method, `/loyalty-rules/${rule.id}`, body)).statusCode).toBe(404);
    }
  });
});
