import cliProgress from 'cli-progress';

/**
 * What a person watching a bulk job sees on stderr: a bar with the count, rate and time left when stderr is a
 * terminal, else a plain line now and then (a log file or CI keeps a readable trace rather than redraws).
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
const PLAIN_EVERY_MS = 2_000;

export function createProgress(stream: NodeJS.WriteStream = process.stderr, tty = Boolean(stream.isTTY)): Progress {
  return tty ? barProgress(stream) : plainProgress(stream);
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

function plainProgress(stream: NodeJS.WriteStream): Progress {
  let name = '';
  let unit = '';
  let total: number | null = null;
  let started = Date.now();
  let lastLine = 0;
  let lastValue = -1;
  const line = (value: number) => {
    const seconds = (Date.now() - started) / 1000;
    const rate = seconds > 0 ? value / seconds : 0;
    const left = total !== null && rate > 0 ? Math.max(0, Math.round((total - value) / rate)) : null;
    stream.write(
      `${name}: ${numberFormat.format(value)}${total !== null ? ` of ${numberFormat.format(total)}` : ''} ${unit}` +
        ` (${numberFormat.format(Math.round(rate))} ${unit}/s${left !== null ? `, about ${left} s left` : ''})\n`,
    );
    lastLine = Date.now();
    lastValue = value;
  };
  return {
    phase(phaseName, phaseTotal, phaseUnit) {
      name = phaseName;
      unit = phaseUnit;
      total = phaseTotal;
      started = Date.now();
      lastLine = 0;
      lastValue = -1;
    },
    update(value, newTotal) {
      if (newTotal !== undefined) total = newTotal;
      if (value !== lastValue && Date.now() - lastLine >= PLAIN_EVERY_MS) line(value);
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
