// The typed client's paging cost: a walk of every customer of a 10,000-customer organization through paginate()
// (clients/typescript) against the same walk with raw fetch, target ≤ 1.1 × the raw walk's time.
//
//   npm run bench:client-paginate
//
// The compiled server (`node dist/src/cli/main.js serve`, LOG_LEVEL=warn) runs as a child process on a fresh embedded
// database in a temporary directory, with an organization whose rate limit never refuses (the walks measure paging,
// not the limiter). 10,000 customers are imported through the client, 1,000 rows a request. Then BENCH_ROUNDS rounds,
// each one walk of each kind in alternating order (raw first in odd rounds), both 250 records a page (40 pages,
// the default sort), after one discarded walk of each. Both walks read every page to the end and parse its JSON; the
// raw walk builds the URL by hand and does nothing else. Reported per walk: wall time and this process's CPU; the
// figure is the median over rounds of (client time / raw time) of the same round, and the ratio of the summed times.
// Tunables (env): BENCH_ROUNDS (7), BENCH_CUSTOMERS (10000), BENCH_PAGE (250), BENCH_SKIP_BUILD=1.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPatronClient } from '../clients/typescript/src/index.js';
import {
  build,
  CLI,
  log,
  run,
  saveResult,
  serverEnv,
  startServer,
  summarize,
  table,
  waitForQuiet,
} from './support/harness.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const CUSTOMERS = Number(process.env.BENCH_CUSTOMERS ?? 10_000);
const PAGE = Number(process.env.BENCH_PAGE ?? 250);
const TARGET = 1.1;

interface Walk {
  ms: number;
  cpuMs: number;
  records: number;
  pages: number;
}

async function measure(walk: () => Promise<{ records: number; pages: number }>): Promise<Walk> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const { records, pages } = await walk();
  const ms = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, records, pages };
}

build();
const workDir = await mkdtemp(join(tmpdir(), 'patron-bench-client-'));
const env = serverEnv({ PATRON_DATA_DIR: join(workDir, 'data'), LOG_LEVEL: 'warn' });
try {
  // The organization and its key, made with the CLI before the server owns the embedded database.
  run(process.execPath, [CLI, 'migrate'], env);
  const organization = JSON.parse(
    run(
      process.execPath,
      [CLI, 'org', 'create', '--name', 'Bench client', '--api-requests-per-minute', '100000000', '--json'],
      env,
    ),
  ) as { id: string };
  const { key } = JSON.parse(
    run(process.execPath, [CLI, 'key', 'create', '--org', organization.id, '--json'], env),
  ) as { key: string };

  const server = await startServer('patron', [CLI, 'serve', '--no-dispatch', '--no-jobs'], env, workDir);
  try {
    const client = createPatronClient({ baseUrl: server.baseUrl, apiKey: key });
    const t0 = performance.now();
    for (let start = 0; start < CUSTOMERS; start += 1000) {
      const rows = Array.from({ length: Math.min(1000, CUSTOMERS - start) }, (_, index) => ({
        email: `customer-${start + index}@example.com`,
        firstName: 'Bench',
        lastName: `Customer ${start + index}`,
        country: 'DE' as const,
        tags: ['bench'],
      }));
      await client.POST('/customers/import', { body: { data: rows } });
    }
    log(`imported ${CUSTOMERS.toLocaleString('en-US')} customers in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const viaPaginate = async () => {
      let records = 0;
      for await (const customer of client.paginate('/customers', { params: { query: { limit: PAGE } } })) {
        if (customer.id) records++;
      }
      return { records, pages: Math.ceil(records / PAGE) };
    };
    const viaFetch = async () => {
      let records = 0;
      let pages = 0;
      let cursor: string | null = null;
      do {
        const url = `${server.baseUrl}/v1/customers?limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
        if (!response.ok) throw new Error(`GET ${url} answered ${response.status}: ${await response.text()}`);
        const page = (await response.json()) as { data: { id: string }[]; nextCursor: string | null };
        pages++;
        records += page.data.length;
        cursor = page.nextCursor;
      } while (cursor !== null);
      return { records, pages };
    };

    // Discarded: JIT, the server's prepared statements and caches, keep-alive connections.
    for (const walk of [viaFetch, viaPaginate]) {
      const { records } = await walk();
      if (records !== CUSTOMERS) throw new Error(`a walk saw ${records} records, not ${CUSTOMERS}`);
    }
    await waitForQuiet('client-paginate');
    const rounds: { raw: Walk; paginate: Walk; ratio: number }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      let raw: Walk;
      let paginate: Walk;
      if (round % 2 === 1) {
        raw = await measure(viaFetch);
        paginate = await measure(viaPaginate);
      } else {
        paginate = await measure(viaPaginate);
        raw = await measure(viaFetch);
      }
      for (const walk of [raw, paginate]) {
        if (walk.records !== CUSTOMERS) throw new Error(`a walk saw ${walk.records} records, not ${CUSTOMERS}`);
      }
      const ratio = paginate.ms / raw.ms;
      rounds.push({ raw, paginate, ratio });
      log(
        `  round ${round}: raw ${raw.ms.toFixed(0)} ms (CPU ${raw.cpuMs.toFixed(0)} ms), paginate() ` +
          `${paginate.ms.toFixed(0)} ms (CPU ${paginate.cpuMs.toFixed(0)} ms): ${ratio.toFixed(3)} ×`,
      );
    }
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    const median = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      const middle = Math.floor(sorted.length / 2);
      return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
    };
    const medianRatio = Math.round(median(rounds.map((round) => round.ratio)) * 1000) / 1000;
    const totalRatio = sum(rounds.map((round) => round.paginate.ms)) / sum(rounds.map((round) => round.raw.ms));
    const rawMs = summarize(rounds.map((round) => round.raw.ms));
    const paginateMs = summarize(rounds.map((round) => round.paginate.ms));
    const rawCpu = summarize(rounds.map((round) => round.raw.cpuMs));
    const paginateCpu = summarize(rounds.map((round) => round.paginate.cpuMs));
    console.log(
      `Walk of ${CUSTOMERS.toLocaleString('en-US')} customers, ${PAGE} a page (${rounds[0]!.raw.pages} pages), ${ROUNDS} rounds`,
    );
    console.log(
      table(
        ['walk', 'median ms', 'min ms', 'max ms', 'median client CPU ms'],
        [
          [
            'raw fetch',
            rawMs.p50.toFixed(0),
            Math.min(...rounds.map((r) => r.raw.ms)).toFixed(0),
            rawMs.max.toFixed(0),
            rawCpu.p50.toFixed(0),
          ],
          [
            'paginate()',
            paginateMs.p50.toFixed(0),
            Math.min(...rounds.map((r) => r.paginate.ms)).toFixed(0),
            paginateMs.max.toFixed(0),
            paginateCpu.p50.toFixed(0),
          ],
        ],
      ),
    );
    console.log(
      `paginate() / raw fetch: median of rounds ${medianRatio.toFixed(3)} ×, summed ${totalRatio.toFixed(3)} × ` +
        `(target ≤ ${TARGET} ×: ${medianRatio <= TARGET ? 'met' : 'not met'})`,
    );
    saveResult('client-paginate', {
      customers: CUSTOMERS,
      page: PAGE,
      rounds: rounds.map(({ raw, paginate, ratio }) => ({
        rawMs: Math.round(raw.ms),
        paginateMs: Math.round(paginate.ms),
        rawCpuMs: Math.round(raw.cpuMs),
        paginateCpuMs: Math.round(paginate.cpuMs),
        ratio: Math.round(ratio * 1000) / 1000,
      })),
      medianRatio,
      totalRatio: Math.round(totalRatio * 1000) / 1000,
      target: TARGET,
      met: medianRatio <= TARGET,
    });
  } finally {
    await server.stop();
  }
} finally {
  await rm(workDir, { recursive: true, force: true });
}
