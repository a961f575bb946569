import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/**
 * Where webhooks may be sent (docs/api.md#webhook-url-rules-and-ssrf). Checked when an endpoint is created or changed,
 * and again at send time, because a host's DNS can change between the two (SSRF via rebinding).
 */
export interface WebhookUrlPolicy {
  /** ALLOW_HTTP_WEBHOOKS: plain http to loopback hosts (development only). */
  allowHttp: boolean;
  /** WEBHOOK_ALLOW_PRIVATE_HOSTS: hosts that resolve to private, loopback or link-local addresses. */
  allowPrivateHosts: boolean;
}

export const MAX_WEBHOOK_URL_LENGTH = 2048;
const DNS_TIMEOUT_MS = 5_000;

/** URL parsing silently drops tabs and newlines and trims spaces; refusing them keeps the stored URL honest. */
const hasControlOrSpace = (text: string) =>
  [...text].some((char) => /\s/u.test(char) || char.charCodeAt(0) < 0x20 || char === '\u007f');

/** RFC 6761: `localhost` and its subdomains are always the loopback. */
const isLocalhostName = (hostname: string) => hostname === 'localhost' || hostname.endsWith('.localhost');

const unbracket = (hostname: string) =>
  hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;

function isLoopbackHost(hostname: string): boolean {
  const host = unbracket(hostname).toLowerCase();
  if (isLocalhostName(host)) return true;
  if (!ipaddr.isValid(host)) return false;
  return ipaddr.process(host).range() === 'loopback';
}

/** Null when the URL's form is acceptable, else the reason in words (before any DNS lookup). */
export function checkWebhookUrlSyntax(url: string, policy: WebhookUrlPolicy): string | null {
  if (url.length === 0) return 'must not be empty';
  if (url.length > MAX_WEBHOOK_URL_LENGTH) return `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`;
  if (hasControlOrSpace(url)) return 'must not contain spaces or control characters';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute https:// URL';
  }
  if (parsed.protocol === 'http:') {
    if (!policy.allowHttp)
      return 'must use https (plain http is only allowed for loopback hosts when the server runs with ALLOW_HTTP_WEBHOOKS=1)';
    if (!isLoopbackHost(parsed.hostname))
      return 'must use https (plain http is only allowed for loopback hosts such as localhost or 127.0.0.1)';
  } else if (parsed.protocol !== 'https:') {
    return 'must be an absolute https:// URL';
  }
  if (parsed.hostname === '') return 'must name a host';
  if (parsed.username !== '' || parsed.password !== '')
    return 'must not contain a user name or password (use hmacSecret to authenticate deliveries)';
  if (url.includes('#')) return 'must not contain a fragment (#…); it is never sent to the receiver';
  if (parsed.port === '0') return 'must not use port 0';
  return null;
}

/** A range an outbound webhook must never reach unless the operator allows private hosts. */
function isForbiddenIpv4(address: ipaddr.IPv4): boolean {
  // Only public unicast passes: private, loopback, link-local, CGNAT, multicast, broadcast, unspecified, reserved…
  return address.range() !== 'unicast';
}

/** IPv6 prefixes that carry an IPv4 address in their last 32 bits; the embedded address decides. */
const EMBEDS_IPV4 = new Set(['ipv4Mapped', 'rfc6145', 'rfc6052']);

function embeddedIpv4(parts: number[], offset: number): ipaddr.IPv4 {
  const [high, low] = [parts[offset]!, parts[offset + 1]!];
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function isForbiddenIpv6(address: ipaddr.IPv6): boolean {
  const range = address.range();
  if (EMBEDS_IPV4.has(range)) return isForbiddenIpv4(embeddedIpv4(address.parts, 6));
  // 6to4 (2002:V4ADDR::/48) routes to the IPv4 address in bits 16..47.
  if (range === '6to4') return isForbiddenIpv4(embeddedIpv4(address.parts, 1));
  if (range !== 'unicast') return true;
  // Global unicast is 2000::/3; anything else ipaddr.js calls "unicast" (e.g. deprecated ::a.b.c.d) is not public.
  return (address.parts[0]! & 0xe000) !== 0x2000;
}

/**
 * True for addresses a webhook must not reach by default: private, loopback, link-local, unique-local, CGNAT,
 * multicast, unspecified, broadcast, reserved, and IPv6 forms that embed such an IPv4 address (IPv4-mapped,
 * NAT64, 6to4). Anything that does not parse as an IP address is forbidden too.
 */
export function isForbiddenAddress(ip: string): boolean {
  const text = unbracket(ip);
  if (!ipaddr.isValid(text)) return true;
  const address = ipaddr.parse(text);
  return address.kind() === 'ipv4' ? isForbiddenIpv4(address as ipaddr.IPv4) : isForbiddenIpv6(address as ipaddr.IPv6);
}

async function lookupAll(hostname: string): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error('DNS lookup timed out'), { code: 'ETIMEOUT' })),
      DNS_TIMEOUT_MS,
    );
  });
  try {
    const results = await Promise.race([lookup(hostname, { all: true, verbatim: true }), timeout]);
    return results.map((result) => result.address);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves a URL's host name (as `URL.hostname` gives it; IPv6 literals may keep their brackets) and refuses it
 * when any address is forbidden, unless the policy allows private hosts. Refusing on ANY address, not all, stops a
 * name that lists one public and one internal address from reaching the internal one on some attempt.
 */
export async function resolveWebhookHost(
  hostname: string,
  policy: WebhookUrlPolicy,
): Promise<{ ok: true; addresses: string[] } | { ok: false; reason: string }> {
  const host = unbracket(hostname);
  let addresses: string[];
  if (ipaddr.isValid(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await lookupAll(host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === 'ETIMEOUT' ? 'the DNS lookup timed out' : 'the name does not resolve';
      return { ok: false, reason: `its host "${host}" could not be resolved (${why})` };
    }
    if (addresses.length === 0) return { ok: false, reason: `its host "${host}" could not be resolved (no addresses)` };
  }
  if (!policy.allowPrivateHosts) {
    const forbidden = addresses.find(isForbiddenAddress);
    if (forbidden !== undefined) {
      // A name is refused without the address it resolves to: echoing it would let any key with webhooks:write
      // map the deployment's internal names (docs/security.md).
      const what =
        forbidden === host
          ? 'is a private, loopback, link-local or otherwise non-public address'
          : 'is not allowed: it is not a public host';
      return {
        ok: false,
        reason: `its host "${host}" ${what}; webhooks go to public hosts unless the server runs with WEBHOOK_ALLOW_PRIVATE_HOSTS=1`,
      };
    }
  }
  return { ok: true, addresses };
}
