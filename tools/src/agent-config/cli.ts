/**
 * `dd-otlp-bridge-tools agent-config <datadog.yaml> --url … [--api-key …] [--dry-run] [--revert]`:
 * points an installed Datadog Agent at the bridge by editing its datadog.yaml in place, with a
 * backup to go back to. Dispatched before the sidecar's own option parser, since its flags are
 * its own.
 */
import { readFileSync, unlinkSync } from 'node:fs';
import { ConfigError } from '../../../src/config';
import { listBackups, replaceFile, writeBackup } from './backups';
import { unifiedDiff } from './diff';
import { afterWriteGuidance } from './guidance';
import { masker } from './mask';
import { describePath, RewriteError, type AgentConfigOptions, type Change } from './plan';
import { rewriteAgentConfig } from './rewrite';
import { parseBridgeUrl } from './target';

export const AGENT_CONFIG_USAGE = `Usage: dd-otlp-bridge-tools agent-config <path/to/datadog.yaml> --url http(s)://host:port [options]
       dd-otlp-bridge-tools agent-config <path/to/datadog.yaml> --revert [--dry-run]

Points a Datadog Agent at dd-otlp-bridge by editing its datadog.yaml in place: comments, order and
unrelated settings stay as they are, a backup <file>.bak-<UTC time> is written first, and a second
run changes nothing. Sets api_key, dd_url, use_v3_api.series.enabled: false, apm_config.enabled,
apm_config.apm_dd_url, logs_enabled, logs_config.logs_dd_url (host:port), logs_config.force_use_http,
logs_config.logs_no_ssl (http:// only), remote_updates: false, remote_configuration.enabled: false.

Options:
  --url URL              the bridge's intake, e.g. http://bridge.internal:8126 (18126 when the
                         bridge shares a host with an agent)
  --api-key KEY          key the agent sends as DD-API-KEY (ClickStack ingestion key /
                         OTLP_AUTH_TOKEN / one of DD_BRIDGE_API_KEYS); default: keep the file's
  --api-key-file FILE    read that key from FILE (keeps it out of shell history and ps)
  --v3                   the bridge decodes v3 series (this one does): leave use_v3_api alone
  --dual-ship            keep sending to Datadog too, through additional_endpoints
  --vendor-api-key KEY   Datadog key for --dual-ship (default: the file's key before the switch)
  --dry-run              print a unified diff (keys masked) and write nothing
  --revert               restore the newest backup and remove it (repeat to go further back)
  --help                 this text
`;

interface Args {
  file: string | undefined;
  flags: Map<string, string>;
}

const BOOLEAN_FLAGS = new Set(['--v3', '--dual-ship', '--dry-run', '--revert', '--help']);
const VALUE_FLAGS = new Set(['--url', '--api-key', '--api-key-file', '--vendor-api-key']);

function parseAgentConfigArgs(argv: readonly string[]): Args {
  const flags = new Map<string, string>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (name === '-h' || BOOLEAN_FLAGS.has(name)) flags.set(name === '-h' ? '--help' : name, 'true');
    else if (VALUE_FLAGS.has(name)) {
      const value = inline ?? argv[++i];
      if (value === undefined || value === '') throw new ConfigError(`${name} needs a value`);
      flags.set(name, value);
    } else if (name.startsWith('-')) throw new ConfigError(`unknown option ${name} for agent-config (see agent-config --help)`);
    else positionals.push(arg);
  }
  if (positionals.length > 1) throw new ConfigError(`agent-config takes one file, got ${positionals.length}`);
  return { file: positionals[0], flags };
}

function optionsFrom(flags: Map<string, string>): AgentConfigOptions {
  const url = flags.get('--url');
  if (url === undefined) throw new ConfigError('--url is required (e.g. --url http://bridge.internal:8126)');
  const keyFile = flags.get('--api-key-file');
  if (keyFile !== undefined && flags.has('--api-key')) throw new ConfigError('give --api-key or --api-key-file, not both');
  const apiKey = keyFile === undefined ? flags.get('--api-key') : readFileSync(keyFile, 'utf8').trim();
  if (apiKey !== undefined && !/^\S+$/.test(apiKey)) throw new ConfigError('the API key is empty or contains whitespace');
  return {
    target: parseBridgeUrl(url),
    apiKey,
    v3: flags.has('--v3'),
    dualShip: flags.has('--dual-ship'),
    vendorApiKey: flags.get('--vendor-api-key'),
  };
}

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  now: () => Date;
}

const show = (value: unknown): string => (value === undefined ? '(unset)' : typeof value === 'string' ? value : JSON.stringify(value));

const describeChange = (change: Change): string => (change.op === 'set' ? `  ${describePath(change.path)}: ${show(change.value)}` : `  ${describePath(change.path)} += ${show(change.item)}`);

function revert(file: string, dryRun: boolean, io: Io): number {
  const backups = listBackups(file);
  const newest = backups[backups.length - 1];
  if (!newest) {
    io.err(`no backup of ${file} found (${file}.bak-*); nothing to revert\n`);
    return 1;
  }
  const current = readFileSync(file, 'utf8');
  const restored = readFileSync(newest.path, 'utf8');
  const mask = masker([current, restored], []);
  if (dryRun) {
    io.out(mask(unifiedDiff(current, restored, file, newest.path)) || `${file} already equals ${newest.path}\n`);
    return 0;
  }
  replaceFile(file, restored);
  unlinkSync(newest.path);
  io.out(`Restored ${file} from ${newest.path} (removed; ${backups.length - 1} older backup(s) left).\n\n${afterWriteGuidance([])}`);
  return 0;
}

function migrate(file: string, options: AgentConfigOptions, dryRun: boolean, io: Io): number {
  const before = readFileSync(file, 'utf8');
  const result = rewriteAgentConfig(before, options);
  const mask = masker([before, result.text], [options.apiKey, options.vendorApiKey]);
  if (result.changes.length === 0) {
    io.out(`${file} already has every setting for ${options.target.url}; nothing to change, nothing written.\n`);
    return 0;
  }
  const note = result.normalized ? 'note: this layout cannot be edited line by line (flow-style mapping?); the file is re-rendered: comments are kept, spacing and quoting may change.\n' : '';
  if (dryRun) {
    io.out(mask(unifiedDiff(before, result.text, `${file}`, `${file} (rewritten)`)) + note + '(dry run: nothing written)\n');
    return 0;
  }
  const backup = writeBackup(file, io.now());
  replaceFile(file, result.text);
  io.out(mask([`Updated ${file} (backup: ${backup}; undo with --revert):`, ...result.changes.map(describeChange), note].join('\n')) + '\n' + mask(afterWriteGuidance(result.settings)));
  return 0;
}

export function agentConfigCommand(argv: readonly string[], io: Io): number {
  const { file, flags } = parseAgentConfigArgs(argv);
  if (flags.has('--help')) {
    io.out(AGENT_CONFIG_USAGE);
    return 0;
  }
  if (file === undefined) throw new ConfigError('agent-config needs the path of datadog.yaml (see agent-config --help)');
  try {
    if (flags.has('--revert')) return revert(file, flags.has('--dry-run'), io);
    return migrate(file, optionsFrom(flags), flags.has('--dry-run'), io);
  } catch (err) {
    if (!(err instanceof RewriteError) && (err as NodeJS.ErrnoException).code === undefined) throw err;
    io.err(`agent-config: ${(err as Error).message}; ${file} left unchanged\n`);
    return 1;
  }
}
