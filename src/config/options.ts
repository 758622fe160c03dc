/**
 * The sidecar's settings. Every one is declared once in OPTIONS: its flag, environment
 * variables, config-file key, default and help text, so `--help` (help.ts), the README table and
 * loading (load.ts) cannot drift apart. Each component gets only its part (ROUTE_OPTIONS, …).
 */

import { ConfigError, parseBool, type Option, type OptionTable } from './table';

export { ConfigError, parseBool };

const MiB = 1024 * 1024;

export interface Config {
  enabled: boolean;
  listen: HostPort;
  adminListen: HostPort;
  apiKeys: string[];
  otlpAuthToken: string | undefined;
  authTracerRoutes: boolean;
  maxBodyBytes: number;
  maxDecodedBytes: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  minUploadBytesPerSecond: number;
  uploadRateWindowMs: number;
  keepAliveTimeoutMs: number;
  otlpEndpoint: string;
  otlpHeaders: Record<string, string>;
  otlpTimeoutMs: number;
  otlpCompression: 'gzip' | 'none';
  otlpInsecure: boolean | undefined;
  otlpCertificate: string | undefined;
  otlpClientKey: string | undefined;
  otlpClientCertificate: string | undefined;
  exportMaxBytes: number;
  exportRetryMaxElapsedMs: number;
  decodeJsonMessage: boolean;
  logTextCorrelation: boolean;
  logPipelines: string[];
  logPipelineBudgetMs: number;
  semconvOptIn: SemconvOptIn;
  keepInternalTags: boolean;
  spoolDir: string | undefined;
  spoolMaxBytes: number;
  spoolFsync: 'always' | 'never';
  maxInflightRequests: number;
  maxInflightBytes: number;
  shutdownGraceMs: number;
  reusePort: boolean;
  allowOpenIntake: boolean;
  traceIdCacheSize: number;
  traceIdCacheTtlMs: number;
  metricStreamsMax: number;
  metricStreamsIdleMs: number;
  k8sOtelMetrics: boolean;
  k8sDatadogMetrics: boolean;
  hostMetadataMaxHosts: number;
  hostMetadataTtlMs: number;
  logLevel: LogLevel;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * Which attribute names a semantic-convention group is written under, as OpenTelemetry's
 * `OTEL_SEMCONV_STABILITY_OPT_IN` says: `old` (no opt-in: `http.url`, `db.statement`), `stable`
 * (`http`: `url.full`, `database`: `db.query.text`) or `dup` (`http/dup`: both).
 */
export type SemconvNames = 'old' | 'stable' | 'dup';
export interface SemconvOptIn {
  http: SemconvNames;
  database: SemconvNames;
}
export interface HostPort {
  host: string;
  port: number;
}

const parsePositiveInt = (raw: string, source: string): number => {
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) throw new ConfigError(`${source}: expected a positive integer, got "${raw}"`);
  return n;
};

export const parseHostPort = (raw: string, source: string): HostPort => {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(raw.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new ConfigError(`${source}: expected host:port, got "${raw}"`);
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
};

/** node:net's `reusePort` arrived in 22.12 (and 23.1); older versions ignore it, and a second process would fail to bind. */
const hasReusePort = (version: string): boolean => {
  const [major = 0, minor = 0] = version.slice(1).split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 12);
};

/** A boolean; `true` only where node honours it. */
export const parseReusePort = (raw: string, source: string, version = process.version): boolean => {
  const on = parseBool(raw, source);
  if (on && !hasReusePort(version)) throw new ConfigError(`${source}: needs Node.js 22.12 or later (this is ${version})`);
  return on;
};

export const parsePort = (raw: string, source: string): number => {
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0 || n > 65535) throw new ConfigError(`${source}: expected a port (1-65535), got "${raw}"`);
  return n;
};

const parseList = (raw: string): string[] =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

/** OTEL_EXPORTER_OTLP_HEADERS: `k=v,k2=v2`, values percent-encoded (OpenTelemetry spec). */
export const parseOtlpHeaders = (raw: string, source: string): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const pair of parseList(raw)) {
    const eq = pair.indexOf('=');
    // the pair is not echoed: it may well be a token
    if (eq <= 0) throw new ConfigError(`${source}: expected key=value pairs; one entry has no "=" before its value`);
    headers[pair.slice(0, eq).trim().toLowerCase()] = decodeURIComponent(pair.slice(eq + 1).trim());
  }
  return headers;
};

const parseLogLevel = (raw: string, source: string): LogLevel => {
  const v = raw.trim().toLowerCase();
  if (v === 'debug' || v === 'info' || v === 'warn' || v === 'error') return v;
  throw new ConfigError(`${source}: expected debug, info, warn or error, got "${raw}"`);
};

const parseCompression = (raw: string, source: string): 'gzip' | 'none' => {
  const v = raw.trim().toLowerCase();
  if (v === 'gzip' || v === 'none') return v;
  throw new ConfigError(`${source}: expected gzip or none, got "${raw}"`);
};

/**
 * `OTEL_SEMCONV_STABILITY_OPT_IN`: a comma-separated list shared by every OpenTelemetry component
 * of a process, so entries for other groups (`messaging`, `rpc`, …) are ignored rather than refused.
 * `<group>/dup` wins over `<group>`, as the OpenTelemetry specification says.
 */
export const parseSemconvOptIn = (raw: string): SemconvOptIn => {
  const entries = new Set(parseList(raw.toLowerCase()));
  const names = (group: keyof SemconvOptIn): SemconvNames => (entries.has(`${group}/dup`) ? 'dup' : entries.has(group) ? 'stable' : 'old');
  return { http: names('http'), database: names('database') };
};

export const optionalString = (raw: string): string | undefined => (raw.trim() === '' ? undefined : raw.trim());

function option<K extends keyof Config>(o: Option<Config, K>): Option<Config, keyof Config> {
  return o as unknown as Option<Config, keyof Config>;
}

export const OPTIONS: OptionTable<Config> = [
  option({
    key: 'enabled',
    flag: '--enable',
    env: ['ENABLE_VENDOR_RECEIVER', 'ENABLE_DATADOG_RECEIVER'],
    file: 'enabled',
    default: false,
    parse: parseBool,
    help: 'Bind the Datadog intake port. Off by default: the process stays up and /health says "disabled".',
  }),
  option({
    key: 'listen',
    flag: '--listen',
    env: ['DD_BRIDGE_LISTEN'],
    file: 'listen',
    default: { host: '127.0.0.1', port: 8126 },
    parse: parseHostPort,
    help: 'Intake address (host:port) that agents and tracers send to: loopback unless set (0.0.0.0:8126 for agents on other hosts; the image sets it). Beyond loopback it needs API keys, or --allow-open-intake.',
  }),
  option({
    key: 'allowOpenIntake',
    flag: '--allow-open-intake',
    env: ['DD_BRIDGE_ALLOW_OPEN_INTAKE'],
    file: 'allow_open_intake',
    default: false,
    parse: parseBool,
    help: 'Serve an intake listening beyond loopback without API keys (every request accepted). Off: such a sidecar refuses to start and says what to set.',
  }),
  option({
    key: 'reusePort',
    flag: '--reuse-port',
    env: ['DD_BRIDGE_REUSE_PORT'],
    file: 'reuse_port',
    default: false,
    parse: parseReusePort,
    help: 'Let several sidecar processes listen on the same intake port of one host (Linux SO_REUSEPORT; the kernel spreads connections over them; Node >= 22.12). Give each its own --spool-dir and --admin-listen.',
  }),
  option({
    key: 'adminListen',
    flag: '--admin-listen',
    env: ['DD_BRIDGE_ADMIN_LISTEN'],
    file: 'admin_listen',
    default: { host: '127.0.0.1', port: 9126 },
    parse: parseHostPort,
    help: 'Address of /health and /metrics (Prometheus, no auth), loopback unless set; bound even when intake is disabled.',
  }),
  option({
    key: 'apiKeys',
    flag: '--api-keys',
    env: ['DD_BRIDGE_API_KEYS'],
    file: 'api_keys',
    default: [],
    parse: parseList,
    help: 'Comma-separated keys accepted in DD-API-KEY (OTLP_AUTH_TOKEN is accepted too). None: open.',
  }),
  option({
    key: 'otlpAuthToken',
    flag: '--otlp-auth-token',
    env: ['OTLP_AUTH_TOKEN'],
    file: 'otlp.auth_token',
    default: undefined,
    parse: optionalString,
    help: "ClickStack's ingestion token: accepted in DD-API-KEY beside --api-keys, and sent to the collector (see --otlp-headers). Prefer the environment: a flag shows in the process list.",
  }),
  option({
    key: 'authTracerRoutes',
    flag: '--auth-tracer-routes',
    env: ['DD_BRIDGE_AUTH_TRACER_ROUTES'],
    file: 'auth_tracer_routes',
    default: false,
    parse: parseBool,
    help: 'Also require a key on tracer routes (/v0.x/*, /info). Tracers send none, so off by default.',
  }),
  option({
    key: 'maxBodyBytes',
    flag: '--max-body-bytes',
    env: ['DD_BRIDGE_MAX_BODY_BYTES'],
    file: 'max_body_bytes',
    default: 64 * MiB,
    parse: parsePositiveInt,
    help: 'Largest request body accepted as sent (compressed); larger gets 413.',
  }),
  option({
    key: 'maxDecodedBytes',
    flag: '--max-decoded-bytes',
    env: ['DD_BRIDGE_MAX_DECODED_BYTES'],
    file: 'max_decoded_bytes',
    default: 64 * MiB,
    parse: parsePositiveInt,
    help: 'Largest body after decompression; larger (or a decompression bomb) gets 413.',
  }),
  option({
    key: 'headersTimeoutMs',
    flag: '--headers-timeout-ms',
    env: ['DD_BRIDGE_HEADERS_TIMEOUT_MS'],
    file: 'headers_timeout_ms',
    default: 10_000,
    parse: parsePositiveInt,
    help: 'Time a client has to send its request headers.',
  }),
  option({
    key: 'requestTimeoutMs',
    flag: '--request-timeout-ms',
    env: ['DD_BRIDGE_REQUEST_TIMEOUT_MS'],
    file: 'request_timeout_ms',
    default: 60_000,
    parse: parsePositiveInt,
    help: 'Time a client has to send its whole request (the upstream receiver uses 60 s).',
  }),
  option({
    key: 'minUploadBytesPerSecond',
    flag: '--min-upload-bytes-per-second',
    env: ['DD_BRIDGE_MIN_UPLOAD_BYTES_PER_SECOND'],
    file: 'min_upload_bytes_per_second',
    default: 1024,
    parse: parsePositiveInt,
    help: 'A request body arriving slower than this, over any --upload-rate-window-ms, gets 408 and its connection closed.',
  }),
  option({
    key: 'uploadRateWindowMs',
    flag: '--upload-rate-window-ms',
    env: ['DD_BRIDGE_UPLOAD_RATE_WINDOW_MS'],
    file: 'upload_rate_window_ms',
    default: 10_000,
    parse: parsePositiveInt,
    help: 'Window over which the upload rate is judged; the first one, from the headers on, is the grace for the first bytes.',
  }),
  option({
    key: 'keepAliveTimeoutMs',
    flag: '--keep-alive-timeout-ms',
    env: ['DD_BRIDGE_KEEP_ALIVE_TIMEOUT_MS'],
    file: 'keep_alive_timeout_ms',
    default: 65_000,
    parse: parsePositiveInt,
    help: 'How long an idle keep-alive connection stays open.',
  }),
  option({
    key: 'otlpEndpoint',
    flag: '--otlp-endpoint',
    env: ['OTEL_EXPORTER_OTLP_ENDPOINT'],
    file: 'otlp.endpoint',
    default: 'http://localhost:4317',
    parse: (raw) => raw.trim(),
    help: 'Collector OTLP/gRPC endpoint; https:// means TLS.',
  }),
  option({
    key: 'otlpHeaders',
    flag: '--otlp-headers',
    env: ['OTEL_EXPORTER_OTLP_HEADERS'],
    file: 'otlp.headers',
    default: {},
    parse: parseOtlpHeaders,
    help: 'gRPC metadata, k=v,k2=v2. Without an authorization entry, OTLP_AUTH_TOKEN is sent raw (ClickStack: no "Bearer").',
  }),
  option({
    key: 'otlpTimeoutMs',
    flag: '--otlp-timeout-ms',
    env: ['OTEL_EXPORTER_OTLP_TIMEOUT'],
    file: 'otlp.timeout_ms',
    default: 10_000,
    parse: parsePositiveInt,
    help: 'Deadline of one export call, in milliseconds.',
  }),
  option({
    key: 'otlpCompression',
    flag: '--otlp-compression',
    env: ['OTEL_EXPORTER_OTLP_COMPRESSION'],
    file: 'otlp.compression',
    default: 'gzip',
    parse: parseCompression,
    help: 'gzip or none.',
  }),
  option({
    key: 'otlpInsecure',
    flag: '--otlp-insecure',
    env: ['OTEL_EXPORTER_OTLP_INSECURE'],
    file: 'otlp.insecure',
    default: undefined,
    parse: parseBool,
    help: 'Plain-text gRPC for an endpoint without a scheme (default: plain text unless https://).',
  }),
  option({
    key: 'otlpCertificate',
    flag: '--otlp-certificate',
    env: ['OTEL_EXPORTER_OTLP_CERTIFICATE'],
    file: 'otlp.certificate',
    default: undefined,
    parse: optionalString,
    help: 'PEM file of the CA that signed the collector certificate.',
  }),
  option({
    key: 'otlpClientKey',
    flag: '--otlp-client-key',
    env: ['OTEL_EXPORTER_OTLP_CLIENT_KEY'],
    file: 'otlp.client_key',
    default: undefined,
    parse: optionalString,
    help: 'PEM private key for mutual TLS.',
  }),
  option({
    key: 'otlpClientCertificate',
    flag: '--otlp-client-certificate',
    env: ['OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE'],
    file: 'otlp.client_certificate',
    default: undefined,
    parse: optionalString,
    help: 'PEM certificate for mutual TLS.',
  }),
  option({
    key: 'exportMaxBytes',
    flag: '--export-max-bytes',
    env: ['DD_BRIDGE_EXPORT_MAX_BYTES'],
    file: 'export.max_bytes',
    default: Math.floor(3.5 * MiB),
    parse: parsePositiveInt,
    help: 'Largest OTLP message sent; the collector refuses over 4 MiB by default.',
  }),
  option({
    key: 'exportRetryMaxElapsedMs',
    flag: '--export-retry-max-elapsed-ms',
    env: ['DD_BRIDGE_EXPORT_RETRY_MAX_ELAPSED_MS'],
    file: 'export.retry_max_elapsed_ms',
    default: 5_000,
    parse: parsePositiveInt,
    help: 'How long one request retries a failing collector before the sender gets 503 (and retries itself).',
  }),
  option({
    key: 'spoolDir',
    flag: '--spool-dir',
    env: ['DD_BRIDGE_SPOOL_DIR'],
    file: 'spool.dir',
    default: undefined,
    parse: optionalString,
    help: 'Durable spool: acknowledge once data is on disk here, deliver it in order, survive restarts. Off when unset.',
  }),
  option({
    key: 'spoolMaxBytes',
    flag: '--spool-max-bytes',
    env: ['DD_BRIDGE_SPOOL_MAX_BYTES'],
    file: 'spool.max_bytes',
    default: 1024 * MiB,
    parse: parsePositiveInt,
    help: 'Bound on the bytes the spool keeps on disk (segments, delivered or not, and dead letters); when reached, senders get 503 + Retry-After (never a code that makes them drop). Segments are a sixteenth of it, 1-64 MiB.',
  }),
  option({
    key: 'spoolFsync',
    flag: '--spool-fsync',
    env: ['DD_BRIDGE_SPOOL_FSYNC'],
    file: 'spool.fsync',
    default: 'always',
    parse: (raw, source) => {
      const v = raw.trim().toLowerCase();
      if (v === 'always' || v === 'never') return v;
      throw new ConfigError(`${source}: expected always or never, got "${raw}"`);
    },
    help: 'always: fsync (group-committed) before 2xx, survives power loss; never: survives a process crash only.',
  }),
  option({
    key: 'maxInflightRequests',
    flag: '--max-inflight-requests',
    env: ['DD_BRIDGE_MAX_INFLIGHT_REQUESTS'],
    file: 'max_inflight_requests',
    default: 256,
    parse: parsePositiveInt,
    help: 'Requests handled at once; more get 503 + Retry-After at once (back-pressure).',
  }),
  option({
    key: 'maxInflightBytes',
    flag: '--max-inflight-bytes',
    env: ['DD_BRIDGE_MAX_INFLIGHT_BYTES'],
    file: 'max_inflight_bytes',
    default: 128 * MiB,
    parse: parsePositiveInt,
    help: 'Body bytes (as sent plus decompressed) held at once; more gets 503 + Retry-After.',
  }),
  option({
    key: 'shutdownGraceMs',
    flag: '--shutdown-grace-ms',
    env: ['DD_BRIDGE_SHUTDOWN_GRACE_MS'],
    file: 'shutdown_grace_ms',
    default: 20_000,
    parse: parsePositiveInt,
    help: 'On SIGTERM: stop accepting, let in-flight requests finish for up to this long, then exit.',
  }),
  option({
    key: 'semconvOptIn',
    flag: '--semconv-stability-opt-in',
    env: ['OTEL_SEMCONV_STABILITY_OPT_IN'],
    file: 'semconv_stability_opt_in',
    default: { http: 'old', database: 'old' },
    parse: parseSemconvOptIn,
    help: 'HTTP and database attribute names on spans and APM-stats metrics: empty = the names HyperDX reads (http.url, http.method, http.status_code, db.statement); http / database = the stable names (url.full, db.query.text, …); http/dup, database/dup = both.',
  }),
  option({
    key: 'keepInternalTags',
    flag: '--keep-internal-tags',
    env: ['DD_BRIDGE_KEEP_INTERNAL_TAGS'],
    file: 'traces.keep_internal_tags',
    default: false,
    parse: parseBool,
    help: "Also write the tracers' sampling bookkeeping tags (_dd.p.dm, _dd.top_level, _dd.measured, _dd.agent_psr, …) as span attributes; no HyperDX view reads them.",
  }),
  option({
    key: 'decodeJsonMessage',
    flag: '--decode-json-message',
    env: ['DD_BRIDGE_DECODE_JSON_MESSAGE'],
    file: 'logs.decode_json_message',
    default: true,
    parse: parseBool,
    help: 'Unpack log messages that are JSON objects into severity, time, service, trace ids and attributes.',
  }),
  option({
    key: 'logTextCorrelation',
    flag: '--log-text-correlation',
    env: ['DD_BRIDGE_LOG_TEXT_CORRELATION'],
    file: 'logs.text_correlation',
    default: true,
    parse: parseBool,
    help: 'Read injected dd.trace_id/dd.span_id/dd.service/dd.env/dd.version and the level out of plain-text log lines (the body is kept as sent).',
  }),
  option({
    key: 'logPipelines',
    flag: '--log-pipelines',
    env: ['DD_BRIDGE_LOG_PIPELINES'],
    file: 'logs.pipelines',
    default: [],
    parse: (raw) => parseList(raw),
    help: 'Datadog log pipelines to run, comma-separated folders or files: an integrations-core checkout (or the bundled pipelines/integrations-core), and files `migrate pipelines` writes. Reloaded on SIGHUP. Empty = none.',
  }),
  option({
    key: 'logPipelineBudgetMs',
    flag: '--log-pipeline-budget-ms',
    env: ['DD_BRIDGE_LOG_PIPELINE_BUDGET_MS'],
    file: 'logs.pipeline_budget_ms',
    default: 5,
    parse: parsePositiveInt,
    help: 'Milliseconds of CPU time one log record may spend in the pipelines (checked before each processor and grok rule; time the process is paused does not count); past it the record goes on unparsed and is counted in ddbridge_log_pipeline_records_total.',
  }),
  option({
    key: 'traceIdCacheSize',
    flag: '--trace-id-cache-size',
    env: ['DD_BRIDGE_TRACE_ID_CACHE_SIZE'],
    file: 'trace_id_cache.size',
    default: 100_000,
    parse: parsePositiveInt,
    help: 'Traces remembered for rebuilding 128-bit ids of later spans and of logs (about 100 bytes each).',
  }),
  option({
    key: 'traceIdCacheTtlMs',
    flag: '--trace-id-cache-ttl-ms',
    env: ['DD_BRIDGE_TRACE_ID_CACHE_TTL_MS'],
    file: 'trace_id_cache.ttl_ms',
    default: 600_000,
    parse: parsePositiveInt,
    help: 'How long a trace stays in that cache after its last span.',
  }),
  option({
    key: 'metricStreamsMax',
    flag: '--metric-streams-max',
    env: ['DD_BRIDGE_METRIC_STREAMS_MAX'],
    file: 'metrics.streams_max',
    default: 100_000,
    parse: parsePositiveInt,
    help: 'Metric streams whose last point is remembered for start times (least recently seen evicted).',
  }),
  option({
    key: 'metricStreamsIdleMs',
    flag: '--metric-streams-idle-ms',
    env: ['DD_BRIDGE_METRIC_STREAMS_IDLE_MS'],
    file: 'metrics.streams_idle_ms',
    default: 900_000,
    parse: parsePositiveInt,
    help: 'A metric stream not seen for this long is forgotten.',
  }),
  option({
    key: 'k8sOtelMetrics',
    flag: '--k8s-otel-metrics',
    env: ['DD_BRIDGE_K8S_OTEL_METRICS'],
    file: 'metrics.kubernetes.otel_names',
    default: true,
    parse: parseBool,
    help: "Also write the agent's Kubernetes and node series as the OpenTelemetry metrics HyperDX's Kubernetes page and Infrastructure tab read (k8s.pod.cpu.usage, k8s.node.memory.usage, k8s.pod.phase, …). See docs/translation.md, Kubernetes metrics.",
  }),
  option({
    key: 'k8sDatadogMetrics',
    flag: '--k8s-datadog-metrics',
    env: ['DD_BRIDGE_K8S_DATADOG_METRICS'],
    file: 'metrics.kubernetes.datadog_names',
    default: true,
    parse: parseBool,
    help: 'Keep the kubelet and kubernetes_state_core series those are made from under their Datadog names (kubernetes.cpu.usage.total, …), which dashboards migrated from Datadog read. The system.* series are always kept.',
  }),
  option({
    key: 'hostMetadataMaxHosts',
    flag: '--host-metadata-max-hosts',
    env: ['DD_BRIDGE_HOST_METADATA_MAX_HOSTS'],
    file: 'host_metadata.max_hosts',
    default: 10_000,
    parse: parsePositiveInt,
    help: 'Hosts whose agent host metadata (host tags, cloud, Kubernetes) is kept to enrich their signals (least recently updated evicted).',
  }),
  option({
    key: 'hostMetadataTtlMs',
    flag: '--host-metadata-ttl-ms',
    env: ['DD_BRIDGE_HOST_METADATA_TTL_MS'],
    file: 'host_metadata.ttl_ms',
    default: 7_200_000,
    parse: parsePositiveInt,
    help: 'A host whose agent sent no host metadata for this long is forgotten (agents send it every 30 minutes).',
  }),
  option({
    key: 'logLevel',
    flag: '--log-level',
    env: ['DD_BRIDGE_LOG_LEVEL', 'LOG_LEVEL'],
    file: 'log_level',
    default: 'info',
    parse: parseLogLevel,
    help: 'debug, info, warn or error.',
  }),
];

/** What the routes read (RouteContext.config): encoding, log options, and what /info advertises. */
export const ROUTE_OPTIONS = ['exportMaxBytes', 'decodeJsonMessage', 'logTextCorrelation', 'logPipelineBudgetMs', 'listen', 'maxBodyBytes'] as const;
export type RouteOptions = Pick<Config, (typeof ROUTE_OPTIONS)[number]>;

/** What the intake server reads per request: auth scope, body limits, decompression. */
export const SERVER_OPTIONS = ['authTracerRoutes', 'maxBodyBytes', 'maxDecodedBytes', 'minUploadBytesPerSecond', 'uploadRateWindowMs'] as const;
export type ServerOptions = Pick<Config, (typeof SERVER_OPTIONS)[number]>;

/** What the collector's exporter reads. */
export const EXPORT_OPTIONS = ['otlpEndpoint', 'otlpHeaders', 'otlpAuthToken', 'otlpTimeoutMs', 'otlpCompression', 'otlpInsecure', 'otlpCertificate', 'otlpClientKey', 'otlpClientCertificate', 'exportRetryMaxElapsedMs'] as const;
export type ExportOptions = Pick<Config, (typeof EXPORT_OPTIONS)[number]>;
