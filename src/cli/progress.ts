import cliProgress from 'cli-progress';

/**
 * What a person watching a bulk job sees on stderr: a bar with the count, rate and time left when stderr is a
 * terminal, else a plain line every few seconds (a log file or CI keeps a readable trace rather than redraws).
 */
export interface Progress {
  /** Starts a phase ("uploading", "exporting", "downloading") counting up to `total` (null while unknown). */
  phase(name: string, total: number | null, unit: string): void;
  update(value: number, total?: number | null): void;
  /** Ends the current phase with a final line. */
  done(message: string): void;
  /** A line that does not disturb the bar. */
  note(message: string): void;
  stop(): void;
}

const numberFormat = new Intl.NumberFormat('en-US');
/** How often a line is written off a terminal. */
export const PLAIN_EVERY_MS = 3_000;

export function createProgress(
  stream: NodeJS.WriteStream = process.stderr,
  tty = Boolean(stream.isTTY),
  now: () => number = Date.now,
): Progress {
  return tty ? barProgress(stream) : plainProgress(stream, now);
}

function barProgress(stream: NodeJS.WriteStream): Progress {
  let bar: cliProgress.SingleBar | undefined;
  let name = '';
  let unit = '';
  let knownTotal = false;
  let started = Date.now();
  const stop = () => {
    bar?.stop();
    bar = undefined;
  };
  // Without a total (rows not counted yet, a compressed download) there is no bar to fill: the count and the rate.
  const start = (total: number | null, value: number) => {
    stop();
    knownTotal = total !== null;
    bar = new cliProgress.SingleBar(
      {
        stream,
        format: knownTotal
          ? `${name.padEnd(11)} [{bar}] {percentage}% | {value}/{total} ${unit} | {speed} ${unit}/s | {left} left`
          : `${name.padEnd(11)} {value} ${unit} | {speed} ${unit}/s`,
        formatValue: (number, _options, type) =>
          type === 'value' || type === 'total' ? numberFormat.format(Number(number)) : String(number),
        hideCursor: true,
        fps: 8,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total ?? 0, value, { speed: '0', left: '…' });
  };
  return {
    phase(phaseName, total, phaseUnit) {
      name = phaseName;
      unit = phaseUnit;
      started = Date.now();
      start(total, 0);
    },
    update(value, total) {
      if (!bar) return;
      if (total !== undefined && total !== null && !knownTotal) start(total, value);
      const seconds = (Date.now() - started) / 1000;
      const rate = seconds > 0 ? value / seconds : 0;
      const goal = bar!.getTotal();
      bar!.update(value, {
        speed: numberFormat.format(Math.round(rate)),
        left: rate > 0 ? `${Math.max(0, Math.round((goal - value) / rate))} s` : '…',
      });
    },
    done(message) {
      stop();
      stream.write(`${message}\n`);
    },
    note(message) {
      stop();
      stream.write(`${message}\n`);
    },
    stop,
  };
}

/** 12.3 MB: bytes in decimal units, one decimal from kB up, so a line is read at a glance. */
export function formatBytes(bytes: number): string {
  const units = ['kB', 'MB', 'GB', 'TB'];
  if (bytes < 1000) return `${bytes} B`;
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 999.95 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/**
 * Off a terminal (docs/api.md#importing-from-the-command-line): a line every few seconds saying how far the phase has
 * come, "uploading: 12.3 MB of 40.0 MB (31%)", and nothing else. No rate: what is counted is what the CLI has read
 * into the request, which runs ahead of the network by the buffers in between, so a rate or a time left computed from
 * it said nothing true.
 */
function plainProgress(stream: NodeJS.WriteStream, now: () => number): Progress {
  let name = '';
  let unit = '';
  let total: number | null = null;
  let lastLine: number | null = null;
  let lastValue = -1;
  // "12.3 MB of 40.0 MB", "1,200 of 5,000 rows"
  const amount = (value: number) => {
    if (unit === 'bytes') return formatBytes(value) + (total === null ? '' : ` of ${formatBytes(total)}`);
    return `${numberFormat.format(value)}${total === null ? '' : ` of ${numberFormat.format(total)}`} ${unit}`;
  };
  const line = (value: number) => {
    const percent = total ? ` (${Math.min(100, Math.floor((value / total) * 100))}%)` : '';
    stream.write(`${name}: ${amount(value)}${percent}\n`);
    lastLine = now();
    lastValue = value;
  };
  return {
    phase(phaseName, phaseTotal, phaseUnit) {
      name = phaseName;
      unit = phaseUnit;
      total = phaseTotal;
      lastLine = null;
      lastValue = -1;
    },
    update(value, newTotal) {
      if (newTotal !== undefined) total = newTotal;
      if (value !== lastValue && (lastLine === null || now() - lastLine >= PLAIN_EVERY_MS)) line(value);
    },
    done(message) {
      stream.write(`${message}\n`);
    },
    note(message) {
      stream.write(`${message}\n`);
    },
    stop() {},
  };
}
