import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The version in Patron's package.json, found by walking up from this file, so it is the same from the sources
 * (src/cli, run with tsx) and from the build (dist/src/cli).
 */
export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    let manifest: { name?: unknown; version?: unknown } | undefined;
    try {
      manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as typeof manifest;
    } catch {
      // no readable package.json here: look further up
    }
    if (manifest?.name === 'patron' && typeof manifest.version === 'string') return manifest.version;
    const parent = dirname(dir);
    if (parent === dir) throw new Error("cannot find Patron's package.json");
    dir = parent;
  }
}
