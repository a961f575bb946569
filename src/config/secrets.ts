import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const SECRET_FILE = 'secret.key';

/**
 * The key that encrypts webhook secrets at rest. PATRON_SECRET_KEY wins; otherwise one is generated into the data
 * dir on first start (mode 0600) so the embedded quick start needs no setup. Several processes sharing one
 * PostgreSQL must set PATRON_SECRET_KEY so they agree on it.
 */
export async function resolveSecretKey(
  configured: string | undefined,
  dataDir: string,
): Promise<{ key: string; source: 'environment' | 'data-dir' | 'generated' }> {
  if (configured) return { key: configured, source: 'environment' };
  const path = join(dataDir, SECRET_FILE);
  try {
    const stored = (await readFile(path, 'utf8')).trim();
    if (stored.length >= 32) return { key: stored, source: 'data-dir' };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dataDir, { recursive: true });
  const key = randomBytes(32).toString('base64');
  await writeFile(path, key + '\n', { mode: 0o600, flag: 'wx' }).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  return { key: (await readFile(path, 'utf8')).trim(), source: 'generated' };
}
