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
}

export interface LoadOptions {
  url: string;
  agents: number;
  batchSize: number;
  /** Stop starting new batches after this; batches in progress finish (with retries). */
  durationMs: number;
  run: string;
  headers?: Record<string, string>;
}

const countStatus = (r: LoadResult, key: string): void => {
  r.statuses.set(key, (r.statuses.get(key) ?? 0) + 1);
};

async function sendUntilAccepted(o: LoadOptions, ids: string[], result: LoadResult): Promise<void> {
  const body = JSON.stringify(ids.map((id) => ({ message: `load ${id}`, status: 'info', service: 'load', hostname: 'load-host', ddtags: `run:${o.run},id:${id}` })));
  for (let attempt = 0, delay = 50; ; attempt++, delay = Math.min(delay * 2, 1000)) {
    try {
      const res = await fetch(`${o.url}/api/v2/logs`, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...o.headers }, signal: AbortSignal.timeout(10_000) });
      countStatus(result, String(res.status));
      await res.arrayBuffer();
      if (res.status >= 200 && res.status < 300) {
        for (const id of ids) result.acknowledged.add(id);
        return;
      }
    } catch {
      result.networkErrors++;
    }
    if (attempt > 600) throw new Error('a batch was never accepted');
    await new Promise((r) => setTimeout(r, delay));
  }
}

export async function agentLoad(o: LoadOptions): Promise<LoadResult> {
  const result: LoadResult = { acknowledged: new Set(), statuses: new Map(), networkErrors: 0 };
  const until = Date.now() + o.durationMs;
  await Promise.all(
    Array.from({ length: o.agents }, async () => {
      while (Date.now() < until) await sendUntilAccepted(o, Array.from({ length: o.batchSize }, () => randomUUID()), result);
    }),
  );
  return result;
}
