/** `dd-otlp-bridge --help`: usage, then every option of OPTIONS with its sources and default. */
import { OPTIONS } from './options';
import { helpRows } from './table';

export function helpText(): string {
  return [
    'Usage: dd-otlp-bridge [serve] [options]',
    '',
    'Accepts Datadog agent, tracer and API intake and forwards it as OTLP/gRPC to an OpenTelemetry collector.',
    'The local stack, the collector build, migration and agent set-up are in the workbench: dd-otlp-bridge-tools --help.',
    '',
    'Options (flag > environment > --config file > default):',
    `  ${'--config'.padEnd(32)} YAML file with the keys named "file:" below (dots are nesting)`,
    ...helpRows(OPTIONS),
    `  ${'--help'.padEnd(32)} this text`,
    '',
  ].join('\n');
}
