import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobRunner } from '../../src/jobs/runner/runner.js';
import { overnightJob } from '../../src/resources/loyalty/engine/overnight/overnight.js';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';

/** The loyalty mails a customer asked for (docs/api.md#mail): rewardIssued, rewardExpiringSoon, pointsExpiringSoon. */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const DAY = 86_400_000;
const quiet = { info() {}, warn() {}, error() {} };
const db = () => t.testDatabase.database.db;
const req = (tenant: Tenant, method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) =>
  t.request({ method, url: `/v1${url}`, key: tenant.key, ...(body !== undefined ? { body } : {}) });
async function ok<T = any>(promise: ReturnType<typeof req>, status = 200): Promise<T> {
  const response = await promise;
  expect(response.statusCode, response.body).toBe(status);
  return response.json<T>();
}

interface MailEntry {
  id: string;
  kind: string;
  recipient: string;
  customerId: string | null;
  subject: string;
  status: string;
  marketing: boolean;
}
const mailLog = async (tenant: Tenant): Promise<MailEntry[]> => (await ok(req(tenant, 'GET', '/mail-log'))).data;
const bodyOf = (id: string) =>
  db().selectFrom('mail').select(['html', 'text']).where('id', '=', id).executeTakeFirstOrThrow();

const coupon = { type: 'percentageCoupon', percentageDiscount: 10, productFilter: null, minimumOrderTotalCents: null };

const templates = {
  rewardIssued: {
    name: 'Reward issued',
    kind: 'rewardIssued',
    subject: 'A reward for {{ customer.firstName }} {{ customer.lastName }}: {{ reward.code }}',
    html: '<p>{{ organization.name }}: {{ reward.description }}, until {{ reward.expiresAt }}.</p>',
    text: '{{ customer.email }} {{ reward.description }}',
  },
  rewardExpiringSoon: {
    name: 'Reward expiring',
    kind: 'rewardExpiringSoon',
    subject: '{{ customer.firstName }}, {{ reward.code }} expires in {{ daysLeft }} days',
    html: '<p>{{ reward.description }} at {{ organization.name }}</p>',
  },
  pointsExpiringSoon: {
    name: 'Points expiring',
    kind: 'pointsExpiringSoon',
    subject: '{{ customer.firstName }}, {{ points }} points expire at {{ expiresAt }}',
    html: '<p>{{ points }}</p>',
  },
};
const template = (tenant: Tenant, kind: keyof typeof templates, extra: Record<string, unknown> = {}) =>
  ok(req(tenant, 'POST', '/email-templates', { ...templates[kind], ...extra }), 201);

async function member(tenant: Tenant, email: string, fields: Record<string, unknown> = {}) {
  const { data } = await ok(
    req(tenant, 'POST', '/customers/import', { data: [{ email, firstName: 'Ada', lastName: 'Lovelace', ...fields }] }),
  );
  const membership = await ok(req(tenant, 'POST', '/loyalty-memberships', { customerId: data[0].id }), 201);
  return { customerId: data[0].id as string, membership };
}
const issue = (tenant: Tenant, membershipId: string, extra: Record<string, unknown> = {}) =>
  req(tenant, 'POST', '/loyalty-rewards', { loyaltyMembershipId: membershipId, reward: coupon, ...extra });

describe('rewardIssued mail', () => {
  it('is queued with the reward when an active template exists, rendered for the customer', async () => {
    const tenant = await t.tenant();
    await template(tenant, 'rewardIssued');
    const { customerId, membership } = await member(tenant, 'ada@example.com');
    const expiresAt = new Date(Date.now() + 30 * DAY).toISOString();
    const reward = await ok(issue(tenant, membership.id, { expiresAt, reason: 'Sorry for the wait' }), 201);

    const log = await mailLog(tenant);
    expect(log).toEqual([
      expect.objectContaining({
        kind: 'rewardIssued',
        marketing: false,
        status: 'queued',
        recipient: 'ada@example.com',
        customerId,
        subject: `A reward for Ada Lovelace: ${reward.code}`,
      }),
    ]);
    const body = await bodyOf(log[0]!.id);
    expect(body.html).toBe(`<p>${tenant.organization.name}: Sorry for the wait, until ${reward.expiresAt}.</p>`);
    expect(body.text).toBe('ada@example.com Sorry for the wait');
  });

  it('queues nothing without a template, or with only an inactive one', async () => {
    const tenant = await t.tenant();
    const { membership } = await member(tenant, 'bo@example.com');
    await ok(issue(tenant, membership.id), 201);
    expect(await mailLog(tenant)).toEqual([]);

    await template(tenant, 'rewardIssued', { isActive: false });
    await template(tenant, 'rewardExpiringSoon');
    await ok(issue(tenant, membership.id), 201);
    expect(await mailLog(tenant)).toEqual([]);
  });

  it('goes to a customer who opted out of email: it is mail they asked for', async () => {
    const tenant = await t.tenant();
    await template(tenant, 'rewardIssued');
    const { membership } = await member(tenant, 'out@example.com', { emailOptOut: true });
    const reward = await ok(issue(tenant, membership.id), 201);
    expect(await mailLog(tenant)).toEqual([
      expect.objectContaining({ kind: 'rewardIssued', recipient: 'out@example.com', marketing: false }),
    ]);
    // Without a rule or a reason, the description says what the reward gives.
    expect((await bodyOf((await mailLog(tenant))[0]!.id)).text).toBe('out@example.com 10% off');
    expect(reward.code).toBeTruthy();
  });

  it('queues nothing when the issue fails, and one mail per claimed reward', async () => {
    const tenant = await t.tenant();
    await template(tenant, 'rewardIssued');
    const { membership } = await member(tenant, 'cy@example.com');
    const rule = await ok(
      req(tenant, 'POST', '/loyalty-rules', {
        section: 'rewards',
        name: 'Ten percent for 100 points',
        config: { pointsCost: 100, reward: coupon },
      }),
      201,
    );
    // Short of points: 409, no reward, no mail.
    const short = await req(tenant, 'POST', `/loyalty-memberships/${membership.id}/claim`, { loyaltyRuleId: rule.id });
    expect(short.statusCode, short.body).toBe(409);
    // A member who left: 409 from the single-statement path, no mail.
    const { membership: gone } = await member(tenant, 'gone@example.com');
    await ok(req(tenant, 'POST', `/loyalty-memberships/${gone.id}/leave`, {}));
    expect((await issue(tenant, gone.id)).statusCode).toBe(409);
    expect(await mailLog(tenant)).toEqual([]);

    await ok(
      req(tenant, 'POST', `/loyalty-memberships/${membership.id}/points-adjustments`, {
        points: 150,
        reason: 'welcome',
      }),
    );
    const claimed = await ok(
      req(tenant, 'POST', `/loyalty-memberships/${membership.id}/claim`, { loyaltyRuleId: rule.id }),
      201,
    );
    const log = await mailLog(tenant);
    expect(log.map((entry) => [entry.kind, entry.recipient, entry.subject])).toEqual([
      ['rewardIssued', 'cy@example.com', `A reward for Ada Lovelace: ${claimed.code}`],
    ]);
    expect((await bodyOf(log[0]!.id)).text).toBe('cy@example.com Ten percent for 100 points');
  });

  it('issues the reward but skips its mail when the template cannot be rendered', async () => {
    const tenant = await t.tenant();
    const big = await template(tenant, 'rewardIssued', {
      // Light for the sample customer (so it can be saved), over the render limits for this one.
      text: '{% if customer.email != "ada@example.com" %}{% for i in (1..100000000) %}x{% endfor %}{% endif %}',
    });
    const { membership } = await member(tenant, 'big@example.com');
    const reward = await ok(issue(tenant, membership.id), 201);
    expect(await mailLog(tenant)).toEqual([]);
    expect((await ok(req(tenant, 'GET', `/loyalty-rewards/${reward.id}`))).status).toBe('pending');
    // Once the template renders again, the next reward's mail goes out.
    await ok(req(tenant, 'PATCH', `/email-templates/${big.id}`, { text: '{{ reward.code }}' }));
    const next = await ok(issue(tenant, membership.id), 201);
    expect((await mailLog(tenant)).map((entry) => entry.subject)).toEqual([`A reward for Ada Lovelace: ${next.code}`]);
  });

  it('is queued for a reward issued by earning on order import', async () => {
    const tenant = await t.tenant();
    await template(tenant, 'rewardIssued');
    await ok(req(tenant, 'POST', '/sites', { name: 'Shop', domain: 'shop.example.com' }), 201);
    const { customerId } = await member(tenant, 'dee@example.com', { firstName: 'Dee', lastName: 'Dee' });
    await ok(
      req(tenant, 'POST', '/loyalty-rules', {
        section: 'offers',
        name: 'January gift',
        config: { type: 'reward', reward: coupon, startsAt: '2025-01-01T00:00:00Z', endsAt: '2025-02-01T00:00:00Z' },
      }),
      201,
    );
    await ok(
      req(tenant, 'POST', '/orders/import', {
        data: [
          {
            site: 'shop.example.com',
            customer: 'dee@example.com',
            remoteId: 'J1',
            number: '#J1',
            totalCents: 2_000,
            createdAt: '2025-01-10T12:00:00Z',
          },
        ],
      }),
    );
    const rewards = (await ok(req(tenant, 'GET', '/loyalty-rewards'))).data;
    expect(rewards).toHaveLength(1);
    const log = await mailLog(tenant);
    expect(log.map((entry) => [entry.kind, entry.recipient, entry.customerId, entry.subject])).toEqual([
      ['rewardIssued', 'dee@example.com', customerId, `A reward for Dee Dee: ${rewards[0].code}`],
    ]);
    expect((await bodyOf(log[0]!.id)).text).toBe('dee@example.com January gift');
  });
});

describe('expiring-soon mails', () => {
  /** 04:00 UTC on the day `days` from today: after the 03:00 run time of a UTC organization. */
  const morning = (days: number) => new Date(Math.floor(Date.now() / DAY) * DAY + days * DAY + 4 * 3_600_000);

  it('the overnight job queues rewardExpiringSoon and pointsExpiringSoon with each announcement, once', async () => {
    const tenant = await t.tenant();
    const [program] = (await ok(req(tenant, 'GET', '/loyalty-programs'))).data;
    await ok(
      req(tenant, 'PATCH', `/loyalty-programs/${program.id}`, { pointsExpiry: { type: 'daysAfterEarning', days: 5 } }),
    );
    const ann = await member(tenant, 'ann@example.com', { firstName: 'Ann' });
    const bob = await member(tenant, 'bob@example.com', { firstName: 'Bob', emailOptOut: true });
    await ok(
      req(tenant, 'POST', `/loyalty-memberships/${ann.membership.id}/points-adjustments`, {
        points: 70,
        reason: 'welcome',
      }),
    );
    const expiresAt = new Date(morning(1).getTime() + 3 * DAY + 3_600_000).toISOString();
    const soon = await ok(issue(tenant, bob.membership.id, { expiresAt }), 201);
    await template(tenant, 'rewardExpiringSoon');
    await template(tenant, 'pointsExpiringSoon');

    const clock = { now: morning(1) };
    const jobs = createJobRunner({ db: db(), jobs: [overnightJob], logger: quiet, now: () => clock.now });
    await jobs.tick();
    const log = await mailLog(tenant);
    const credit = (
      await db()
        .selectFrom('loyalty_transactions')
        .select('expires_at')
        .where('loyalty_membership_id', '=', ann.membership.id)
        .executeTakeFirstOrThrow()
    ).expires_at!;
    expect(log.map((entry) => [entry.kind, entry.recipient, entry.customerId, entry.subject]).sort()).toEqual([
      ['pointsExpiringSoon', 'ann@example.com', ann.customerId, `Ann, 70 points expire at ${credit.toISOString()}`],
      ['rewardExpiringSoon', 'bob@example.com', bob.customerId, `Bob, ${soon.code} expires in 3 days`],
    ]);
    expect((await bodyOf(log.find((entry) => entry.kind === 'rewardExpiringSoon')!.id)).html).toBe(
      `<p>10% off at ${tenant.organization.name}</p>`,
    );

    // The next nights announce nothing again, so no mail is queued again.
    clock.now = morning(2);
    await jobs.tick();
    expect(await mailLog(tenant)).toHaveLength(2);
  });

  it('queues nothing without templates of those kinds', async () => {
    const tenant = await t.tenant();
    await template(tenant, 'rewardIssued');
    const cy = await member(tenant, 'cy@example.com');
    await ok(
      issue(tenant, cy.membership.id, { expiresAt: new Date(morning(1).getTime() + 2 * DAY).toISOString() }),
      201,
    );
    const clock = { now: morning(1) };
    await createJobRunner({ db: db(), jobs: [overnightJob], logger: quiet, now: () => clock.now }).tick();
    expect((await mailLog(tenant)).map((entry) => entry.kind)).toEqual(['rewardIssued']);
    const announced = await db()
      .selectFrom('events')
      .select('name')
      .where('organization_id', '=', tenant.organization.id)
      .where('name', '=', 'loyaltyReward.expiringSoon')
      .execute();
    expect(announced).toHaveLength(1);
  });
});
