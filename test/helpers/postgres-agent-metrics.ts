/**
 * What a Datadog agent running the postgres check (and its default system checks) on two hosts
 * sends: v2 series as the agent's forwarder writes them (protobuf MetricPayload, zstd, the agent's
 * headers; test/fixtures/metrics/agent-payloads.ts), for the metrics and tags the integrations-core
 * "Postgres - Metrics" dashboard and the percent_usage_connections monitor
 * (test/fixtures/migrate/) read. A check's `rate()` is flushed by the agent as a gauge of the
 * per-second rate (v2 type GAUGE, interval 0), so every series here is a gauge. One point per
 * series per minute, so a per-minute chart holds exactly the values sent.
 */
import { AGENT_PROTOBUF_HEADERS, agentZstd, encodeMetricPayload } from '../fixtures/metrics/agent-payloads';

/** One series as sent: its host, tags (`key:value`) and one value per minute. */
export interface SentSeries {
  metric: string;
  host: string;
  tags: Record<string, string>;
  values: number[];
}

export interface PostgresWorkload {
  /** Unix seconds of each minute the points fall in (a point is 10 s into its minute). */
  minutes: number[];
  series: SentSeries[];
}

/** v2 MetricType GAUGE (agent-payload.proto). */
const GAUGE = 3;
const HOSTS = ['pg-1', 'pg-2'];
/** Databases per host: the postgres check tags its per-database metrics `db:<name>`. */
const DATABASES: Record<string, string[]> = { 'pg-1': ['shop', 'billing'], 'pg-2': ['shop'] };
const PER_DATABASE = ['postgresql.connections', 'postgresql.rows_fetched', 'postgresql.rows_returned', 'postgresql.rows_inserted', 'postgresql.rows_updated', 'postgresql.rows_deleted'];
const PER_HOST = [
  'system.io.util',
  'system.load.1',
  'system.load.5',
  'system.load.15',
  'system.cpu.idle',
  'system.cpu.system',
  'system.cpu.iowait',
  'system.cpu.user',
  'system.cpu.stolen',
  'system.cpu.guest',
  'system.mem.usable',
  'system.mem.total',
  'system.net.bytes_rcvd',
  'system.net.bytes_sent',
];
/** The monitor's metric: pg-1 above its 0.9 threshold, pg-2 below. */
const USAGE: Record<string, number[]> = { 'pg-1': [0.92, 0.95, 0.97], 'pg-2': [0.4, 0.5, 0.45] };

/**
 * Minutes that end before now and lie in one 15-minute window (the monitor's), so a chart over
 * them is complete whatever its granularity.
 */
export function workloadMinutes(nowSeconds = Math.floor(Date.now() / 1000)): number[] {
  const window = Math.floor(nowSeconds / 900) * 900 - 900;
  return [window + 60, window + 120, window + 180];
}

/** Distinct values per metric, host, database and minute, so a wrong filter or group shows. */
function workloadSeries(minutes: readonly number[]): SentSeries[] {
  const series: SentSeries[] = [];
  const values = (seed: number): number[] => minutes.map((_, i) => seed + i);
  for (const [h, host] of HOSTS.entries()) {
    const common = { host, env: 'prod' };
    for (const [m, metric] of PER_DATABASE.entries()) {
      for (const [d, db] of DATABASES[host]!.entries()) series.push({ metric, host, tags: { ...common, db, port: '5432' }, values: values(100 * (m + 1) + 10 * h + 4 * d) });
    }
    for (const [m, metric] of PER_HOST.entries()) series.push({ metric, host, tags: common, values: values(1000 * (m + 1) + 17 * h) });
    series.push({ metric: 'postgresql.percent_usage_connections', host, tags: { ...common, db: 'shop', port: '5432' }, values: USAGE[host]! });
  }
  return series;
}

/** The tag list the agent sends (the host goes in `resources`, not in the tags). */
const agentTags = (tags: Record<string, string>): string[] =>
  Object.entries(tags)
    .filter(([key]) => key !== 'host')
    .map(([key, value]) => `${key}:${value}`);

/** Sends the workload as one agent flush; resolves once the bridge accepted it (202). */
export async function sendPostgresAgentMetrics(intakeUrl: string, apiKey: string, minutes = workloadMinutes()): Promise<PostgresWorkload> {
  const series = workloadSeries(minutes);
  const payload = encodeMetricPayload({
    series: series.map((s) => ({
      resources: [{ type: 'host', name: s.host }],
      metric: s.metric,
      tags: agentTags(s.tags),
      points: s.values.map((value, i) => ({ value, timestamp: minutes[i]! + 10 })),
      type: GAUGE,
    })),
  });
  const res = await fetch(`${intakeUrl}/api/v2/series`, { method: 'POST', body: await agentZstd(payload), headers: { 'DD-Api-Key': apiKey, ...AGENT_PROTOBUF_HEADERS } });
  if (res.status !== 202) throw new Error(`/api/v2/series: ${res.status} ${await res.text()}`);
  return { minutes, series };
}
