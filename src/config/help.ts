/** `dd-otlp-bridge --help`: usage, then every option of OPTIONS with its sources and default. */
import { OPTIONS, type HostPort } from './options';

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
    '       dd-otlp-bridge stack [--sink clickhouse|file]   (ClickHouse (DB_ENDPOINT, else an embedded one) + collector + sidecar, intake on)',
    '       dd-otlp-bridge stack --ui [--ui-source PATH|TARBALL] [--ui-port PORT]   (also the HyperDX UI in local mode, on that ClickHouse)',
    '       dd-otlp-bridge hyperdx build|path|serve   (the HyperDX UI alone: build once per source, or serve it)',
    '       dd-otlp-bridge stack dashboards|alerts create|list|get|update|delete [ID] [--file body.json] [--table]',
    '       dd-otlp-bridge stack sources list [--table]   (ClickStack management API, Cloud or open source; see stack dashboards --help)',
    '       dd-otlp-bridge migrate dashboards|monitors FILE|DIR… [--dry-run | --out DIR | --delete] [--webhook NAME=ID]   (Datadog exports → HyperDX; see migrate --help)',
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
