import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Binds the derived key to this one use, so the same PATRON_SECRET_KEY could key something else safely. */
const HKDF_INFO = 'patron webhook secret v1';

/** Whether a text is something a secret box sealed (every sealed text starts with the version prefix). */
export const isSealed = (text: string): boolean => text.startsWith(VERSION);

export interface SecretBox {
  /** `v1:` + base64(iv | tag | ciphertext); a fresh random IV each time, so equal secrets never look equal. */
  seal(plaintext: string): string;
  /** The plaintext; throws when the text was not sealed with this key or was altered. */
  open(sealed: string): string;
}

/**
 * AES-256-GCM for webhook secrets at rest (docs/api.md#endpoint-records-and-secrets). The 32-byte key comes from
 * PATRON_SECRET_KEY through HKDF-SHA256, so any key of at least 32 characters works whatever its alphabet. The `v1:`
 * prefix leaves room to change the scheme or rotate keys without guessing which rows use which.
 */
export function createSecretBox(secretKey: string): SecretBox {
  if (secretKey.length < 32) throw new Error('PATRON_SECRET_KEY must be at least 32 characters');
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(secretKey, 'utf8'), Buffer.alloc(0), HKDF_INFO, 32));
  return {
    seal(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return VERSION + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
    },
    open(sealed) {
      if (!sealed.startsWith(VERSION)) throw new Error('Unknown secret format');
      const bytes = Buffer.from(sealed.slice(VERSION.length), 'base64');
      if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error('Sealed secret is truncated');
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}
