// How long the CLI takes to answer, from the build: `patron --version` (which must load nothing of the app) and
// `patron org list` on an already migrated embedded data dir (which loads only what it reads, opens PGlite and finds
// the schema up to date), each against a floor in the same run: `node -e 0`, the start of Node alone. Rounds run the
// three commands in turn, so a busy moment of the machine costs each about the same; each prints median, min and max
// wall time and the median's ratio to the floor's. Targets: --version ≤ 0.3 s, org list ≤ 1.5 s
// (docs/api.md#embedded-database-and-cli).
//
//   npm run bench:cli-start                    (node --import tsx bench/cli-start.ts)
//
// Tunables (env): BENCH_ROUNDS (7), BENCH_SKIP_BUILD=1 (use dist/ as it is). No PostgreSQL or Redis needed.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, log, ROOT, run, saveResult, table } from './support/harness.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

interface Command {
  label: string;
  args: string[];
  target?: number;
}

/** One run's wall time in seconds; the command must succeed. */
function timed(args: string[], env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { cwd: ROOT, env, encoding: 'utf8' });
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} failed (${result.status}):\n${result.stderr}`);
  return seconds;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

async function main(): Promise<void> {
  if (process.env.BENCH_SKIP_BUILD !== '1') {
    log('tsc -p tsconfig.build.json');
    run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json']);
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'patron-bench-cli-'));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, PATRON_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  try {
    const firstMigrate = timed([CLI, 'migrate'], env);
    log(`first migrate of a fresh data dir: ${firstMigrate.toFixed(2)} s (not part of the figures)`);
    const commands: Command[] = [
      { label: 'node -e 0 (floor)', args: ['-e', '0'] },
      { label: 'patron --version', args: [CLI, '--version'], target: 0.3 },
      { label: 'patron org list (migrated, embedded)', args: [CLI, 'org', 'list'], target: 1.5 },
    ];
    // One unmeasured pass warms the file cache.
    for (const command of commands) timed(command.args, env);
    const samples = commands.map(() => [] as number[]);
    for (let round = 1; round <= ROUNDS; round++) {
      commands.forEach((command, i) => samples[i]!.push(timed(command.args, env)));
      log(
        `round ${round}/${ROUNDS}: ${commands.map((c, i) => `${c.label} ${samples[i]!.at(-1)!.toFixed(3)} s`).join(', ')}`,
      );
    }
    const floor = median(samples[0]!);
    const rows = commands.map((command, i) => {
      const values = samples[i]!;
      return {
        command: command.label,
        medianS: median(values),
        minS: Math.min(...values),
        maxS: Math.max(...values),
        ratioToFloor: median(values) / floor,
        targetS: command.target ?? null,
      };
    });
    console.log(
      table(
        ['command', 'median s', 'min s', 'max s', '× floor', 'target s'],
        rows.map((row) => [
          row.command,
          row.medianS.toFixed(3),
          row.minS.toFixed(3),
          row.maxS.toFixed(3),
          row.ratioToFloor.toFixed(2),
          row.targetS === null ? '' : `≤ ${row.targetS}`,
        ]),
      ),
    );
    saveResult('cli-start', { rounds: ROUNDS, firstMigrateS: firstMigrate, rows });
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
