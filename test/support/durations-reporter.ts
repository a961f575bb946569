/**
 * A vitest reporter that records how long each test file took, so every run says where its time went: it prints the
 * slowest files after the run and writes all of them to `test-results/durations-<suite>-<engine>.json` (gitignored).
 * CI prints it for each suite on each engine; docs/benchmarks.md keeps the current figures.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

interface FileDuration {
  file: string;
  /** Wall time of the file in its worker: collecting (imports, top-level code) plus its tests and hooks. */
  seconds: number;
  tests: number;
  state: string;
}

const SLOWEST_SHOWN = 10;

export default class DurationsReporter implements Reporter {
  private startedAt = 0;

  constructor(private readonly options: { suite: string }) {}

  onTestRunStart(): void {
    this.startedAt = performance.now();
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const wallSeconds = (performance.now() - this.startedAt) / 1000;
    const files: FileDuration[] = testModules
      .map((testModule) => {
        const diagnostic = testModule.diagnostic();
        return {
          file: relative(process.cwd(), testModule.moduleId),
          seconds: round((diagnostic.collectDuration + diagnostic.duration) / 1000),
          tests: [...testModule.children.allTests()].length,
          state: testModule.state(),
        };
      })
      .sort((a, b) => b.seconds - a.seconds);
    const engine = process.env.DATABASE_URL ? 'postgresql' : 'embedded';
    const summary = {
      suite: this.options.suite,
      engine,
      wallSeconds: round(wallSeconds),
      fileSeconds: round(files.reduce((sum, file) => sum + file.seconds, 0)),
      files,
    };
    const directory = join(process.cwd(), 'test-results');
    mkdirSync(directory, { recursive: true });
    const path = join(directory, `durations-${this.options.suite}-${engine}.json`);
    writeFileSync(path, JSON.stringify(summary, null, 2) + '\n');
    const lines = files
      .slice(0, SLOWEST_SHOWN)
      .map((file) => `  ${file.seconds.toFixed(1).padStart(7)} s  ${file.file} (${file.tests} tests)`);
    process.stdout.write(
      `\nDurations (${this.options.suite}, ${engine}): ${summary.wallSeconds.toFixed(1)} s wall, ` +
        `${summary.fileSeconds.toFixed(1)} s summed over ${files.length} files; the slowest:\n` +
        `${lines.join('\n')}\n  all files: ${relative(process.cwd(), path)}\n`,
    );
  }
}

function round(seconds: number): number {
  return Math.round(seconds * 10) / 10;
}
