/**
 * The dashboard's script sizes, gzipped, from the last build (dist/.vite/manifest.json): the shell (the entry chunk and
 * every chunk it imports statically: what the first load of any page needs) and each page (its lazy chunk and the
 * chunks it imports that the shell does not have). The shell's budget is 250 KB gzipped (docs/dashboard.md#size);
 * `--check` exits 1 when it is over.
 *
 *   npm run size -w @patron/dashboard [-- --json] [-- --check]
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const dist = new URL('../dist/', import.meta.url);
const BUDGET_BYTES = 250 * 1000;
let manifest;
try {
  manifest = JSON.parse(readFileSync(new URL('.vite/manifest.json', dist), 'utf8'));
} catch {
  process.stderr.write('dashboard/dist/.vite/manifest.json is missing: run `npm run build` first.\n');
  process.exit(2);
}

const gzipped = (file) => gzipSync(readFileSync(new URL(file, dist)), { level: 9 }).length;
/** A chunk's file and those of every chunk it imports statically, transitively. */
function closure(key, seen = new Set()) {
  if (seen.has(key)) return seen;
  seen.add(key);
  for (const imported of manifest[key].imports ?? []) closure(imported, seen);
  return seen;
}
const bytes = (keys) => [...keys].reduce((sum, key) => sum + gzipped(manifest[key].file), 0);
const css = (keys) => [...keys].flatMap((key) => manifest[key].css ?? []);

const entryKey = Object.keys(manifest).find((key) => manifest[key].isEntry);
const shell = closure(entryKey);
const pages = Object.keys(manifest)
  .filter((key) => manifest[key].isDynamicEntry)
  .map((key) => {
    const own = [...closure(key)].filter((chunk) => !shell.has(chunk));
    return { page: manifest[key].name ?? key, file: manifest[key].file, gzipBytes: bytes(own), chunks: own.length };
  })
  .sort((a, b) => b.gzipBytes - a.gzipBytes);

const report = {
  shell: {
    entry: manifest[entryKey].file,
    chunks: shell.size,
    gzipBytes: bytes(shell),
    cssGzipBytes: [...new Set(css(shell))].reduce((sum, file) => sum + gzipped(file), 0),
    budgetBytes: BUDGET_BYTES,
  },
  largestPage: pages[0] ?? null,
  pages,
};

const kb = (n) => `${(n / 1000).toFixed(1)} KB`;
if (process.argv.includes('--json')) {
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} else {
  process.stdout.write(
    `shell JS (entry ${report.shell.entry} + ${report.shell.chunks - 1} static imports): ${kb(report.shell.gzipBytes)} gzipped` +
      ` (budget ${kb(BUDGET_BYTES)}); shell CSS ${kb(report.shell.cssGzipBytes)} gzipped\n`,
  );
  for (const page of pages) {
    process.stdout.write(
      `  page ${page.page.padEnd(20)} ${kb(page.gzipBytes).padStart(9)} gzipped (${page.chunks} chunks)\n`,
    );
  }
  if (report.largestPage)
    process.stdout.write(`largest page: ${report.largestPage.page}, ${kb(report.largestPage.gzipBytes)} gzipped\n`);
}
if (process.argv.includes('--check') && report.shell.gzipBytes > BUDGET_BYTES) {
  process.stderr.write(`The shell is over its budget: ${kb(report.shell.gzipBytes)} > ${kb(BUDGET_BYTES)}.\n`);
  process.exit(1);
}
