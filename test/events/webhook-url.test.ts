import { describe, expect, it } from 'vitest';
import {
  checkWebhookUrlSyntax,
  isForbiddenAddress,
  resolveWebhookHost,
  type WebhookUrlPolicy,
} from '../../src/events/webhook-url.js';

const strict: WebhookUrlPolicy = { allowHttp: false, allowPrivateHosts: false };
const devHttp: WebhookUrlPolicy = { allowHttp: true, allowPrivateHosts: false };
const open: WebhookUrlPolicy = { allowHttp: true, allowPrivateHosts: true };

describe('isForbiddenAddress', () => {
  it.each([
    '10.0.0.1',
    '172.16.5.4',
    '172.31.255.255',
    '192.168.1.1', // private
    '127.0.0.1',
    '127.255.255.254',
    '::1', // loopback
    '169.254.169.254',
    'fe80::1', // link-local (cloud metadata lives here)
    'fc00::1',
    'fd12:3456::1', // unique-local
    '100.64.0.1', // CGNAT
    '224.0.0.1',
    'ff02::1', // multicast
    '0.0.0.0',
    '::',
    '255.255.255.255', // unspecified, broadcast
    '192.0.2.1',
    '198.18.0.1',
    '240.0.0.1', // documentation, benchmarking, reserved
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254', // IPv4-mapped
    '64:ff9b::a00:1',
    '2002:7f00:1::',
    '::7f00:1', // NAT64, 6to4 and IPv4-compatible forms of internal addresses
    '[::1]',
    'not-an-ip',
    '',
  ])('forbids %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '93.184.215.14',
    '1.1.1.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '[2606:4700::1]',
  ])('allows public %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });
});

describe('checkWebhookUrlSyntax', () => {
  it('accepts absolute https URLs', () => {
    expect(checkWebhookUrlSyntax('https://hooks.example.com/patron?x=1', strict)).toBeNull();
    expect(checkWebhookUrlSyntax('https://93.184.215.14:8443/in', strict)).toBeNull();
    expect(checkWebhookUrlSyntax('https://[2606:4700::1]/in', strict)).toBeNull();
  });

  it.each([
    ['', /empty/],
    ['hooks.example.com/in', /absolute https/],
    ['ftp://hooks.example.com/', /absolute https/],
    ['https://', /absolute https/],
    ['https://user:pass@hooks.example.com/', /user name or password/],
    ['https://user@hooks.example.com/', /user name or password/],
    ['https://hooks.example.com/in#section', /fragment/],
    ['https://hooks.example.com/in#', /fragment/],
    ['https://hooks.exa mple.com/', /spaces or control/],
    ['https://hooks.example.com/\tin', /spaces or control/],
    [' https://hooks.example.com/', /spaces or control/],
    ['https://hooks.example.com:0/', /port 0/],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, /at most 2048/],
    ['http://hooks.example.com/', /must use https/],
    ['http://localhost:8080/', /ALLOW_HTTP_WEBHOOKS/],
  ])('refuses %j', (url, reason) => {
    expect(checkWebhookUrlSyntax(url, strict)).toMatch(reason);
  });

  it('allows plain http only to loopback hosts, and only when the policy allows http', () => {
    for (const url of [
      'http://localhost:8080/in',
      'http://127.0.0.1/in',
      'http://[::1]:3000/',
      'http://api.localhost/',
    ]) {
      expect(checkWebhookUrlSyntax(url, devHttp), url).toBeNull();
      expect(checkWebhookUrlSyntax(url, strict), url).toMatch(/must use https/);
    }
    expect(checkWebhookUrlSyntax('http://hooks.example.com/', devHttp)).toMatch(/loopback/);
    expect(checkWebhookUrlSyntax('http://10.0.0.1/', open)).toMatch(/loopback/);
  });
});

describe('resolveWebhookHost', () => {
  it('checks IP literals without DNS', async () => {
    expect(await resolveWebhookHost('93.184.215.14', strict)).toEqual({ ok: true, addresses: ['93.184.215.14'] });
    expect(await resolveWebhookHost('[2606:4700::1]', strict)).toEqual({ ok: true, addresses: ['2606:4700::1'] });
    const refused = await resolveWebhookHost('[::ffff:7f00:1]', strict);
    expect(refused.ok).toBe(false);
    expect(await resolveWebhookHost('169.254.169.254', strict)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/WEBHOOK_ALLOW_PRIVATE_HOSTS/),
    });
  });

  it('refuses a name that resolves to the loopback without naming the address, unless private hosts are allowed', async () => {
    const refused = await resolveWebhookHost('localhost', strict);
    expect(refused).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/"localhost" is not allowed: it is not a public host/),
    });
    expect(refused.ok === false && refused.reason).not.toMatch(/127\.0\.0\.1|::1/);
    const allowed = await resolveWebhookHost('localhost', open);
    expect(allowed.ok).toBe(true);
    if (allowed.ok) expect(allowed.addresses.length).toBeGreaterThan(0);
  });

  it('reports a name that does not resolve', async () => {
    // .invalid never resolves (RFC 6761).
    expect(await resolveWebhookHost('no-such-host.invalid', open)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/could not be resolved/),
    });
  });
});
