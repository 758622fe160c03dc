/**
 * Option tables: each setting declared once (flag, environment variables, config-file key,
 * default, parser, help), so a command's `--help`, the README's table and loading cannot drift
 * apart. The sidecar's table is options.ts; a tool beside it (the stack) declares its own and
 * reads the sidecar's with the same functions. Precedence: flag > environment > config file >
 * default.
 */
import { readFileSync } from 'node:fs';
import { parseArgs as parseArgTokens } from 'node:util';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export interface Option<T, K extends keyof T = keyof T> {
  key: K;
  flag: string;
  env: string[];
  /** dotted path in the YAML config file */
  file: string;
  default: T[K];
  parse: (raw: string, source: string) => T[K];
  help: string;
}

/** A table of options for the settings object `T`; `option()` keeps each entry's key and value types together. */
export type OptionTable<T> = readonly Option<T, keyof T>[];

/** What reading flags and writing help need of an option, whatever its table. */
type Described = Pick<Option<unknown, never>, 'flag' | 'env' | 'file' | 'help'> & { default: unknown };

export const parseBool = (raw: string, source: string): boolean => {
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off', ''].includes(v)) return false;
  throw new ConfigError(`${source}: expected true or false, got "${raw}"`);
};

export interface ParsedArgs {
  flags: Map<string, string>;
  positionals: string[];
  help: boolean;
  configFile: string | undefined;
}

/** The parseArgs declaration of a table's flags: booleans (a boolean default) may stand alone, everything else takes a value. */
const flagsOf = (table: readonly Described[]): Record<string, { type: 'string' | 'boolean'; short?: string }> => ({
  ...Object.fromEntries(table.map((o) => [o.flag.slice(2), { type: typeof o.default === 'boolean' ? 'boolean' : 'string' }])),
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
});

/**
 * `--flag value`, `--flag=value`; a boolean flag given alone means true, and takes the next
 * argument as its value when that is not a flag (`--enable false`). Not strict, so that an
 * unknown flag gets this module's error rather than node's.
 */
export function parseArgsFor(table: readonly Described[], argv: readonly string[]): ParsedArgs {
  const declaredFlags = flagsOf(table);
  const { tokens } = parseArgTokens({ args: [...argv], options: declaredFlags, strict: false, allowPositionals: true, tokens: true });
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
    const declared = declaredFlags[token.name];
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

/** Every setting of `table`, from the flags, the environment and the config file the arguments name. */
export function loadTable<T>(table: OptionTable<T>, args: ParsedArgs, env: NodeJS.ProcessEnv): T {
  const file = args.configFile ? readConfigFile(args.configFile) : {};
  const settings: Partial<T> = {};
  for (const o of table) settings[o.key] = resolveOption(o, args.flags, env, file, args.configFile);
  return settings as T;
}

/** One setting, for a tool that shares it with the sidecar: flag > environment > default (no config file). */
export const resolveSetting = <T, K extends keyof T>(o: Option<T, K>, flags: ReadonlyMap<string, string>, env: NodeJS.ProcessEnv): T[K] => resolveOption(o, flags, env, {}, undefined);

function resolveOption<T, K extends keyof T>(o: Option<T, K>, flags: ReadonlyMap<string, string>, env: NodeJS.ProcessEnv, file: Record<string, unknown>, fileName: string | undefined): T[K] {
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

interface HostPortLike {
  host: string;
  port: number;
}

const describeDefault = (value: unknown): string => {
  if (value === undefined) return '';
  if (typeof value === 'object' && value !== null && 'port' in value) return `${(value as HostPortLike).host}:${(value as HostPortLike).port}`;
  if (Array.isArray(value)) return value.length ? value.join(',') : '(none)';
  if (typeof value === 'object' && value !== null) return Object.keys(value).length ? JSON.stringify(value) : '(none)';
  return String(value);
};

/** `--help` lines for a table: each flag with its help, sources and default. */
export const helpRows = (table: readonly Described[]): string[] =>
  table.map((o) => {
    const def = describeDefault(o.default);
    return `  ${o.flag.padEnd(32)} ${o.help}\n  ${''.padEnd(32)} env: ${o.env.join(', ')}; file: ${o.file}${def ? `; default: ${def}` : ''}`;
  });
