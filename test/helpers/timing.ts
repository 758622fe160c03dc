/** Load-phase length of the fault tests: short under `npm test`, FAULT_SECONDS under `npm run fault`. */
export const FAULT_SECONDS = Number(process.env.FAULT_SECONDS ?? '4');

/** Per-test budget of the fault files (each calls jest.setTimeout with it): load phases, restarts, delivery waits. */
export const FAULT_TEST_TIMEOUT_MS = 90_000 + FAULT_SECONDS * 4_000;

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Peak of `sample()` taken every `everyMs` until `stop()` is called. */
export function peakOf(sample: () => number, everyMs = 20): { stop(): number } {
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, sample())), everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, sample());
    },
  };
}
