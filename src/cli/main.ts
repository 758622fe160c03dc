#!/usr/bin/env node
/**
 * dd-otlp-bridge: the sidecar. `serve` (the only command, and the default) accepts Datadog intake
 * and forwards it as OTLP to the collector. The workbench beside it (local stack, collector build,
 * HyperDX, migration, agent set-up) is the dd-otlp-bridge-tools command in tools/.
 */
import { ConfigError, helpText, loadConfig, parseArgs } from '../config';
import { createLogger } from '../core/observability/log';
import { serve } from './serve';
import { onShutdown } from './shutdown';

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if (args.help) {
    process.stdout.write(helpText());
    return 0;
  }
  const [command = 'serve', ...rest] = args.positionals;
  if (command !== 'serve' || rest.length > 0) {
    process.stderr.write(`unknown command "${args.positionals.join(' ')}"${WORKBENCH.has(command) ? ` (it is a workbench command now: dd-otlp-bridge-tools ${command})` : ''}\n\n${helpText()}`);
    return 2;
  }
  const config = loadConfig(args, process.env);
  const log = createLogger(config.logLevel, { component: 'dd-otlp-bridge' });
  onShutdown(log, await serve(config, log));
  return -1; // keep running
}

/** Commands an earlier version served itself, now in tools/: named in the error, so a script that used them learns where they went. */
const WORKBENCH = new Set(['stack', 'collector', 'hyperdx', 'migrate', 'agent-config']);

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof ConfigError ? 'configuration error' : 'error'}: ${(err as Error).message}\n`);
    process.exit(err instanceof ConfigError ? 2 : 1);
  },
);
