/**
 * Removes the compiled migrations whose source is gone: tsc never deletes an output, and src/db/migrations/index.ts
 * applies every migration file it finds in its folder, so a migration renamed or removed in src would otherwise still
 * run from dist/. Run before every build (npm run build, test/support/global-setup.ts).
 */
import { readdir, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function pruneStaleBuild(root = ROOT) {
  const built = join(root, 'dist/src/db/migrations');
  const sources = join(root, 'src/db/migrations');
  if (!existsSync(built) || !existsSync(sources)) return [];
  const removed = [];
  for (const file of await readdir(built)) {
    const source = file.replace(/(?:\.d\.ts|\.js|\.js\.map|\.d\.ts\.map)$/, '.ts');
    if (source !== file && !existsSync(join(sources, source))) {
      await rm(join(built, file), { force: true });
      removed.push(file);
    }
  }
  return removed;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await pruneStaleBuild();
