import { describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/core/secret-box.js';

const KEY = 'k'.repeat(32);

describe('createSecretBox', () => {
  it('round-trips, with a fresh IV each time so equal secrets never look equal', () => {
    const box = createSecretBox(KEY);
    const secret = 'whsec_ünïcødé_0123456789';
    const first = box.seal(secret);
    const second = box.seal(secret);
    expect(first).toMatch(/^v1:[A-Za-z0-9+/]+=*$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain(secret);
    expect(box.open(first)).toBe(secret);
    expect(box.open(second)).toBe(secret);
  });

  it('works with any key of at least 32 characters and refuses shorter ones', () => {
    const box = createSecretBox('correct horse battery staple, 32+');
    expect(box.open(box.seal('s'.repeat(256)))).toBe('s'.repeat(256));
    expect(() => createSecretBox('short')).toThrow(/32 characters/);
  });

  it('refuses text sealed under another key', () => {
    const sealed = createSecretBox(KEY).seal('0123456789abcdef');
    expect(() => createSecretBox('x'.repeat(32)).open(sealed)).toThrow();
  });

  it('refuses altered, truncated or unversioned text', () => {
    const box = createSecretBox(KEY);
    const sealed = box.seal('0123456789abcdef');
    const bytes = Buffer.from(sealed.slice(3), 'base64');
    bytes[bytes.length - 1]! ^= 1;
    expect(() => box.open(`v1:${bytes.toString('base64')}`)).toThrow();
    expect(() => box.open('v1:AAAA')).toThrow(/truncated/);
    expect(() => box.open(sealed.slice(3))).toThrow(/format/);
    expect(() => box.open(`v2:${sealed.slice(3)}`)).toThrow(/format/);
  });
});
