/**
 * Steady agent-style log load for fault tests: each simulated agent sends batches of uniquely
 * numbered log lines and, like the real logs agent, resends the same batch after any network
 * error or non-2xx (backing off) until it is accepted. Every id the sidecar acknowledged is kept,
 * so a test can check that the collector has all of them.
 */
import { randomUUID } from 'node:crypto';

export interface LoadResult {
  acknowledged: Set<string>;
  statuses: Map<string, number>;
  networkErrors: number;
  /** 503s without a Retry-After header (senders back off blindly on those). */
  unavailableWithoutRetryAfter: number;
  /** How long each answered request took, from sending it to the end of the reply, in ms. */
  latenciesMs: number[];
}

export interface LoadOptions {
  url: string;
  agents: number;
  batchSize: number;
  /** Stop starting new batches after this; batches in progress finish (with retries). */
  durationMs: number;
  run: string;
  headers?: Record<string, string>;
  /** Each agent waits this long after an accepted batch, as a real agent flushes on an interval (default: none, full speed). */
  pauseMs?: number;
}

const countStatus = (r: LoadResult, key: string): void => {
  r.statuses.set(key, (r.statuses.get(key) ?? 0) + 1);
};

/** A logs-agent batch: one line per id, tagged so the sink can be searched by run and id. */
export const logsBatch = (run: string, ids: readonly string[]): string => JSON.stringify(ids.map((id) => ({ message: `load ${id}`, status: 'info', service: 'load', hostname: 'load-host', ddtags: `run:${run},id:${id}` })));

async function sendUntilAccepted(o: LoadOptions, ids: string[], result: LoadResult, cancelled: AbortSignal): Promise<void> {
  const body = logsBatch(o.run, ids);
  for (let attempt = 0, delay = 50; ; attempt++, delay = Math.min(delay * 2, 1000)) {
    const started = performance.now();
    try {
      const res = await fetch(`${o.url}/api/v2/logs`, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...o.headers }, signal: AbortSignal.timeout(10_000) });
      countStatus(result, String(res.status));
      if (res.status === 503 && !res.headers.has('retry-after')) result.unavailableWithoutRetryAfter++;
      await res.arrayBuffer();
      result.latenciesMs.push(performance.now() - started);
      if (res.status >= 200 && res.status < 300) {
        for (const id of ids) result.acknowledged.add(id);
        return;
      }
    } catch {
      result.networkErrors++;
    }
    if (cancelled.aborted) return; // given up: these ids were never acknowledged, so they count for nothing
    if (attempt > 600) throw new Error('a batch was never accepted');
    await new Promise((r) => setTimeout(r, delay));
  }
}

export interface RunningLoad {
  /** Filled in as replies arrive, so a test can watch the statuses while the load runs. */
  result: LoadResult;
  done: Promise<LoadResult>;
  /** Start no new batches; the ones in progress still retry until accepted. */
  stop(): void;
  /** Stop at once, abandoning batches in progress (a test that failed half-way cleans up with it). */
  cancel(): void;
}

export function startAgentLoad(o: LoadOptions): RunningLoad {
  const result: LoadResult = { acknowledged: new Set(), statuses: new Map(), networkErrors: 0, unavailableWithoutRetryAfter: 0, latenciesMs: [] };
  let until = Date.now() + o.durationMs;
  const cancelled = new AbortController();
  const done = Promise.all(
    Array.from({ length: o.agents }, async () => {
      while (Date.now() < until) {
        await sendUntilAccepted(
          o,
          Array.from({ length: o.batchSize }, () => randomUUID()),
          result,
          cancelled.signal,
        );
        if (o.pauseMs) await new Promise((r) => setTimeout(r, o.pauseMs));
      }
    }),
  ).then(() => result);
  const stop = (): void => {
    until = 0;
  };
  return {
    result,
    done,
    stop,
    cancel() {
      stop();
      cancelled.abort();
    },
  };
}

export const agentLoad = (o: LoadOptions): Promise<LoadResult> => startAgentLoad(o).done;

/** The `p`-th percentile (0–100) of `values`, nearest rank; 0 for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}
