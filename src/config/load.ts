/** Loading the sidecar's settings from its option table (options.ts) with the table machinery (table.ts). */
import { OPTIONS, type Config } from './options';
import { loadTable, parseArgsFor, resolveSetting as resolveTableSetting, type Option, type ParsedArgs } from './table';

export type { ParsedArgs };

/** The sidecar's flags and positionals. */
export const parseArgs = (argv: readonly string[]): ParsedArgs => parseArgsFor(OPTIONS, argv);

export const loadConfig = (args: ParsedArgs, env: NodeJS.ProcessEnv): Config => loadTable(OPTIONS, args, env);

/** The option table's entry for one setting (a tool beside the sidecar takes it under the same flag, variable and help). */
export function optionOf<K extends keyof Config>(key: K): Option<Config, K> {
  const found = OPTIONS.find((o) => o.key === key);
  if (!found) throw new Error(`no option ${key}`);
  return found as unknown as Option<Config, K>;
}

/** One setting for a tool that shares it with the sidecar: flag > environment > default, parsed as the sidecar parses it (no config file). */
export const resolveSetting = <K extends keyof Config>(key: K, flags: ReadonlyMap<string, string>, env: NodeJS.ProcessEnv): Config[K] => resolveTableSetting(optionOf(key), flags, env);

/** Keys that authenticate senders: the configured list plus ClickStack's ingestion token. */
export const acceptedKeys = (config: Pick<Config, 'apiKeys' | 'otlpAuthToken'>): string[] => (config.otlpAuthToken ? [...new Set([...config.apiKeys, config.otlpAuthToken])] : config.apiKeys);

/** One component's part of the settings (ROUTE_OPTIONS and the like), built in the composition root. */
export const optionsFor = <K extends keyof Config>(config: Config, keys: readonly K[]): Pick<Config, K> => Object.fromEntries(keys.map((k) => [k, config[k]])) as Pick<Config, K>;
