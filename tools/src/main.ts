/**
 * dd-otlp-bridge-tools: the workbench beside the sidecar. `stack` runs ClickHouse, the collector
 * and the sidecar locally; `collector` builds and checks the collector; `hyperdx` builds or serves
 * the HyperDX UI; `stack dashboards|alerts|…` drives the ClickStack management API; `migrate`
 * brings Datadog dashboards and monitors along through it; `agent-config` points a Datadog Agent
 * at the sidecar. It uses the sidecar's code (src/), never the other way.
 */
import { readFileSync } from 'node:fs';
import { ConfigError, loadTable, parseArgsFor, resolveSetting } from '../../src/config';
import { createLogger } from '../../src/core/observability/log';
import { onShutdown } from '../../src/cli/shutdown';
import { STACK_OPTIONS } from './stack/options';

// each command loads its modules when run: `collector path` needs neither ajv nor the OpenAPI document
const agentConfigCli = (): typeof import('./agent-config/cli') => require('./agent-config/cli');
const stackApiCli = (): typeof import('./stack-api/cli') => require('./stack-api/cli');
const migrateCli = (): typeof import('./migrate/cli') => require('./migrate/cli');
const collectorCli = (): typeof import('./collector/command') => require('./collector/command');
const stackCli = (): typeof import('./stack/command') => require('./stack/command');
const hyperdxCli = (): typeof import('./hyperdx/command') => require('./hyperdx/command');

export const TOOLS_HELP = `Usage: dd-otlp-bridge-tools <command> …
  stack [options]                      ClickHouse (DB_ENDPOINT, else an embedded one) + collector + sidecar, intake on (stack --help)
  stack --ui                           … and the HyperDX UI in local mode on that ClickHouse
  collector build|path|validate        the collector from collector/builder.yaml; validate every shipped config combination
  hyperdx build|path|serve             the HyperDX UI alone (hyperdx --help)
  stack dashboards|alerts|saved-searches|sources …   the ClickStack management API (stack dashboards --help)
  migrate dashboards|monitors FILE|DIR…              Datadog exports → HyperDX (migrate --help)
  migrate pipelines FILE|DIR… --out FILE             Datadog log pipelines (export, Terraform) → the sidecar's --log-pipelines file
  agent-config <datadog.yaml> --url http://host:8126 point a Datadog Agent at the sidecar (agent-config --help)

The sidecar itself is dd-otlp-bridge (dd-otlp-bridge --help).
`;

const io = { out: (s: string) => process.stdout.write(s), err: (s: string) => process.stderr.write(s), stdin: () => readFileSync(0, 'utf8'), now: () => new Date() };

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'agent-config':
      return agentConfigCli().agentConfigCommand(rest, io);
    case 'migrate':
      return migrateCli().migrateCommand(rest, process.env, io);
    case 'stack': {
      const api = rest[0] !== undefined && !rest[0].startsWith('-') ? stackApiCli() : undefined;
      if (api?.isStackApiCommand(argv)) return api.stackApiCommand(rest, process.env, io);
      return stackCli().stackCommand(rest, process.env);
    }
    case 'collector': {
      const log = createLogger(resolveSetting('logLevel', new Map(), process.env), { component: 'dd-otlp-bridge-tools' });
      return collectorCli().collectorCommand(rest, log);
    }
    case 'hyperdx': {
      const args = parseArgsFor(STACK_OPTIONS, rest);
      const hyperdx = hyperdxCli();
      if (args.help) {
        io.out(hyperdx.HYPERDX_USAGE);
        return 0;
      }
      const log = createLogger(resolveSetting('logLevel', new Map(), process.env), { component: 'dd-otlp-bridge-tools' });
      return hyperdx.hyperdxCommand(args.positionals, loadTable(STACK_OPTIONS, args, process.env), log, (stop) => onShutdown(log, stop));
    }
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      io.out(TOOLS_HELP);
      return command === undefined ? 2 : 0;
    default:
      io.err(`unknown command "${command}"\n\n${TOOLS_HELP}`);
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
