// The open-loop load generator in a process of its own (bench/support/open-loop.ts starts it; see
// `startOpenLoopProcess` there for why). Options arrive as JSON in argv[2]. It runs the warm-up and the measured
// schedule back to back, says `measuring` when the first measured request is due, `measured` as soon as the last
// answer is in (the parent reads its CPU counters at both), and then writes the result as one line of JSON. It talks
// on file descriptor 3, so its stdout stays free for what Node itself prints (--trace-gc, say).
import { createWriteStream } from 'node:fs';
import { openLoop, type OpenLoopOptions } from './open-loop.js';

const parent = createWriteStream('', { fd: 3 });
const say = (line: string) => new Promise<void>((resolve) => parent.write(line + '\n', () => resolve()));
const options = JSON.parse(process.argv[2]!) as OpenLoopOptions;
const result = await openLoop({ ...options, onMeasuring: () => void say('measuring') });
await say('measured');
await say(JSON.stringify(result));
parent.end(() => process.exit(0));
