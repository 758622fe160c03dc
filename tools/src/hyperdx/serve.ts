/**
 * Serves a local-mode HyperDX build with `next start` on loopback and waits until it answers. Given
 * a ClickHouse, the app starts connected to it with Logs, Traces and Metrics sources already set
 * (the app reads NEXT_PUBLIC_HDX_LOCAL_DEFAULT_CONNECTIONS / _SOURCES when it starts, through
 * next-runtime-env), so a user lands on the data without filling in the connection form.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { probe, superviseChild, withParentDeathSignal } from '../collector/run';
import type { HyperdxBuild } from './build';
import { buildEnv } from './build';

export interface ClickHouseForUi {
  /** The ClickHouse HTTP URL as the browser reaches it, e.g. http://127.0.0.1:8123. */
  url: string;
  user: string;
  password: string;
  /** The exporter's table of exponential histograms (our Datadog sketches and distributions). */
  expHistogramTable: string;
}

export interface ServeOptions {
  build: HyperdxBuild;
  port: number;
  host?: string;
  logFile: string;
  /** Without one, a new user sees HyperDX's connection form. */
  clickhouse?: ClickHouseForUi;
  readyTimeoutMs?: number;
}

export interface RunningHyperdx {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

// the app queries ClickHouse directly only for this id; any other id is sent as a header for HyperDX's API proxy, which local mode has not (and ClickHouse's CORS answer does not allow)
const CONNECTION_ID = 'local';

/** The stack's exponential-histogram table: the name HyperDX's auto-detection looks for (collector/config.yaml, DB_EXP_HISTOGRAM_TABLE). */
export const EXP_HISTOGRAM_TABLE = 'otel_metrics_exp_histogram';

/** The sources HyperDX's own auto-detection creates for the exporter's tables, plus the exponential-histogram table it would miss. */
export function defaultSources(expHistogramTable: string): object[] {
  const from = (tableName: string) => ({ databaseName: 'default', tableName });
  const common = { connection: CONNECTION_ID, resourceAttributesExpression: 'ResourceAttributes', serviceNameExpression: 'ServiceName' };
  return [
    {
      ...common,
      id: 'logs',
      kind: 'log',
      name: 'Logs',
      from: from('otel_logs'),
      timestampValueExpression: 'Timestamp',
      defaultTableSelectExpression: 'Timestamp, ServiceName, SeverityText, Body',
      bodyExpression: 'Body',
      implicitColumnExpression: 'Body',
      severityTextExpression: 'SeverityText',
      eventAttributesExpression: 'LogAttributes',
      traceIdExpression: 'TraceId',
      spanIdExpression: 'SpanId',
      traceSourceId: 'traces',
      metricSourceId: 'metrics',
    },
    {
      ...common,
      id: 'traces',
      kind: 'trace',
      name: 'Traces',
      from: from('otel_traces'),
      timestampValueExpression: 'Timestamp',
      defaultTableSelectExpression: 'Timestamp, ServiceName, StatusCode, round(Duration / 1e6), SpanName',
      eventAttributesExpression: 'SpanAttributes',
      implicitColumnExpression: 'SpanName',
      traceIdExpression: 'TraceId',
      spanIdExpression: 'SpanId',
      parentSpanIdExpression: 'ParentSpanId',
      durationExpression: 'Duration',
      durationPrecision: 9,
      spanNameExpression: 'SpanName',
      spanKindExpression: 'SpanKind',
      statusCodeExpression: 'StatusCode',
      statusMessageExpression: 'StatusMessage',
      spanEventsValueExpression: 'Events',
      logSourceId: 'logs',
      metricSourceId: 'metrics',
    },
    {
      ...common,
      id: 'metrics',
      kind: 'metric',
      name: 'Metrics',
      from: from(''),
      timestampValueExpression: 'TimeUnix',
      metricTables: {
        gauge: 'otel_metrics_gauge',
        histogram: 'otel_metrics_histogram',
        sum: 'otel_metrics_sum',
        summary: 'otel_metrics_summary',
        'exponential histogram': expHistogramTable,
      },
      logSourceId: 'logs',
    },
  ];
}

/** The runtime environment that pre-connects the app to `clickhouse`. */
export const preconnectEnv = (clickhouse: ClickHouseForUi): NodeJS.ProcessEnv => ({
  NEXT_PUBLIC_HDX_LOCAL_DEFAULT_CONNECTIONS: JSON.stringify([{ id: CONNECTION_ID, name: 'dd-otlp-bridge ClickHouse', host: clickhouse.url, username: clickhouse.user, password: clickhouse.password }]),
  NEXT_PUBLIC_HDX_LOCAL_DEFAULT_SOURCES: JSON.stringify(defaultSources(clickhouse.expHistogramTable)),
});

export async function startHyperdx(options: ServeOptions): Promise<RunningHyperdx> {
  const host = options.host ?? '127.0.0.1';
  const url = `http://${host}:${options.port}`;
  const next = require.resolve('next/dist/bin/next', { paths: [options.build.appDir] });
  mkdirSync(dirname(options.logFile), { recursive: true });
  const out = createWriteStream(options.logFile, { flags: 'a' });
  const env = buildEnv(options.build.nodeBin, { NODE_ENV: 'production', PORT: String(options.port), ...(options.clickhouse ? preconnectEnv(options.clickhouse) : {}) });
  // as the collector: a killed stack (or test runner) takes the UI server with it
  const [command, args] = withParentDeathSignal(join(options.build.nodeBin, 'node'), [next, 'start', '--hostname', host, '--port', String(options.port)], true);
  const child = spawn(command, args, { cwd: options.build.appDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(out, { end: false });
  child.stderr.pipe(out, { end: false });
  const stop = await superviseChild(child, () => probe(url), { what: 'HyperDX (next start)', notReady: `HyperDX did not answer at ${url} in time`, logFile: options.logFile, out, readyTimeoutMs: options.readyTimeoutMs });
  return { url, process: child, stop };
}
