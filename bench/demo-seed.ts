// The demo world's cost on a first embedded start: seedDemo (organization, key, and the world's requests through an
// app of its own, with its summary generations) on a fresh, migrated PGlite directory, in this process. Prints wall
// and CPU time per run; BENCH_RUNS (3) runs, each on a new directory.
//
//   npm run bench:demo-seed
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedDemo } from '../src/cli/demo.js';
import { openMigratedDatabase } from '../src/compose.js';
import { loadConfig } from '../src/config/index.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const results: { wallMs: number; cpuMs: number }[] = [];
for (let run = 0; run < RUNS; run++) {
  const dataDir = await mkdtemp(join(tmpdir(), 'patron-demo-seed-'));
  const config = { ...loadConfig({}), dataDir, logLevel: 'silent', secretKey: Buffer.alloc(32, 7).toString('base64') };
  const database = await openMigratedDatabase(config);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await seedDemo(database, config);
  const cpu = process.cpuUsage(cpuBefore);
  results.push({ wallMs: Math.round(performance.now() - started), cpuMs: Math.round((cpu.user + cpu.system) / 1000) });
  await database.close();
  await rm(dataDir, { recursive: true, force: true });
  console.log(`run ${run + 1}: ${JSON.stringify(results.at(-1))}`);
}
console.log(`RESULT ${JSON.stringify({ runs: results })}`);
