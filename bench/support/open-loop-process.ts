// The open-loop load generator in a process of its own (bench/support/open-loop.ts runs it; see
// `startOpenLoopProcess` there for why). Options arrive as JSON in argv[2]. It runs the warm-up, says `warm`, waits
// for `measure` on stdin, runs the measured schedule, says `measured` as soon as the last answer is in (the parent
// reads the CPU counters then), and then writes the result as one line of JSON. It talks on file descriptor 3, so its
// stdout stays free for what Node itself prints (--trace-gc, say).
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { openLoop, type OpenLoopOptions } from './open-loop.js';

const parent = createWriteStream('', { fd: 3 });
const say = (line: string) => new Promise<void>((resolve) => parent.write(line + '\n', () => resolve()));
const options = JSON.parse(process.argv[2]!) as OpenLoopOptions & { warmupS: number };
if (options.warmupS > 0) await openLoop({ ...options, durationS: options.warmupS });
await say('warm');
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() === 'measure') break;
}
const result = await openLoop(options);
await say('measured');
await say(JSON.stringify(result));
lines.close();
// Nothing is left to do; stdin would keep the process alive.
parent.end(() => process.exit(0));
