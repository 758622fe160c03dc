/**
 * Issue 24's proof: real clients' captured bytes (test/fixtures/captured/, each with its README)
 * sent through sidecar → collector → ClickHouse, and the rows read back with HyperDX's shapes.
 * Every log line of the Python, Go and Node tracers, text and JSON alike, and every Java line
 * that carries ids, has a TraceId/SpanId that finds its span the way "View Trace" looks it up (`TraceId = ? AND SpanId = ?` in
 * otel_traces), its level in SeverityText (the text HyperDX colours by) and its fields; the
 * collector's datadog exporter's logs give back their OTLP input's ids, time to the nanosecond and
 * severity, with the resource on the resource.
 */
import { useClickHouseStack } from '../helpers/clickhouse-stack';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { capturedDir, non2xx, replayCaptured } from '../helpers/captured';

const KEY = 'log-fidelity-key';
/**
 * Left out of every replay: remote-config polls, which the bridge answers 404 by design (README,
 * routes), and the Node tracer's dogstatsd proxy (captured-node.test.ts says why).
 */
const LEAVE_OUT = /^\/v0\.7\/config$|^\/dogstatsd\//;
const CLIENTS: readonly string[] = ['python-ddtrace-4.16.0', 'go-dd-trace-go-2.12.0-v0.4', 'node-dd-trace-5.132.0', 'java-dd-java-agent-1.68.1-v0.4', 'datadog-exporter-0.155.0'];

/**
 * The levels the apps logged, per service, counted from the captures' READMEs: Python's five
 * records as text and as JSON, Go's seven as slog JSON and text, Node's five through pino,
 * winston JSON and winston's text format; Java's eight through logback's default layout, its MDC
 * pattern and its JSON encoder, the two exceptions' stack traces shipped line by line (4 lines
 * each, at the envelope's `info`) in both text files.
 */
const LEVELS: Record<string, Record<string, number>> = {
  'py-shop': { debug: 2, error: 2, info: 4, warn: 2 },
  'go-shop': { debug: 4, error: 2, info: 4, warn: 4 },
  'node-shop': { debug: 3, error: 3, info: 6, warn: 3 },
  'java-shop': { debug: 6, error: 6, info: 25, warn: 3 },
};
const TRACER_LINES = Object.values(LEVELS).reduce((n, levels) => n + Object.values(levels).reduce((a, b) => a + b, 0), 0);
/**
 * Java lines that can join a span: the MDC pattern's and the JSON encoder's lines logged inside
 * a request (7 + 7); the default layout has no ids, stack-trace lines and the start-up line none.
 */
const JAVA_LINKED = 14;
const SERVICES = `('py-shop', 'go-shop', 'node-shop', 'java-shop')`;

interface LogRow {
  service: string;
  level: string;
  body: string;
  traceId: string;
  spanId: string;
}

interface OtlpInputRecord {
  timeUnixNano: string;
  severityNumber: number;
  severityText: string;
  body: { stringValue: string };
  traceId: string;
  spanId: string;
}

describe('log fidelity in ClickHouse (issue 24), captured real clients', () => {
  const running = useClickHouseStack({ authToken: KEY });
  let tracerLogs: LogRow[];
  beforeAll(async () => {
    for (const client of CLIENTS) {
      const results = await replayCaptured(capturedDir(client), running.stack.intakeUrl, KEY, LEAVE_OUT);
      expect(non2xx(results)).toEqual([]);
    }
    tracerLogs = await running.ch.waitForRows<LogRow>(
      `SELECT ServiceName AS service, SeverityText AS level, Body AS body, TraceId AS traceId, SpanId AS spanId
       FROM otel_logs WHERE ServiceName IN ${SERVICES}`,
      TRACER_LINES,
      60_000,
    );
  });

  it('every Python, Go and Node log line, text or JSON, and every Java line with ids has the TraceId/SpanId of a real span', async () => {
    expect(tracerLogs).toHaveLength(TRACER_LINES);
    const unlinked = tracerLogs.filter((r) => r.service !== 'java-shop' && (r.traceId === '' || r.spanId === ''));
    expect(unlinked).toEqual([]);
    const linked = tracerLogs.filter((r) => r.traceId !== '');
    expect(linked.filter((r) => r.service === 'java-shop')).toHaveLength(JAVA_LINKED);
    const pairs = [...new Set(linked.map((r) => `${r.traceId}/${r.spanId}`))];
    // HyperDX's "View Trace" lookup, for every pair at once; spans may land after the logs
    const spans = await running.ch.waitForRows<{ pair: string }>(
      `SELECT DISTINCT concat(TraceId, '/', SpanId) AS pair FROM otel_traces
       WHERE (TraceId, SpanId) IN (SELECT TraceId, SpanId FROM otel_logs WHERE ServiceName IN ${SERVICES} AND TraceId != '')`,
      pairs.length,
      60_000,
    );
    expect(spans.map((s) => s.pair).sort()).toEqual(pairs.sort());
  });

  it('every tracer log line has its level in SeverityText', () => {
    const counted: Record<string, Record<string, number>> = {};
    for (const { service, level } of tracerLogs) {
      counted[service] ??= {};
      (counted[service] as Record<string, number>)[level] = ((counted[service] as Record<string, number>)[level] ?? 0) + 1;
    }
    expect(counted).toEqual(LEVELS);
  });

  it('keeps text bodies as sent and fields that lost a collision as attributes', async () => {
    const python = tracerLogs.filter((r) => r.service === 'py-shop' && r.body.includes('[dd.service=py-shop dd.env=capture dd.version=1.0.0 dd.trace_id='));
    expect(python).toHaveLength(5);
    const slog = await running.ch.query<{ status: string; err: string; level: string }>(
      `SELECT LogAttributes['status'] AS status, LogAttributes['err'] AS err, SeverityText AS level FROM otel_logs
       WHERE ServiceName = 'go-shop' AND Body = 'checkout failed'`,
    );
    expect(slog).toEqual([{ status: '503', err: 'payment provider answered 503 Service Unavailable', level: 'error' }]);
    const pythonJson = await running.ch.query<{ logger: string }>(`SELECT LogAttributes['name'] AS logger FROM otel_logs WHERE ServiceName = 'py-shop' AND Body = 'large order: 7 x widget'`);
    expect(pythonJson).toEqual([{ logger: 'shop' }]);
  });

  it("the datadog exporter's logs give back their OTLP input's ids, time and severity; the resource stays on the resource", async () => {
    const input = JSON.parse(readFileSync(join(capturedDir('datadog-exporter-0.155.0'), 'otlp-logs.json'), 'utf8')) as { resourceLogs: { scopeLogs: { logRecords: OtlpInputRecord[] }[] }[] };
    const records = input.resourceLogs.flatMap((r) => r.scopeLogs.flatMap((s) => s.logRecords));
    const rows = await running.ch.waitForRows<{ body: string; traceId: string; spanId: string; ns: string; number: number; text: string; otelKeys: string[]; repeated: string[]; sdk: string }>(
      `SELECT Body AS body, TraceId AS traceId, SpanId AS spanId, toString(toUnixTimestamp64Nano(Timestamp)) AS ns,
              SeverityNumber AS number, SeverityText AS text,
              arrayFilter(k -> startsWith(k, 'otel.'), mapKeys(LogAttributes)) AS otelKeys,
              arrayFilter(k -> has(mapKeys(ResourceAttributes), k), mapKeys(LogAttributes)) AS repeated,
              ResourceAttributes['telemetry.sdk.language'] AS sdk
       FROM otel_logs WHERE ServiceName = 'otel-shop' ORDER BY Timestamp`,
      records.length,
      60_000,
    );
    expect(rows).toEqual(
      records.map((r) => ({
        body: r.body.stringValue,
        traceId: r.traceId,
        spanId: r.spanId,
        ns: r.timeUnixNano,
        number: r.severityNumber,
        text: r.severityText.toLowerCase(),
        otelKeys: [],
        repeated: [],
        sdk: 'go',
      })),
    );
  });
});
