/**
 * Runtime configuration. Every setting is declared once in OPTIONS: its flag, environment
 * variables, config-file key, default and help text, so `--help`, the README table and the parser
 * cannot drift apart. Precedence: command-line flag > environment > config file > default.
 */
import { readFileSync } from 'node:fs';

const MiB = 1024 * 1024;

export interface Config {
  enabled: boolean;
  listen: HostPort;
  adminListen: HostPort;
  apiKeys: string[];
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
  spoolDir: string | undefined;
  spoolMaxBytes: number;
  spoolFsync: 'always' | 'never';
  maxInflightRequests: number;
  maxInflightBytes: number;
  shutdownGraceMs: number;
  traceIdCacheSize: number;
  traceIdCacheTtlMs: number;
  metricStreamsMax: number;
  metricStreamsIdleMs: number;
  logLevel: LogLevel;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export interface HostPort {
  host: string;
  port: number;
}

interface Option<K extends keyof Config> {
  key: K;
  flag: string;
  env: string[];
  file: string;
  default: Config[K];
  parse: (raw: string, source: string) => Config[K];
  help: string;
}

const parseBool = (raw: string, source: string): boolean => {
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off', ''].includes(v)) return false;
  throw new ConfigError(`${source}: expected true or false, got "${raw}"`);
};

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

const optionalString = (raw: string): string | undefined => (raw.trim() === '' ? undefined : raw.trim());

function option<K extends keyof Config>(o: Option<K>): Option<K> {
  return o;
}

export const OPTIONS = [
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
    default: { host: '0.0.0.0', port: 8126 },
    parse: parseHostPort,
    help: 'Intake address (host:port) that agents and tracers send to.',
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
    key: 'decodeJsonMessage',
    flag: '--decode-json-message',
    env: ['DD_BRIDGE_DECODE_JSON_MESSAGE'],
    file: 'logs.decode_json_message',
    default: true,
    parse: parseBool,
    help: 'Unpack log messages that are JSON objects into severity, time, service, trace ids and attributes.',
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
    key: 'logLevel',
    flag: '--log-level',
    env: ['DD_BRIDGE_LOG_LEVEL', 'LOG_LEVEL'],
    file: 'log_level',
    default: 'info',
    parse: parseLogLevel,
    help: 'debug, info, warn or error.',
  }),
] as const;

/** Keys that authenticate senders: the configured list plus ClickStack's ingestion token. */
export const acceptedKeys = (config: Config, env: NodeJS.ProcessEnv): string[] => {
  const token = env.OTLP_AUTH_TOKEN?.trim();
  return token ? [...new Set([...config.apiKeys, token])] : config.apiKeys;
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const fileValue = (file: Record<string, unknown>, dotted: string): unknown => dotted.split('.').reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined), file);

/** Config-file values may be native YAML types; bring them to the flag/env string form once. */
const fileValueAsString = (value: unknown): string => {
  if (Array.isArray(value)) return value.map(String).join(',');
  if (value && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
      .join(',');
  }
  return String(value);
};

export interface ParsedArgs {
  flags: Map<string, string>;
  positionals: string[];
  help: boolean;
  configFile: string | undefined;
}

/** `--flag value`, `--flag=value`; a boolean flag given alone means true. */
export function parseArgs(argv: string[]): ParsedArgs {
  const booleanFlags = new Set(OPTIONS.filter((o) => typeof o.default === 'boolean' || o.key === 'otlpInsecure').map((o) => o.flag));
  const known = new Set<string>([...OPTIONS.map((o) => o.flag), '--config']);
  const flags = new Map<string, string>();
  const positionals: string[] = [];
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (!known.has(name)) throw new ConfigError(`unknown option ${name} (see --help)`);
    if (eq > 0) flags.set(name, arg.slice(eq + 1));
    else if (booleanFlags.has(name) && (argv[i + 1] === undefined || argv[i + 1]!.startsWith('--'))) flags.set(name, 'true');
    else {
      const value = argv[++i];
      if (value === undefined) throw new ConfigError(`option ${name} needs a value`);
      flags.set(name, value);
    }
  }
  return { flags, positionals, help, configFile: flags.get('--config') };
}

export function loadConfig(args: ParsedArgs, env: NodeJS.ProcessEnv): Config {
  const file = args.configFile ? readConfigFile(args.configFile) : {};
  const config: Record<string, unknown> = {};
  for (const o of OPTIONS as readonly Option<keyof Config>[]) {
    config[o.key] = resolveOption(o, args.flags, env, file, args.configFile);
  }
  return config as unknown as Config;
}

function resolveOption<K extends keyof Config>(o: Option<K>, flags: Map<string, string>, env: NodeJS.ProcessEnv, file: Record<string, unknown>, fileName: string | undefined): Config[K] {
  const flag = flags.get(o.flag);
  if (flag !== undefined) return o.parse(flag, o.flag);
  for (const name of o.env) {
    const value = env[name];
    if (value !== undefined && value !== '') return o.parse(value, name);
  }
  const fromFile = fileValue(file, o.file);
  if (fromFile !== undefined && fromFile !== null) return o.parse(fileValueAsString(fromFile), `${fileName}: ${o.file}`);
  return o.default;
}

function readConfigFile(path: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    // loaded only with a config file: a sidecar configured by flags and env never needs the parser
    const { parse } = require('yaml') as typeof import('yaml');
    parsed = parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`cannot read config file ${path}: ${(err as Error).message}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(`config file ${path}: expected a mapping at the top level`);
  return parsed as Record<string, unknown>;
}

const describeDefault = (value: unknown): string => {
  if (value === undefined) return '';
  if (typeof value === 'object' && value !== null && 'port' in value) return `${(value as HostPort).host}:${(value as HostPort).port}`;
  if (Array.isArray(value)) return value.length ? value.join(',') : '(none)';
  if (typeof value === 'object' && value !== null) return Object.keys(value).length ? JSON.stringify(value) : '(none)';
  return String(value);
};

export function helpText(): string {
  const rows = OPTIONS.map((o) => {
    const def = describeDefault(o.default);
    return `  ${o.flag.padEnd(32)} ${o.help}\n  ${''.padEnd(32)} env: ${o.env.join(', ')}; file: ${o.file}${def ? `; default: ${def}` : ''}`;
  });
  return [
    'Usage: dd-otlp-bridge [serve] [options]',
    '       dd-otlp-bridge collector build|path|validate',
    '       dd-otlp-bridge stack            (collector + sidecar, intake on, file sink unless DB_ENDPOINT is set)',
    '       dd-otlp-bridge stack dashboards|alerts create|list|get|update|delete [ID] [--file body.json] [--table]',
    '       dd-otlp-bridge stack sources list [--table]   (ClickStack management API, Cloud or open source; see stack dashboards --help)',
    '       dd-otlp-bridge agent-config <datadog.yaml> --url http://host:8126 [--api-key KEY] [--dry-run] [--revert]   (point an agent here; see agent-config --help)',
    '',
    'Accepts Datadog agent, tracer and API intake and forwards it as OTLP/gRPC to an OpenTelemetry collector.',
    '',
    'Options (flag > environment > --config file > default):',
    `  ${'--config'.padEnd(32)} YAML file with the keys named "file:" below (dots are nesting)`,
    ...rows,
    `  ${'--help'.padEnd(32)} this text`,
    '',
  ].join('\n');
}
