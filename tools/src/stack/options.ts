/**
 * `dd-otlp-bridge-tools stack`'s own settings (the sidecar's are the sidecar's option table, which
 * `stack` accepts too and hands to the sidecar it starts). Declared as the sidecar declares its own
 * (src/config/table.ts), so `stack --help` and loading cannot drift apart.
 */
import { ConfigError, optionalString, parseBool, parsePort, type Option, type OptionTable } from '../../../src/config';

/** Where the stack has the collector write. */
export type StackSink = 'clickhouse' | 'file';

export interface StackConfig {
  sink: StackSink;
  clickhouseHttpPort: number;
  clickhouseTcpPort: number;
  clickhouseHome: string | undefined;
  collectorHost: string;
  collectorGrpcPort: number;
  collectorHttpPort: number;
  collectorHealthPort: number;
  collectorMetricsPort: number;
  ui: boolean;
  uiSource: string | undefined;
  uiPort: number;
}

const parseStackSink = (raw: string, source: string): StackSink => {
  const v = raw.trim().toLowerCase();
  if (v === 'clickhouse' || v === 'file') return v;
  throw new ConfigError(`${source}: expected clickhouse or file, got "${raw}"`);
};

/** An address to bind: anything but empty (0.0.0.0 opens the port to the network, on purpose). */
const parseHost = (raw: string, source: string): string => {
  const host = raw.trim();
  if (host === '' || /[\s/]/.test(host)) throw new ConfigError(`${source}: expected a host or IP address to bind, got "${raw}"`);
  return host;
};

function option<K extends keyof StackConfig>(o: Option<StackConfig, K>): Option<StackConfig, keyof StackConfig> {
  return o as unknown as Option<StackConfig, keyof StackConfig>;
}

const port = (key: 'collectorGrpcPort' | 'collectorHttpPort' | 'collectorHealthPort' | 'collectorMetricsPort', name: string, fallback: number, what: string): Option<StackConfig, keyof StackConfig> =>
  option({
    key,
    flag: `--collector-${name}-port`,
    env: [`DD_BRIDGE_COLLECTOR_${name.toUpperCase()}_PORT`],
    file: `stack.collector.${name}_port`,
    default: fallback,
    parse: parsePort,
    help: `the collector's ${what} port, on --collector-host.`,
  });

export const STACK_OPTIONS: OptionTable<StackConfig> = [
  option({
    key: 'sink',
    flag: '--sink',
    env: ['DD_BRIDGE_STACK_SINK'],
    file: 'stack.sink',
    default: 'clickhouse',
    parse: parseStackSink,
    help: 'clickhouse (DB_ENDPOINT when set, else an embedded ClickHouse it starts) or file (OTLP JSON files under .cache/sink).',
  }),
  option({
    key: 'clickhouseHttpPort',
    flag: '--clickhouse-http-port',
    env: ['DD_BRIDGE_CLICKHOUSE_HTTP_PORT'],
    file: 'stack.clickhouse.http_port',
    default: 8123,
    parse: parsePort,
    help: "the embedded ClickHouse's HTTP port on 127.0.0.1 (curl, HyperDX).",
  }),
  option({
    key: 'clickhouseTcpPort',
    flag: '--clickhouse-tcp-port',
    env: ['DD_BRIDGE_CLICKHOUSE_TCP_PORT'],
    file: 'stack.clickhouse.tcp_port',
    default: 9000,
    parse: parsePort,
    help: "the embedded ClickHouse's native port on 127.0.0.1 (the collector's exporter).",
  }),
  option({
    key: 'clickhouseHome',
    flag: '--clickhouse-home',
    env: ['DD_BRIDGE_CLICKHOUSE_HOME'],
    file: 'stack.clickhouse.home',
    default: undefined,
    parse: optionalString,
    help: 'folder of the embedded ClickHouse: its Python venv (chdb-core), data/ (kept across restarts), logs/ and credentials. Default: .cache/clickhouse in the repo.',
  }),
  option({
    key: 'collectorHost',
    flag: '--collector-host',
    env: ['DD_BRIDGE_COLLECTOR_HOST'],
    file: 'stack.collector.host',
    default: '127.0.0.1',
    parse: parseHost,
    help: "where the collector's ports listen: loopback unless you open them (0.0.0.0 lets other hosts send OTLP; give OTLP_AUTH_TOKEN then).",
  }),
  port('collectorGrpcPort', 'grpc', 4317, 'OTLP/gRPC (the sidecar sends here)'),
  port('collectorHttpPort', 'http', 4318, 'OTLP/HTTP'),
  port('collectorHealthPort', 'health', 13133, 'health check'),
  port('collectorMetricsPort', 'metrics', 8888, 'self-metrics (Prometheus)'),
  option({
    key: 'ui',
    flag: '--ui',
    env: ['DD_BRIDGE_UI'],
    file: 'stack.ui.enabled',
    default: false,
    parse: parseBool,
    help: "also build (once per source, cached under DD_BRIDGE_HYPERDX_CACHE, default ~/.cache/dd-otlp-bridge/hyperdx) and serve the HyperDX UI in local mode, connected to the stack's ClickHouse. See docs/hyperdx-ui.md.",
  }),
  option({
    key: 'uiSource',
    flag: '--ui-source',
    env: ['DD_BRIDGE_HYPERDX_SOURCE'],
    file: 'stack.ui.source',
    default: undefined,
    parse: optionalString,
    help: 'the HyperDX source for --ui and `hyperdx`: a hyperdxio/hyperdx clone or its .tar.gz. Default: the newest ../shared/vendor/hyperdx/*.tar.gz beside the repo.',
  }),
  option({
    key: 'uiPort',
    flag: '--ui-port',
    env: ['DD_BRIDGE_UI_PORT'],
    file: 'stack.ui.port',
    default: 8080,
    parse: parsePort,
    help: "the HyperDX UI's port on 127.0.0.1 (--ui, `hyperdx serve`).",
  }),
];
