/**
 * Acknowledged-versus-delivered accounting for the fault tests: which of the ids a sender got a
 * 2xx for the real collector wrote (to the file sink, or into ClickHouse), how many it wrote twice (allowed: delivery is at-least-once),
 * and one figure line per case on stderr for the record.
 */
import type { LoadResult } from './agent-load';
import type { TestClickHouse } from './clickhouse';
import { logRecords, waitFor } from './sink';

export interface Delivery {
  acknowledged: number;
  delivered: number;
  /** Acknowledged ids the collector never wrote. */
  lost: string[];
  /** Records written more than once (beyond the first copy). */
  duplicates: number;
}

/** How often the collector wrote each id of run `run`. */
export function deliveredCounts(sinkDir: string, run: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of logRecords(sinkDir)) {
    if (r.attributes.run !== run) continue;
    const id = String(r.attributes.id);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

/** The acknowledged ids against how often the destination holds each id. */
function tally(counts: ReadonlyMap<string, number>, acknowledged: ReadonlySet<string>): Delivery {
  let duplicates = 0;
  for (const n of counts.values()) duplicates += n - 1;
  return { acknowledged: acknowledged.size, delivered: counts.size, lost: [...acknowledged].filter((id) => !counts.has(id)), duplicates };
}

export const deliveryOf = (sinkDir: string, run: string, acknowledged: ReadonlySet<string>): Delivery => tally(deliveredCounts(sinkDir, run), acknowledged);

/** How often ClickHouse's otel_logs holds each id of run `run` (the ids are log attributes, from the agent's tags). */
export async function clickHouseCounts(ch: Pick<TestClickHouse, 'query'>, run: string): Promise<Map<string, number>> {
  const rows = await ch.query<{ id: string; n: string }>("SELECT LogAttributes['id'] AS id, count() AS n FROM otel_logs WHERE LogAttributes['run'] = {run:String} GROUP BY id", { run });
  return new Map(rows.map((r) => [r.id, Number(r.n)]));
}

/** Waits (up to `timeoutMs`) until every acknowledged id is in the sink, then reports what is there. */
export const awaitDelivery = (sinkDir: string, run: string, acknowledged: ReadonlySet<string>, timeoutMs = 30_000): Promise<Delivery> =>
  waitFor(
    () => deliveryOf(sinkDir, run, acknowledged),
    (d) => d.lost.length === 0,
    timeoutMs,
  );

const statusSummary = (load: LoadResult): string =>
  [
    ...[...load.statuses].sort(([a], [b]) => a.localeCompare(b)).map(([status, n]) => `${status}:${n}`),
    `network-errors:${load.networkErrors}`,
    ...(load.unavailableWithoutRetryAfter ? [`503-without-retry-after:${load.unavailableWithoutRetryAfter}`] : []),
  ].join(' ');

/** One line per case, e.g. `[fault] token rotation: acknowledged=800 delivered=800 lost=0 duplicates=20 statuses=202:40 network-errors:0`. */
export function reportFigures(name: string, d: Delivery, load?: LoadResult, extra = ''): void {
  const statuses = load ? ` statuses=${statusSummary(load)}` : '';
  process.stderr.write(`[fault] ${name}: acknowledged=${d.acknowledged} delivered=${d.delivered} lost=${d.lost.length} duplicates=${d.duplicates}${statuses}${extra ? ` ${extra}` : ''}\n`);
}

/** The check every load-based case ends with: report the figures, then nothing acknowledged is missing. */
function judge(name: string, d: Delivery, load: LoadResult): Delivery {
  reportFigures(name, d, load);
  expect(d.acknowledged).toBeGreaterThan(0);
  expect(d.lost).toEqual([]);
  return d;
}

export async function expectNothingLost(name: string, sinkDir: string, run: string, load: LoadResult, timeoutMs?: number): Promise<Delivery> {
  return judge(name, await awaitDelivery(sinkDir, run, load.acknowledged, timeoutMs), load);
}

/** The same, judged by the rows in ClickHouse: polls until every acknowledged id is there or `timeoutMs` passed. */
export async function expectNothingLostInClickHouse(name: string, ch: Pick<TestClickHouse, 'query'>, run: string, load: LoadResult, timeoutMs: number): Promise<Delivery> {
  const deadline = Date.now() + timeoutMs;
  let d = tally(await clickHouseCounts(ch, run), load.acknowledged);
  while (d.lost.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    d = tally(await clickHouseCounts(ch, run), load.acknowledged);
  }
  return judge(name, d, load);
}
