import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const LOCK_FILE = 'pglite.lock';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The embedded database is one process's files: a second process opening them would corrupt them. This lock
 * makes the second one stop with a clear message instead. A lock left by a dead process is taken over.
 */
export async function lockEmbeddedDatabase(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(path, String(process.pid), { flag: 'wx' });
      return async () => {
        await rm(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
        throw new Error(
          `The embedded database in ${dataDir} is in use by process ${holder}. Stop that process first, ` +
            'or run several processes against PostgreSQL with DATABASE_URL.',
        );
      }
      await rm(path, { force: true });
    }
  }
  throw new Error(`Could not lock the embedded database in ${dataDir}.`);
}
