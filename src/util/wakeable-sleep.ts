/**
 * The idle wait of a polling loop that can be cut short (the webhook dispatcher, the mail sender): `sleep(ms)` waits
 * at most ms, `wake()` ends the wait now, or makes the next one return at once when none is running, so a wake that
 * lands while the loop is busy is not lost. The loop calls `reset()` at the top of each round, before it looks for
 * work; `stopped` (read at each sleep) ends every wait at once once the loop is stopping.
 */
export interface WakeableSleep {
  sleep(ms: number): Promise<void>;
  wake(): void;
  /** Forget a wake already seen: the round about to start looks for the work it announced. */
  reset(): void;
}

export function wakeableSleep(stopped: () => boolean): WakeableSleep {
  let woken = false;
  let interrupt: (() => void) | undefined;
  return {
    wake() {
      woken = true;
      interrupt?.();
    },
    reset() {
      woken = false;
    },
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        if (woken || stopped()) return resolve();
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          interrupt = undefined;
          resolve();
        }
        interrupt = done;
      }),
  };
}
