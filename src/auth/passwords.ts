import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Dashboard passwords (docs/api.md#dashboard-sessions): scrypt with N = 2^15, r = 8, p = 1, a 16-byte salt and a
 * 64-byte key, stored as one self-describing string `scrypt$<N>$<r>$<p>$<salt>$<key>` (base64url), so stronger
 * parameters can be adopted later without breaking stored hashes. Runs on libuv's thread pool, not the event loop.
 */
const COST = 2 ** 15;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 64;
/** scrypt needs 128 · N · r bytes (32 MiB here); Node's default ceiling is exactly that, too tight with overhead. */
const MAX_MEMORY = 256 * COST * BLOCK_SIZE;

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 200;

function derive(password: string, salt: Buffer, options: ScryptOptions, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, { N: COST, r: BLOCK_SIZE, p: PARALLELISM, maxmem: MAX_MEMORY }, KEY_BYTES);
  return ['scrypt', COST, BLOCK_SIZE, PARALLELISM, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/**
 * Whether `password` matches `stored`. Without a stored hash (an unknown email, a user who never set a password) a
 * hash of the same cost is still computed and refused, so the answer takes as long either way.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parsed = stored ? parse(stored) : null;
  if (!parsed) {
    await derive(
      password,
      randomBytes(SALT_BYTES),
      { N: COST, r: BLOCK_SIZE, p: PARALLELISM, maxmem: MAX_MEMORY },
      KEY_BYTES,
    );
    return false;
  }
  const key = await derive(password, parsed.salt, parsed.options, parsed.key.length);
  return timingSafeEqual(key, parsed.key);
}

function parse(stored: string): { salt: Buffer; key: Buffer; options: ScryptOptions } | null {
  const [scheme, cost, blockSize, parallelism, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return null;
  const N = Number(cost);
  const r = Number(blockSize);
  const p = Number(parallelism);
  if (![N, r, p].every((value) => Number.isInteger(value) && value > 0)) return null;
  return {
    salt: Buffer.from(salt, 'base64url'),
    key: Buffer.from(key, 'base64url'),
    options: { N, r, p, maxmem: 256 * N * r },
  };
}
