/**
 * The benchmark's payload streams, built once up front from a seeded generator so every run and
 * both receivers see exactly the same bytes. Each scenario is shaped like its real sender: the logs
 * agent's agent-json batches (zstd), dd-trace-js's /v0.4/traces msgpack, the agent's v2 series and
 * sketch protobufs (zstd). The encoders are the test fixtures' (independent of the code measured).
 */
import { deflateSync, gzipSync } from 'node:zlib';
import { agentZstd, AGENT_PROTOBUF_HEADERS, encodeMetricPayload, encodeSketchPayload } from '../test/fixtures/metrics/agent-payloads';
import { encodeMsgpack, type Encodable } from '../test/fixtures/traces/msgpack-writer';

export type ScenarioName = 'logs' | 'logs-unmatched' | 'traces' | 'traces-v05' | 'series' | 'sketches';
/** What `npm run bench` runs by default; traces-v05 is the same traces as dd-trace-py and the trace-agent's v0.5 table form. */
export const SCENARIOS: readonly ScenarioName[] = ['logs', 'traces', 'series', 'sketches'];

export interface Payload {
  body: Buffer;
  /** log records, spans, series points or sketch points in the body */
  records: number;
}

export interface Scenario {
  name: ScenarioName;
  path: string;
  headers: Record<string, string>;
  payloads: Payload[];
}

/** mulberry32: tiny, fast and good enough to vary test data reproducibly. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;
const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));
const hex = (rng: Rng, digits: number): string => Array.from({ length: digits }, () => Math.floor(rng() * 16).toString(16)).join('');
const u64 = (rng: Rng): bigint => (BigInt(Math.floor(rng() * 2 ** 31)) << 32n) | BigInt(Math.floor(rng() * 2 ** 32)) | 1n;

const SERVICES = ['shop-api', 'checkout', 'catalog', 'billing'] as const;
const HOSTS = ['node-1', 'node-2', 'node-3'] as const;
const ROUTES = ['/cart/:id', '/checkout', '/products', '/products/:sku', '/health'] as const;
/** Three pods per service, as one agent sees them: what its tags say about a container repeats. */
const PODS: ReadonlyMap<string, readonly { pod: string; container: string }[]> = (() => {
  const rng = random(1);
  return new Map(SERVICES.map((s) => [s, Array.from({ length: 3 }, () => ({ pod: `${s}-${hex(rng, 5)}`, container: hex(rng, 12) }))]));
})();
const podOf = (rng: Rng, service: string): { pod: string; container: string } => pick(rng, PODS.get(service) ?? []);

/** Fixed wall time so bodies are identical across runs; receivers do not reject old timestamps. */
const BASE_MS = 1_760_000_000_000;

// ---------------------------------------------------------------- logs

function agentTags(rng: Rng, service: string): string {
  const { pod, container } = podOf(rng, service);
  return [`env:prod`, `version:1.4.2`, `filename:${service}.log`, `dirname:/var/log/pods/${pod}`, `kube_namespace:shop`, `kube_deployment:${service}`, `pod_name:${pod}`, `container_id:${container}`, `image_tag:1.4`, `team:payments`].join(',');
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** nginx's `$time_local`: `28/Nov/2026:19:50:07 +0000`. */
function nginxTime(at: number): string {
  const d = new Date(at);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} +0000`;
}

/** An nginx access line in its default `combined` format (test/fixtures/captured-logs/nginx-1.22.1/access.log). */
function plainLine(rng: Rng, at: number): string {
  const route = pick(rng, ROUTES)
    .replace(':id', String(int(rng, 1, 999)))
    .replace(':sku', `SKU-${int(rng, 100, 999)}`);
  return `10.0.${int(rng, 0, 255)}.${int(rng, 1, 254)} - - [${nginxTime(at)}] "GET ${route} HTTP/1.1" ${pick(rng, [200, 200, 200, 304, 404, 500])} ${int(rng, 200, 9000)} "-" "${pick(rng, USER_AGENTS)}"`;
}

const USER_AGENTS = [
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15',
  'curl/7.88.1',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
];

/** pino under dd-trace-js: nested `dd` object with ids, numeric level, ms `time`. */
function jsonLine(rng: Rng, at: number, service: string): string {
  return JSON.stringify({
    level: pick(rng, [30, 30, 30, 40, 50]),
    time: at,
    pid: int(rng, 1, 99),
    hostname: pick(rng, HOSTS),
    dd: { trace_id: u64(rng).toString(), span_id: u64(rng).toString(), service, version: '1.4.2', env: 'prod' },
    req: { id: int(rng, 1, 1e6), method: pick(rng, ['GET', 'POST']), url: pick(rng, ROUTES) },
    responseTime: int(rng, 1, 900),
    msg: pick(rng, ['request completed', 'order placed', 'payment failed', 'cache miss', 'stock low']),
  });
}

/**
 * `unmatched`: the same lines under sources no bundled log pipeline names (an app's own access
 * log, `checkout-gateway`, beside the nodejs JSON lines), for what pipelines cost a log they do
 * not apply to.
 */
function logEntries(rng: Rng, count: number, unmatched = false): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => {
    const service = pick(rng, SERVICES);
    const at = BASE_MS + i;
    const json = rng() < 0.5;
    return {
      message: json ? jsonLine(rng, at, service) : plainLine(rng, at),
      status: json ? 'info' : pick(rng, ['info', 'info', 'warn', 'error']),
      timestamp: at,
      hostname: pick(rng, HOSTS),
      service,
      ddsource: json ? 'nodejs' : unmatched ? 'checkout-gateway' : 'nginx',
      ddtags: agentTags(rng, service),
    };
  });
}

// ---------------------------------------------------------------- traces

/** What a tracer says about its process: one payload comes from one process. */
interface TracerProcess {
  service: string;
  runtimeId: string;
  pid: number;
}

/** One dd-trace-js trace chunk: an express request whose children are middleware, db, cache and http spans. */
function trace(rng: Rng, spans: number, startNs: bigint, { service, runtimeId, pid }: TracerProcess): Record<string, Encodable>[] {
  const traceId = u64(rng);
  const rootId = u64(rng);
  const route = pick(rng, ROUTES);
  const common = { env: 'prod', version: '1.4.2', language: 'javascript' };
  const root: Record<string, Encodable> = {
    trace_id: traceId,
    span_id: rootId,
    parent_id: 0,
    name: 'express.request',
    resource: `GET ${route}`,
    service,
    type: 'web',
    start: startNs,
    duration: BigInt(int(rng, 2, 400) * 1_000_000),
    error: rng() < 0.05 ? 1 : 0,
    meta: {
      ...common,
      '_dd.p.tid': ((startNs / 1_000_000_000n) << 32n).toString(16).padStart(16, '0'),
      '_dd.p.dm': '-0',
      'runtime-id': runtimeId,
      'span.kind': 'server',
      component: 'express',
      'http.method': 'GET',
      'http.url': `http://shop.internal${route}`,
      'http.route': route,
      'http.status_code': '200',
      'http.useragent': 'Mozilla/5.0',
      'http.client_ip': `10.0.${int(rng, 0, 255)}.${int(rng, 1, 254)}`,
    },
    metrics: { _sampling_priority_v1: 1, '_dd.agent_psr': 1, '_dd.top_level': 1, '_dd.measured': 1, process_id: pid },
  };
  const child = (i: number): Record<string, Encodable> => {
    const kind = pick(rng, ['pg', 'redis', 'http', 'middleware', 'middleware'] as const);
    const start = startNs + BigInt(i * 100_000);
    const base = { trace_id: traceId, span_id: u64(rng), parent_id: rootId, start, duration: BigInt(int(rng, 50, 20_000) * 1000), error: 0 };
    if (kind === 'pg')
      return {
        ...base,
        name: 'pg.query',
        resource: `SELECT * FROM carts WHERE id = $${int(rng, 1, 3)}`,
        service: `${service}-postgres`,
        type: 'sql',
        meta: { ...common, '_dd.base_service': service, 'span.kind': 'client', component: 'pg', 'db.type': 'postgres', 'db.name': 'shop', 'db.user': 'app', 'out.host': 'db', 'peer.service': 'shop' },
        metrics: { 'network.destination.port': 5432, '_dd.measured': 1 },
      };
    if (kind === 'redis')
      return {
        ...base,
        name: 'redis.command',
        resource: pick(rng, ['GET', 'SET', 'HGETALL']),
        service: `${service}-redis`,
        type: 'redis',
        meta: { ...common, '_dd.base_service': service, 'span.kind': 'client', component: 'redis', 'db.type': 'redis', 'redis.raw_command': 'GET cart:42', 'out.host': 'cache' },
        metrics: { 'network.destination.port': 6379, '_dd.measured': 1 },
      };
    if (kind === 'http')
      return {
        ...base,
        name: 'http.request',
        resource: 'GET',
        service,
        type: 'http',
        meta: { ...common, 'span.kind': 'client', component: 'http', 'http.method': 'GET', 'http.url': 'http://inventory.internal/stock', 'http.status_code': '200', 'out.host': 'inventory.internal' },
        metrics: { 'network.destination.port': 80 },
      };
    return { ...base, name: 'express.middleware', resource: pick(rng, ['jsonParser', 'cors', 'session', 'router']), service, type: 'web', meta: { ...common, component: 'express' }, metrics: {} };
  };
  return [root, ...Array.from({ length: spans - 1 }, (_, i) => child(i))];
}

/** Traces of 5–50 spans until `spans` spans; the last one takes what is left. */
function traces(rng: Rng, spans: number): Record<string, Encodable>[][] {
  const process: TracerProcess = { service: pick(rng, SERVICES), runtimeId: `${hex(rng, 8)}-${hex(rng, 4)}-${hex(rng, 4)}-${hex(rng, 4)}-${hex(rng, 12)}`, pid: int(rng, 1, 9999) };
  const out: Record<string, Encodable>[][] = [];
  for (let left = spans, i = 0; left > 0; i++) {
    const size = Math.min(left, int(rng, 5, 50));
    out.push(trace(rng, size, BigInt(BASE_MS + i) * 1_000_000n, process));
    left -= size;
  }
  return out;
}

/** The v0.5 columns, in the order the format fixes. */
const V05_COLUMNS = ['service', 'name', 'resource', 'trace_id', 'span_id', 'parent_id', 'start', 'duration', 'error', 'meta', 'metrics', 'type'] as const;
const V05_STRING_COLUMNS = new Set(['service', 'name', 'resource', 'type']);

/**
 * The same traces in /v0.5's form, `[strings, traces]`: every string of a span (service, name,
 * resource, type, meta keys and values, metrics keys) replaced by its index in one table, as
 * dd-trace-py and the trace-agent's v0.5 encoders write it, the empty string first.
 */
function v05Body(chunks: Record<string, Encodable>[][]): Encodable {
  const strings: string[] = [''];
  const indexes = new Map<string, number>([['', 0]]);
  const ref = (s: string): number => {
    let i = indexes.get(s);
    if (i === undefined) {
      i = strings.length;
      strings.push(s);
      indexes.set(s, i);
    }
    return i;
  };
  const refMap = (entries: Record<string, Encodable>, value: (v: Encodable) => Encodable): Map<Encodable, Encodable> => new Map(Object.entries(entries).map(([k, v]) => [ref(k), value(v)]));
  const column = (span: Record<string, Encodable>, name: (typeof V05_COLUMNS)[number]): Encodable => {
    const v = span[name];
    if (V05_STRING_COLUMNS.has(name)) return ref(String(v ?? ''));
    if (name === 'meta') return refMap((v ?? {}) as Record<string, Encodable>, (x) => ref(String(x)));
    if (name === 'metrics') return refMap((v ?? {}) as Record<string, Encodable>, (x) => x);
    return v ?? 0;
  };
  const traces = chunks.map((chunk) => chunk.map((span) => V05_COLUMNS.map((name) => column(span, name))));
  return [strings, traces];
}

// ---------------------------------------------------------------- metrics

const METRICS = [
  ['system.cpu.user', 3, 0],
  ['system.mem.used', 3, 0],
  ['http.requests', 2, 10],
  ['http.errors', 1, 15],
  ['queue.depth', 3, 0],
  ['db.query.count', 1, 15],
] as const;

const metricTags = (rng: Rng, service: string): string[] => [
  `service:${service}`,
  'env:prod',
  'version:1.4.2',
  'kube_namespace:shop',
  `pod_name:${podOf(rng, service).pod}`,
  `endpoint:${pick(rng, ROUTES)}`,
  `status_code:${pick(rng, [200, 404, 500])}`,
  'team:payments',
];

function seriesPayload(rng: Rng, count: number): Record<string, unknown> {
  return {
    series: Array.from({ length: count }, (_, i) => {
      const [metric, type, interval] = pick(rng, METRICS);
      return {
        resources: [{ type: 'host', name: pick(rng, HOSTS) }],
        metric,
        tags: metricTags(rng, pick(rng, SERVICES)),
        points: [{ value: Math.round(rng() * 1e4) / 100, timestamp: BASE_MS / 1000 + i }],
        type,
        interval,
      };
    }),
  };
}

/** A latency distribution's DDSketch: ascending keys around 1 ms–1 s, as the agent flushes them. */
function dogsketch(rng: Rng, ts: number): Record<string, unknown> {
  const bins = int(rng, 8, 40);
  const first = int(rng, 1338, 1700);
  const k = Array.from({ length: bins }, (_, i) => first + i * int(rng, 1, 4));
  const n = k.map(() => int(rng, 1, 50));
  const cnt = n.reduce((a, b) => a + b, 0);
  return { ts, cnt, min: 1, max: 900, avg: 120, sum: 120 * cnt, k, n };
}

function sketchPayload(rng: Rng, count: number): Record<string, unknown> {
  return {
    sketches: Array.from({ length: count }, (_, i) => ({
      metric: pick(rng, ['request.latency', 'db.latency', 'queue.wait']),
      host: pick(rng, HOSTS),
      tags: metricTags(rng, pick(rng, SERVICES)),
      dogsketches: [dogsketch(rng, BASE_MS / 1000 + i)],
    })),
  };
}

// ---------------------------------------------------------------- scenarios

const LOG_HEADERS = { 'Content-Type': 'application/json', 'Content-Encoding': 'zstd', 'DD-PROTOCOL': 'agent-json', 'DD-EVP-ORIGIN': 'agent', 'User-Agent': 'datadog-agent/7.70.0' };
const TRACE_HEADERS = { 'Content-Type': 'application/msgpack', 'Datadog-Meta-Lang': 'nodejs', 'Datadog-Meta-Lang-Version': 'v20.20.2', 'Datadog-Meta-Tracer-Version': '5.132.0', 'Datadog-Meta-Lang-Interpreter': 'v8' };

/**
 * How the agent compresses its logs and metric bodies: zstd today; older agents send metrics as
 * `deflate` (zlib, before 7.62) and logs as gzip (before 7.67), both at Go's default level 6.
 * Tracers send traces uncompressed whatever this says.
 */
export type AgentCoding = 'zstd' | 'deflate' | 'gzip';
const COMPRESSORS: Record<AgentCoding, (body: Buffer) => Promise<Buffer>> = {
  zstd: agentZstd,
  deflate: async (body) => deflateSync(body, { level: 6 }),
  gzip: async (body) => gzipSync(body, { level: 6 }),
};

export const isTraces = (name: ScenarioName): boolean => name === 'traces' || name === 'traces-v05';

/** `variants` different bodies of `batch` records each, so a receiver cannot profit from repetition. */
export async function buildScenario(name: ScenarioName, batch: number, variants: number, seed = 7, coding: AgentCoding = 'zstd'): Promise<Scenario> {
  const rng = random(seed * 1000 + batch);
  const payloads: Payload[] = [];
  for (let v = 0; v < variants; v++) payloads.push(await payload(name, rng, batch, COMPRESSORS[coding]));
  const route = {
    logs: ['/api/v2/logs', LOG_HEADERS],
    'logs-unmatched': ['/api/v2/logs', LOG_HEADERS],
    traces: ['/v0.4/traces', TRACE_HEADERS],
    'traces-v05': ['/v0.5/traces', TRACE_HEADERS],
    series: ['/api/v2/series', AGENT_PROTOBUF_HEADERS],
    sketches: ['/api/beta/sketches', AGENT_PROTOBUF_HEADERS],
  } as const;
  const [path, headers] = route[name];
  const encoding: Record<string, string> = isTraces(name) ? {} : { 'Content-Encoding': coding };
  return { name, path, headers: { ...headers, ...encoding, 'DD-API-KEY': 'bench' }, payloads };
}

async function payload(name: ScenarioName, rng: Rng, batch: number, compress: (body: Buffer) => Promise<Buffer>): Promise<Payload> {
  switch (name) {
    case 'logs':
    case 'logs-unmatched':
      return { body: await compress(Buffer.from(JSON.stringify(logEntries(rng, batch, name === 'logs-unmatched')))), records: batch };
    case 'traces':
    case 'traces-v05': {
      const chunks = traces(rng, batch);
      return { body: encodeMsgpack(name === 'traces' ? chunks : v05Body(chunks)), records: chunks.reduce((n, t) => n + t.length, 0) };
    }
    case 'series':
      return { body: await compress(encodeMetricPayload(seriesPayload(rng, batch))), records: batch };
    case 'sketches':
      return { body: await compress(encodeSketchPayload(sketchPayload(rng, batch))), records: batch };
  }
}
