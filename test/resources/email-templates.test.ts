import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type Tenant } from '../support/app.js';
import { activeTemplateFor, renderTemplate } from '../../src/resources/email-templates/index.js';
import { eventsOf } from '../support/events.js';

let t: TestApp;
let a: Tenant;
let b: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.tenant();
  b = await t.tenant();
});
afterAll(() => t.close());

const db = () => t.testDatabase.database.db;

/** Only this resource's events: the tests count them before and after a write. */
const TEMPLATE_EVENTS = { namePrefix: 'emailTemplate.' };

interface EmailTemplateRecord {
  id: string;
  name: string;
  kind: string;
  subject: string;
  html: string;
  text: string;
  locale: string;
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
}

const reward = {
  kind: 'rewardIssued',
  name: 'Reward issued',
  subject: 'A reward for you, {{ customer.firstName }}',
  html: '<p>Hi {{ customer.firstName }}, use <b>{{ reward.code }}</b> at {{ organization.name }}.</p>',
  text: 'Hi {{ customer.firstName }}, use {{ reward.code }}.',
};

async function create(tenant: Tenant, body: Record<string, unknown>): Promise<EmailTemplateRecord> {
  const response = await t.request({ method: 'POST', url: '/v1/email-templates', key: tenant.key, body });
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

const post = (tenant: Tenant, body: unknown) =>
  t.request({ method: 'POST', url: '/v1/email-templates', key: tenant.key, body });
const patch = (tenant: Tenant, id: string, body: unknown) =>
  t.request({ method: 'PATCH', url: `/v1/email-templates/${id}`, key: tenant.key, body });
const preview = (tenant: Tenant, id: string, body?: unknown) =>
  t.request({ method: 'POST', url: `/v1/email-templates/${id}/preview`, key: tenant.key, body: body ?? {} });

const q = (value: unknown) => encodeURIComponent(JSON.stringify(value));

describe('POST /v1/email-templates', () => {
  it('saves a template with its defaults and sends emailTemplate.created in the same transaction', async () => {
    const before = (await eventsOf(t, a.organization.id, TEMPLATE_EVENTS)).length;
    const created = await create(a, { ...reward, text: undefined, locale: 'de-at', isActive: false });
    expect(created).toMatchObject({ ...reward, text: '', locale: 'de-AT', isActive: false });
    expect(created.createdAt).toBe(created.updatedAt);
    const events = (await eventsOf(t, a.organization.id, TEMPLATE_EVENTS)).slice(before);
    expect(events.map((event) => event.name)).toEqual(['emailTemplate.created']);
    expect(events[0]!.payload).toEqual(created);
  });

  it('takes the fields inside data, with locale en and isActive true by default', async () => {
    const tenant = await t.tenant();
    const created = await create(tenant, { data: reward });
    expect(created).toMatchObject({ locale: 'en', isActive: true });
  });

  it('refuses a syntax error naming the field, line and column, and writes nothing', async () => {
    const before = (await eventsOf(t, a.organization.id, TEMPLATE_EVENTS)).length;
    const response = await post(a, { ...reward, html: '<p>Hi</p>\n<p>{% if customer.firstName %}Hello</p>' });
    expect(response.statusCode, response.body).toBe(400);
    const { error } = response.json();
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details).toHaveLength(1);
    expect(error.details[0].path).toBe('body.html');
    expect(error.details[0].message).toMatch(/line:2, col:4/);
    const unclosed = await post(a, { ...reward, subject: 'Hi {{ customer.firstName ' });
    expect(unclosed.statusCode).toBe(400);
    expect(unclosed.json().error.details[0].path).toBe('body.subject');
    const filter = await post(a, { ...reward, text: '{{ customer.firstName | shout }}' });
    expect(filter.statusCode).toBe(400);
    expect(filter.json().error.details[0]).toMatchObject({ path: 'body.text' });
    expect(filter.json().error.details[0].message).toMatch(/shout/);
    expect((await eventsOf(t, a.organization.id, TEMPLATE_EVENTS)).length).toBe(before);
  });

  it("refuses variables the kind does not have, naming each and its field, and accepts the template's own", async () => {
    const response = await post(a, {
      ...reward,
      subject: '{{ survey.url }}',
      html: '{{ customer.firstNme }} {{ reward.code }}',
      text: '{{ daysLeft }}',
    });
    expect(response.statusCode, response.body).toBe(400);
    const details = response.json().error.details as { path: string; message: string }[];
    expect(details.map((detail) => detail.path)).toEqual(['body.subject', 'body.html', 'body.text']);
    expect(details[0]!.message).toMatch(/unknown variable survey\b/);
    expect(details[1]!.message).toMatch(/unknown variable customer\.firstNme/);
    expect(details[2]!.message).toMatch(/unknown variable daysLeft/);
    expect(response.json().error.message).toMatch(/body\.subject/);
    const own = await post(a, {
      ...reward,
      kind: 'pointsExpiringSoon',
      locale: 'fr',
      subject: '{{ points }} points expire',
      html: '{% assign who = customer.firstName | default: "there" %}{% for i in (1..2) %}{{ forloop.index }}{{ who }}{% endfor %} {{ expiresAt | date: "%Y" }}',
      text: '{% capture n %}{{ customer.lastName }}{% endcapture %}{{ n }}',
    });
    expect(own.statusCode, own.body).toBe(201);
  });

  it('refuses tags that would read files, and sizes over the caps', async () => {
    for (const html of ['{% include "x" %}', "{% render 'x' %}", '{% layout "x" %}']) {
      const response = await post(a, { ...reward, html });
      expect(response.statusCode, `${html}: ${response.body}`).toBe(400);
      expect(response.json().error.details[0].path).toBe('body.html');
    }
    const big = await post(a, { ...reward, text: 'é'.repeat(200 * 1024) });
    expect(big.statusCode).toBe(400);
    expect(big.json().error.details[0]).toMatchObject({ path: 'body.text' });
    const subject = await post(a, { ...reward, subject: 'x'.repeat(999) });
    expect(subject.statusCode).toBe(400);
    const locale = await post(a, { ...reward, locale: 'not a locale' });
    expect(locale.statusCode).toBe(400);
    expect(locale.json().error.details[0].path).toBe('body.locale');
  });

  it('refuses a template that cannot render within the limits with its sample data, naming the part and the limit', async () => {
    const before = await eventsOf(t, a.organization.id, TEMPLATE_EVENTS);
    const heavy = await post(a, {
      ...reward,
      locale: 'ro',
      text: '{% for a in (1..10000) %}{% for b in (1..10000) %}{% for c in (1..10000) %}x{% endfor %}{% endfor %}{% endfor %}',
    });
    expect(heavy.statusCode, heavy.body).toBe(400);
    expect(heavy.json().error.details).toEqual([
      { path: 'body.text', message: 'cannot be rendered with the sample data within its 1,000 ms CPU-time limit' },
    ]);
    const huge = await post(a, { ...reward, locale: 'ro', html: '{% for i in (1..100000000) %}{% endfor %}' });
    expect(huge.statusCode, huge.body).toBe(400);
    expect(huge.json().error.details[0].path).toBe('body.html');
    expect(huge.json().error.details[0].message).toContain('memory limit');
    expect(await eventsOf(t, a.organization.id, TEMPLATE_EVENTS)).toEqual(before);
  });

  it('names every missing field', async () => {
    const response = await post(a, { name: 'x' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details.map((detail: { path: string }) => detail.path)).toEqual([
      'body.kind',
      'body.subject',
      'body.html',
    ]);
  });

  it('allows one active template per kind and locale (409 for a second)', async () => {
    const tenant = await t.tenant();
    await create(tenant, reward);
    const second = await post(tenant, reward);
    expect(second.statusCode).toBe(409);
    expect(second.json().error.message).toMatch(/active rewardIssued template/);
    await create(tenant, { ...reward, isActive: false });
    await create(tenant, { ...reward, locale: 'de' });
  });

  it('needs mail:write', async () => {
    const reader = await t.key(a.organization.id, ['mail:read']);
    const response = await t.request({ method: 'POST', url: '/v1/email-templates', key: reader, body: reward });
    expect(response.statusCode).toBe(403);
  });
});

describe('GET /v1/email-templates', () => {
  it('lists through the list engine: filter by kind, isActive, locale and name, sort and cursor', async () => {
    const tenant = await t.tenant();
    await create(tenant, { ...reward, name: 'Beta' });
    await create(tenant, { ...reward, name: 'Alpha', locale: 'de', isActive: false });
    await create(tenant, {
      kind: 'rewardExpiringSoon',
      name: 'Gamma',
      subject: '{{ daysLeft }} days left',
      html: '<p>{{ reward.code }} expires {{ reward.expiresAt | date: "%b %d" }}</p>',
    });
    const page = async (query: string) => {
      const response = await t.request({ url: `/v1/email-templates?${query}`, key: tenant.key });
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as { data: EmailTemplateRecord[]; nextCursor: string | null };
    };
    const names = async (query: string) => (await page(query)).data.map((template) => template.name);
    expect(await names('')).toEqual(['Gamma', 'Alpha', 'Beta']);
    expect(await names(`filter=${q({ kind: 'rewardIssued' })}&sort=name`)).toEqual(['Alpha', 'Beta']);
    expect(await names(`filter=${q({ isActive: true })}&sort=name`)).toEqual(['Beta', 'Gamma']);
    expect(await names(`filter=${q({ locale: 'de' })}`)).toEqual(['Alpha']);
    expect(await names(`filter=${q({ name: 'Gamma' })}`)).toEqual(['Gamma']);
    expect(await names(`filter=${q({ createdAt: { $gte: '2000-01-01T00:00:00Z' } })}&sort=-name`)).toEqual([
      'Gamma',
      'Beta',
      'Alpha',
    ]);
    expect(await names('search=amm')).toEqual(['Gamma']);
    const first = await page('sort=name&limit=2');
    expect(first.data.map((template) => template.name)).toEqual(['Alpha', 'Beta']);
    const second = await page(`sort=name&limit=2&cursor=${first.nextCursor}`);
    expect(second.data.map((template) => template.name)).toEqual(['Gamma']);
    const other = await t.request({ url: '/v1/email-templates', key: b.key });
    expect(other.json().data.map((template: EmailTemplateRecord) => template.name)).not.toContain('Gamma');
    const wrong = await t.request({ url: `/v1/email-templates?filter=${q({ kind: 'newsletter' })}`, key: tenant.key });
    expect(wrong.statusCode).toBe(400);
  });
});

describe('GET /v1/email-templates/{id}', () => {
  it("answers one, and another organization's as 404 like a missing one", async () => {
    const created = await create(a, { ...reward, locale: 'it' });
    const mine = await t.request({ url: `/v1/email-templates/${created.id}`, key: a.key });
    expect(mine.json()).toEqual(created);
    const theirs = await t.request({ url: `/v1/email-templates/${created.id}`, key: b.key });
    const missing = await t.request({ url: `/v1/email-templates/${uuidv7()}`, key: b.key });
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json().error).toEqual(missing.json().error);
    for (const request of [
      { method: 'PATCH' as const, url: `/v1/email-templates/${created.id}`, body: { name: 'Stolen' } },
      { method: 'DELETE' as const, url: `/v1/email-templates/${created.id}` },
      { method: 'POST' as const, url: `/v1/email-templates/${created.id}/preview`, body: {} },
    ]) {
      const response = await t.request({ ...request, key: b.key });
      expect(response.statusCode, request.method).toBe(404);
      expect(response.json().error).toEqual(missing.json().error);
    }
    expect((await t.request({ url: `/v1/email-templates/${created.id}`, key: a.key })).json()).toEqual(created);
  });
});

describe('PATCH /v1/email-templates/{id}', () => {
  it('changes the fields sent, checked against its kind, and sends emailTemplate.updated', async () => {
    const created = await create(a, { ...reward, locale: 'es' });
    const before = (await eventsOf(t, a.organization.id, TEMPLATE_EVENTS)).length;
    const response = await patch(a, created.id, { name: 'Renamed', text: 'Code: {{ reward.code }}', isActive: false });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ name: 'Renamed', text: 'Code: {{ reward.code }}', isActive: false });
    expect(response.json().updatedAt > created.updatedAt).toBe(true);
    const events = (await eventsOf(t, a.organization.id, TEMPLATE_EVENTS)).slice(before);
    expect(events.map((event) => event.name)).toEqual(['emailTemplate.updated']);
    expect(events[0]!.payload).toEqual(response.json());
  });

  it('writes and sends nothing when nothing changes', async () => {
    const created = await create(a, { ...reward, locale: 'nl' });
    const before = (await eventsOf(t, a.organization.id, TEMPLATE_EVENTS)).length;
    for (const body of [{}, { name: reward.name, html: reward.html }]) {
      const response = await patch(a, created.id, body);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual(created);
    }
    expect((await eventsOf(t, a.organization.id, TEMPLATE_EVENTS)).length).toBe(before);
  });

  it('refuses bad Liquid, unknown variables and the kind, changing nothing', async () => {
    const created = await create(a, { ...reward, locale: 'pt' });
    const before = (await eventsOf(t, a.organization.id, TEMPLATE_EVENTS)).length;
    const syntax = await patch(a, created.id, { data: { html: '{{ reward.code' } });
    expect(syntax.statusCode).toBe(400);
    expect(syntax.json().error.details[0].path).toBe('body.data.html');
    const unknown = await patch(a, created.id, { subject: '{{ points }}' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.details[0]).toMatchObject({ path: 'body.subject' });
    expect(unknown.json().error.details[0].message).toMatch(/points/);
    expect((await patch(a, created.id, { kind: 'surveyRequest' })).statusCode).toBe(400);
    expect((await t.request({ url: `/v1/email-templates/${created.id}`, key: a.key })).json()).toEqual(created);
    expect((await eventsOf(t, a.organization.id, TEMPLATE_EVENTS)).length).toBe(before);
  });

  it('refuses a change that makes the template exceed the render limits, changing nothing', async () => {
    const created = await create(a, { ...reward, locale: 'bg' });
    const response = await patch(a, created.id, {
      data: { html: `{% for i in (1..200) %}${'y'.repeat(10_000)}{% endfor %}` },
    });
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().error.details).toEqual([
      {
        path: 'body.data.html',
        message:
          'cannot be rendered with the sample data within its output limit (1,048,576 bytes of subject, HTML and text together)',
      },
    ]);
    const missing = await patch(b, created.id, { html: '{% for i in (1..100000000) %}{% endfor %}' });
    expect(missing.statusCode).toBe(404);
    const unchanged = await t.request({ method: 'GET', url: `/v1/email-templates/${created.id}`, key: a.key });
    expect(unchanged.json()).toEqual(created);
  });

  it('refuses activating a second template of a kind and locale (409)', async () => {
    const tenant = await t.tenant();
    await create(tenant, reward);
    const inactive = await create(tenant, { ...reward, isActive: false });
    const response = await patch(tenant, inactive.id, { isActive: true });
    expect(response.statusCode).toBe(409);
    expect(response.json().error.message).toMatch(/locale en/);
  });
});

describe('DELETE /v1/email-templates/{id}', () => {
  it('deletes it and sends emailTemplate.deleted', async () => {
    const created = await create(a, { ...reward, locale: 'sv' });
    const before = (await eventsOf(t, a.organization.id, TEMPLATE_EVENTS)).length;
    const response = await t.request({ method: 'DELETE', url: `/v1/email-templates/${created.id}`, key: a.key });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(created);
    const events = (await eventsOf(t, a.organization.id, TEMPLATE_EVENTS)).slice(before);
    expect(events.map((event) => event.name)).toEqual(['emailTemplate.deleted']);
    expect((await t.request({ url: `/v1/email-templates/${created.id}`, key: a.key })).statusCode).toBe(404);
  });
});

describe('POST /v1/email-templates/{id}/preview', () => {
  it("renders with the kind's sample data", async () => {
    const created = await create(a, { ...reward, locale: 'da' });
    const response = await preview(a, created.id);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      subject: 'A reward for you, Ada',
      html: '<p>Hi Ada, use <b>RWD-7K2Q-9XPM</b> at Example Store.</p>',
      text: 'Hi Ada, use RWD-7K2Q-9XPM.',
    });
    const bare = await t.request({ method: 'POST', url: `/v1/email-templates/${created.id}/preview`, key: a.key });
    expect(bare.statusCode, bare.body).toBe(200);
    const reader = await t.key(a.organization.id, ['mail:read']);
    const read = await t.request({ method: 'POST', url: `/v1/email-templates/${created.id}/preview`, key: reader });
    expect(read.statusCode).toBe(200);
  });

  it('lays the variables sent over the samples, escaping them in the HTML part only', async () => {
    const created = await create(a, { ...reward, locale: 'fi' });
    const injected = '<img src=x onerror=alert(1)>';
    const response = await preview(a, created.id, {
      variables: { customer: { firstName: injected }, reward: { code: 'A&B' } },
    });
    expect(response.statusCode, response.body).toBe(200);
    const rendered = response.json();
    expect(rendered.html).toBe('<p>Hi &lt;img src=x onerror=alert(1)&gt;, use <b>A&amp;B</b> at Example Store.</p>');
    expect(rendered.html).not.toContain('<img');
    expect(rendered.text).toBe(`Hi ${injected}, use A&B.`);
    const multiline = await preview(a, created.id, { variables: { customer: { firstName: 'Ada\r\nBcc: x@y' } } });
    expect(multiline.json().subject).toBe('A reward for you, Ada Bcc: x@y');
  });

  it('refuses variables the kind does not have', async () => {
    const created = await create(a, { ...reward, locale: 'no' });
    const response = await preview(a, created.id, { variables: { daysLeft: 3, customer: { nickname: 'x' } } });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details.map((detail: { path: string }) => detail.path)).toEqual([
      'body.variables.daysLeft',
      'body.variables.customer.nickname',
    ]);
  });

  it('answers 422 naming the limit when rendering exceeds its bounds, instead of holding the server', async () => {
    // Light with the samples (so it can be saved), heavy with the name the preview sends.
    const created = await create(a, {
      ...reward,
      locale: 'cs',
      html: '{% if customer.firstName == "Bo" %}{% for i in (1..100000000) %}{{ i }}{% endfor %}{% endif %}',
    });
    const response = await preview(a, created.id, { variables: { customer: { firstName: 'Bo' } } });
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json().error.code).toBe('UNPROCESSABLE');
    expect(response.json().error.message).toBe(
      'Template rendering exceeded its memory limit (10,000,000 characters or list items allocated in a part) (in the html part).',
    );
    expect(response.json().error.details[0].path).toBe('html');
  });

  it('answers 422 naming the time limit for a render that runs too long', async () => {
    const created = await create(a, {
      ...reward,
      locale: 'sk',
      text: '{% for a in (1..daysLeft) %}{% for b in (1..daysLeft) %}{% for c in (1..daysLeft) %}x{% endfor %}{% endfor %}{% endfor %}',
      kind: 'rewardExpiringSoon',
    });
    const response = await preview(a, created.id, { variables: { daysLeft: 10000 } });
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json().error.message).toBe(
      'Template rendering exceeded its 1,000 ms CPU-time limit (in the text part).',
    );
  });

  it("renders two of an organization's previews at once and queues eight; beyond that 429, while another organization's previews go on", async () => {
    const [heavy, other] = [await t.tenant(), await t.tenant()];
    const loops = await create(heavy, {
      ...reward,
      kind: 'rewardExpiringSoon',
      text: '{% for a in (1..daysLeft) %}{% for b in (1..daysLeft) %}{% for c in (1..daysLeft) %}x{% endfor %}{% endfor %}{% endfor %}',
    });
    const light = await create(other, reward);
    await preview(heavy, loops.id); // the pool's threads started
    const storm = Promise.all(
      Array.from({ length: 12 }, () => preview(heavy, loops.id, { variables: { daysLeft: 10000 } })),
    );
    let stormEnded = false;
    void storm.then(() => (stormEnded = true));
    const meanwhile = await preview(other, light.id);
    expect(meanwhile.statusCode, meanwhile.body).toBe(200);
    expect(stormEnded).toBe(false);
    const answers = await storm;
    // Twelve arrive within the first render's second: two run, eight wait, two are refused (one, should a render end
    // before the last arrives).
    const refusedCount = answers.filter((answer) => answer.statusCode === 429).length;
    expect(answers.filter((answer) => answer.statusCode === 422)).toHaveLength(12 - refusedCount);
    expect([1, 2]).toContain(refusedCount);
    const refused = answers.find((answer) => answer.statusCode === 429)!;
    expect(refused.json().error.code).toBe('TOO_MANY_REQUESTS');
    expect(refused.headers['retry-after']).toBe('1');
  });

  it('answers 422 naming the output limit for a mail over 1 MiB', async () => {
    const created = await create(a, {
      ...reward,
      locale: 'hu',
      kind: 'rewardExpiringSoon',
      text: `{% for i in (1..daysLeft) %}${'x'.repeat(10_000)}{% endfor %}`,
    });
    const response = await preview(a, created.id, { variables: { daysLeft: 200 } });
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json().error.message).toContain('exceeded its output limit (1,048,576 bytes');
  });

  it('keeps the raw filter out of the HTML part', async () => {
    const response = await post(a, { ...reward, locale: 'pl', html: '{{ customer.firstName | raw }}' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details[0].path).toBe('body.html');
  });
});

describe('what the mail sender uses', () => {
  it('finds the active template of a locale, then of its language, then any; renders it', async () => {
    const tenant = await t.tenant();
    const en = await create(tenant, { ...reward, locale: 'en' });
    const de = await create(tenant, { ...reward, locale: 'de' });
    await create(tenant, { ...reward, locale: 'de-CH', isActive: false });
    const org = tenant.organization.id;
    expect((await activeTemplateFor(db(), org, 'rewardIssued', 'de-ch'))?.id).toBe(de.id);
    expect((await activeTemplateFor(db(), org, 'rewardIssued', 'en-GB'))?.id).toBe(en.id);
    expect((await activeTemplateFor(db(), org, 'rewardIssued', 'ja'))?.id).toBe(en.id);
    expect((await activeTemplateFor(db(), org, 'rewardIssued'))?.id).toBe(en.id);
    expect(await activeTemplateFor(db(), org, 'surveyRequest', 'en')).toBeUndefined();
    expect(await activeTemplateFor(db(), a.organization.id, 'pointsExpiringSoon', 'xx')).toBeDefined();
    expect(await activeTemplateFor(db(), b.organization.id, 'rewardIssued')).toBeUndefined();
    const mail = await renderTemplate(org, de, {
      customer: { firstName: 'Jo', lastName: '', email: 'jo@example.com' },
      organization: { name: 'Shop' },
      reward: { code: 'C1', description: '', expiresAt: '' },
    });
    expect(mail.subject).toBe('A reward for you, Jo');
  });
});
