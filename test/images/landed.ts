/**
 * What every image test sends and how it is judged: the captured Datadog exporter
 * (test/fixtures/captured/datadog-exporter-0.155.0/: 3 spans, 2 log records and the gauge
 * shop.queue.depth of service otel-shop) replayed against a sidecar, then read back from ClickHouse
 * where HyperDX reads it (otel_traces, otel_logs, otel_metrics_gauge).
 */
import { capturedDir, non2xx, replayCaptured } from '../helpers/captured';
import { eventually } from './containers';

export type Query = <T = Record<string, unknown>>(sql: string) => Promise<T[]>;

export const CAPTURED = 'datadog-exporter-0.155.0';

/** Replays the capture; the replies that were not 2xx (expected: none). */
export const sendCaptured = async (intakeUrl: string, apiKey: string): Promise<string[]> => non2xx(await replayCaptured(capturedDir(CAPTURED), intakeUrl, apiKey));

const count = async (query: Query, sql: string): Promise<number> => Number((await query<{ n: string }>(sql))[0]?.n ?? 0);

export interface Landed {
  spans: string[];
  logs: string[];
  gauge: number[];
}

/** Waits (up to `timeoutMs`) until all of it is in ClickHouse, then reads it back. */
export async function landedInClickHouse(query: Query, timeoutMs: number): Promise<Landed> {
  await eventually(async () => {
    const [spans, logs, points] = await Promise.all([
      count(query, "SELECT count() AS n FROM otel_traces WHERE ServiceName = 'otel-shop'"),
      count(query, "SELECT count() AS n FROM otel_logs WHERE ServiceName = 'otel-shop'"),
      count(query, "SELECT count() AS n FROM otel_metrics_gauge WHERE MetricName = 'shop.queue.depth'"),
    ]);
    return spans >= 3 && logs >= 2 && points >= 1;
  }, timeoutMs);
  return {
    spans: (await query<{ SpanName: string }>("SELECT SpanName FROM otel_traces WHERE ServiceName = 'otel-shop' ORDER BY SpanName")).map((r) => r.SpanName),
    logs: (await query<{ Body: string }>("SELECT Body FROM otel_logs WHERE ServiceName = 'otel-shop' ORDER BY Body")).map((r) => r.Body),
    gauge: (await query<{ Value: number }>("SELECT Value FROM otel_metrics_gauge WHERE MetricName = 'shop.queue.depth'")).map((r) => r.Value),
  };
}

/** The capture's input (its README): three spans, two log lines, one gauge point of 17. */
export const EXPECTED: Landed = {
  spans: ['GET /orders/{id}', 'SELECT shop.orders', 'charge payment'],
  logs: ['order 42 is large', 'payment failed: card declined'],
  gauge: [17],
};
