/**
 * Loading the settings: flags (node:util parseArgs), environment, then the YAML config file, then
 * the defaults of OPTIONS. Precedence: command-line flag > environment > config file > default.
 */
import { readFileSync } from 'node:fs';
import { parseArgs as parseArgTokens } from 'node:util';
import { ConfigError, OPTIONS, parseBool, type Config, type Option } from './options';

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

/** The parseArgs declaration of every flag: booleans may stand alone, everything else takes a value. */
const isBooleanOption = (o: (typeof OPTIONS)[number]): boolean => o.parse === parseBool;
const FLAGS: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
  ...Object.fromEntries(OPTIONS.map((o) => [o.flag.slice(2), { type: isBooleanOption(o) ? 'boolean' : 'string' }])),
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

/**
 * `--flag value`, `--flag=value`; a boolean flag given alone means true, and takes the next
 * argument as its value when that is not a flag (`--enable false`). Not strict, so that an
 * unknown flag gets this module's error rather than node's.
 */
export function parseArgs(argv: string[]): ParsedArgs {
  const { tokens } = parseArgTokens({ args: argv, options: FLAGS, strict: false, allowPositionals: true, tokens: true });
  const flags = new Map<string, string>();
  const positionals: string[] = [];
  let help = false;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    if (token.name === 'help') {
      help = true;
      continue;
    }
    const flag = `--${token.name}`;
    const declared = FLAGS[token.name];
    if (!declared || token.rawName !== flag) throw new ConfigError(`unknown option ${token.rawName} (see --help)`);
    const next = tokens[i + 1];
    if (token.value !== undefined) flags.set(flag, token.value);
    else if (declared.type === 'string') throw new ConfigError(`option ${flag} needs a value`);
    else if (next?.kind === 'positional' && next.index === token.index + 1) {
      flags.set(flag, next.value);
      i++;
    } else flags.set(flag, 'true');
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

/** The option table's entry for one setting (a tool beside the sidecar takes it under the same flag, variable and help). */
export function optionOf<K extends keyof Config>(key: K): Option<K> {
  const found = (OPTIONS as readonly Option<keyof Config>[]).find((o) => o.key === key);
  if (!found) throw new Error(`no option ${key}`);
  return found as unknown as Option<K>;
}

/** One setting for a tool that shares it with the sidecar: flag > environment > default, parsed as the sidecar parses it (no config file). */
export const resolveSetting = <K extends keyof Config>(key: K, flags: ReadonlyMap<string, string>, env: NodeJS.ProcessEnv): Config[K] => resolveOption(optionOf(key), flags, env, {}, undefined);

function resolveOption<K extends keyof Config>(o: Option<K>, flags: ReadonlyMap<string, string>, env: NodeJS.ProcessEnv, file: Record<string, unknown>, fileName: string | undefined): Config[K] {
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

/** Keys that authenticate senders: the configured list plus ClickStack's ingestion token. */
export const acceptedKeys = (config: Pick<Config, 'apiKeys' | 'otlpAuthToken'>): string[] => (config.otlpAuthToken ? [...new Set([...config.apiKeys, config.otlpAuthToken])] : config.apiKeys);

/** One component's part of the settings (ROUTE_OPTIONS and the like), built in the composition root. */
export const optionsFor = <K extends keyof Config>(config: Config, keys: readonly K[]): Pick<Config, K> => Object.fromEntries(keys.map((k) => [k, config[k]])) as Pick<Config, K>;
