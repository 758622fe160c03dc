#!/usr/bin/env node
/**
 * dd-otlp-bridge command line: `serve` (default) runs the sidecar; `collector …` builds and checks
 * the stock collector; `stack` runs both for local use (`--ui`: with HyperDX; `hyperdx` builds or serves it alone); `stack dashboards|alerts|sources …` drives
 * the ClickStack management API; `migrate dashboards|monitors …` brings Datadog dashboards and
 * monitors along through it; `agent-config` points a Datadog Agent here.
 */
import { readFileSync } from 'node:fs';
import { ConfigError, helpText, loadConfig, parseArgs } from '../config';
import { createLogger } from '../core/observability/log';
import { serve } from './serve';
import { onShutdown } from './shutdown';

// The other commands load their modules when run: a serving sidecar never needs yaml, ajv, the
// OpenAPI document or the collector builder (~3 MiB of an idle sidecar's RSS).
const agentConfigCli = (): typeof import('../tools/agent-config/cli') => require('../tools/agent-config/cli');
const stackApiCli = (): typeof import('../tools/stack-api/cli') => require('../tools/stack-api/cli');
const migrateCli = (): typeof import('../tools/migrate/cli') => require('../tools/migrate/cli');
const collectorCli = (): typeof import('./collector') => require('./collector');
const stackCli = (): typeof import('./stack') => require('./stack');
const hyperdxCli = (): typeof import('./hyperdx') => require('./hyperdx');

async function main(argv: string[]): Promise<number> {
  // its flags are its own: the sidecar's parser would reject them
  if (argv[0] === 'agent-config') {
    return agentConfigCli().agentConfigCommand(argv.slice(1), { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s), now: () => new Date() });
  }
  if (argv[0] === 'migrate') {
    return migrateCli().migrateCommand(argv.slice(1), process.env, { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s), stdin: () => readFileSync(0, 'utf8') });
  }
  // `stack dashboards|alerts|sources …` (management API); bare `stack` falls through to the local stack
  const stackApi = argv[0] === 'stack' && argv[1] !== undefined && !argv[1].startsWith('-') ? stackApiCli() : undefined;
  if (stackApi?.isStackApiCommand(argv)) {
    return stackApi.stackApiCommand(argv.slice(1), process.env, { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s), stdin: () => readFileSync(0, 'utf8') });
  }
  const args = parseArgs(argv);
  if (args.help) {
    process.stdout.write(helpText());
    return 0;
  }
  const config = loadConfig(args, process.env);
  const log = createLogger(config.logLevel, { component: 'dd-otlp-bridge' });
  const [command = 'serve', ...rest] = args.positionals;
  switch (command) {
    case 'serve': {
      onShutdown(log, await serve(config, log));
      return -1; // keep running
    }
    case 'collector':
      return collectorCli().collectorCommand(rest, log);
    case 'stack':
      return stackCli().stackCommand(args, log);
    case 'hyperdx':
      return hyperdxCli().hyperdxCommand(rest, config, log, (stop) => onShutdown(log, stop));
    default:
      process.stderr.write(`unknown command "${command}"\n\n${helpText()}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof ConfigError ? 'configuration error' : 'error'}: ${(err as Error).message}\n`);
    process.exit(err instanceof ConfigError ? 2 : 1);
  },
);
