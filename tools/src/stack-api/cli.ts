/**
 * `dd-otlp-bridge-tools stack <dashboards|alerts|sources> <action> …`: the ClickStack management API
 * from the command line. Dispatched before the sidecar's option parser (its flags are its own);
 * bare `stack` still starts the local collector and sidecar.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../../../src/config';
import { InvalidRequest, OPERATION_IDS, secretsOf, StackApiClient, type Action, type Page, type RequestBody, type ResourceName, type StackMode } from './client';
import { formatTable } from './table';

const STACK_API_USAGE = `Usage: dd-otlp-bridge-tools stack dashboards create|list|get|update|delete [ID] [options]
       dd-otlp-bridge-tools stack alerts     create|list|get|update|delete [ID] [options]
       dd-otlp-bridge-tools stack saved-searches create|list|get|update|delete [ID] [options]
       dd-otlp-bridge-tools stack sources    list [options]

Manages ClickStack dashboards, alerts, saved searches and sources through its management API: Managed ClickStack
(ClickHouse Cloud API, HTTP Basic with a Cloud API key) or open source (HyperDX /api/v2, Bearer
personal API key). Request bodies are checked against the HyperDX OpenAPI document before they
are sent; replies are checked against it too.

Connection (flag, else environment):
  --base-url URL         Cloud: CLICKSTACK_API_URL (default https://api.clickhouse.cloud/v1)
                         open source: HYPERDX_API_URL (default http://localhost:8000, the API port)
  --org ID               CLICKSTACK_ORG_ID       Cloud organization id  } any of these four
  --service ID           CLICKSTACK_SERVICE_ID   Cloud service id       } selects Managed
  --key-id ID            CLICKSTACK_KEY_ID       Cloud API key id       } ClickStack; all four
  --key-secret SECRET    CLICKSTACK_KEY_SECRET   Cloud API key secret   } are then required
  --api-key KEY          HYPERDX_PERSONAL_API_KEY  open source: personal API access key
  Prefer the environment for secrets: flags show up in ps and shell history.

Bodies (create, update):
  --file PATH            JSON body from a file ("-": standard input)
  --body JSON            JSON body inline
  alerts only, each sets one field (over --file/--body when both are given):
  --name TEXT --message TEXT --threshold N --interval 1m|5m|15m|30m|1h|6h|12h|1d
  --threshold-type above|below|… --source tile|saved_search (default tile with --tile-id)
  --dashboard-id ID --tile-id ID --webhook-id ID (channel {type: webhook})

Output:
  --table                aligned table (id, name, a few key columns) instead of JSON
  --limit N --offset N   list one page (alerts); without them every page is fetched
  --verbose              one line per request and reply on stderr (never a credential)
  --help                 this text

Rate limit: a 429 is sent again after the wait the server asks for (RateLimit-Reset, else
Retry-After; at most 120 s), up to 3 times, each announced on stderr.

Exit status: 0 done, 1 the service refused or failed (its message is shown), 2 usage error or a
body that does not match the document (nothing sent).
`;

const BOOLEAN_FLAGS = new Set(['--table', '--verbose', '--help']);
const CONNECTION_FLAGS = ['--base-url', '--org', '--service', '--key-id', '--key-secret', '--api-key'];
const BODY_FLAGS = ['--file', '--body'];
const PAGE_FLAGS = ['--limit', '--offset'];

const parseThreshold = (raw: string): number => {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n)) throw new ConfigError(`--threshold: expected a number, got "${raw}"`);
  return n;
};

/** Flags that each set one field of an alert body. */
const ALERT_FIELD_FLAGS: Record<string, (raw: string) => [field: string, value: unknown]> = {
  '--name': (v) => ['name', v],
  '--message': (v) => ['message', v],
  '--threshold': (v) => ['threshold', parseThreshold(v)],
  '--interval': (v) => ['interval', v],
  '--threshold-type': (v) => ['thresholdType', v],
  '--source': (v) => ['source', v],
  '--dashboard-id': (v) => ['dashboardId', v],
  '--tile-id': (v) => ['tileId', v],
  '--webhook-id': (v) => ['channel', { type: 'webhook', webhookId: v }],
};

const VALUE_FLAGS = new Set([...CONNECTION_FLAGS, ...BODY_FLAGS, ...PAGE_FLAGS, ...Object.keys(ALERT_FIELD_FLAGS)]);

const STACK_RESOURCES = Object.keys(OPERATION_IDS) as ResourceName[];

/** `stack dashboards …` is this command; bare `stack` (and `stack --flags`) is the local stack. */
export const isStackApiCommand = (argv: readonly string[]): boolean => argv[0] === 'stack' && STACK_RESOURCES.includes(argv[1] as ResourceName);

interface Invocation {
  resource: ResourceName;
  action: Action | undefined;
  id: string | undefined;
  flags: Map<string, string>;
}

export interface ArgSpec {
  booleans: ReadonlySet<string>;
  values: ReadonlySet<string>;
  /** value flags that may be given more than once (all values kept, in order) */
  repeatable?: ReadonlySet<string>;
  /** for the unknown-option message: `unknown option --x for <command> (see <help> --help)` */
  command: string;
  help?: string;
}

export interface ParsedArgs {
  /** the last value of each flag; `true` for booleans; `-h` is `--help` */
  flags: Map<string, string>;
  repeated: Map<string, string[]>;
  positionals: string[];
}

/** `[--flag value | --flag=value | --bool | positional]…`, shared by `stack` and `migrate`. */
export function parseArgList(argv: readonly string[], spec: ArgSpec): ParsedArgs {
  const flags = new Map<string, string>();
  const repeated = new Map<string, string[]>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    if (name === '-h' || spec.booleans.has(name)) flags.set(name === '-h' ? '--help' : name, 'true');
    else if (spec.values.has(name) || spec.repeatable?.has(name)) {
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new ConfigError(`${name} needs a value`);
      flags.set(name, value);
      repeated.set(name, [...(repeated.get(name) ?? []), value]);
    } else if (name.startsWith('-') && name !== '-') throw new ConfigError(`unknown option ${name} for ${spec.command} (see ${spec.help ?? spec.command} --help)`);
    else positionals.push(arg);
  }
  return { flags, repeated, positionals };
}

/** argv after `stack`: `<resource> <action> [id] [--flag value | --flag=value]…`. */
export function parseStackApiArgs(argv: readonly string[]): Invocation {
  const { flags, positionals } = parseArgList(argv, { booleans: BOOLEAN_FLAGS, values: VALUE_FLAGS, command: 'stack', help: `stack ${argv[0]}` });
  const [resource, action, id, ...extra] = positionals;
  if (extra.length > 0) throw new ConfigError(`unexpected argument "${extra[0]}"`);
  return { resource: resource as ResourceName, action: action as Action | undefined, id, flags };
}

const nonEmpty = (value: string | undefined): string | undefined => (value === undefined || value.trim() === '' ? undefined : value.trim());

const CLOUD_SETTINGS = [
  ['org', '--org', 'CLICKSTACK_ORG_ID'],
  ['service', '--service', 'CLICKSTACK_SERVICE_ID'],
  ['keyId', '--key-id', 'CLICKSTACK_KEY_ID'],
  ['keySecret', '--key-secret', 'CLICKSTACK_KEY_SECRET'],
] as const;

const DEFAULT_CLOUD_URL = 'https://api.clickhouse.cloud/v1';
const DEFAULT_OSS_URL = 'http://localhost:8000';

function baseUrl(raw: string, source: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${source}: expected an http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${source}: expected an http(s) URL, got "${raw}"`);
  if (url.search || url.hash || url.username) throw new ConfigError(`${source}: give the base URL without query, fragment or credentials`);
  return url.toString().replace(/\/+$/, '');
}

const API_KEY_SETTING = ['--api-key', 'HYPERDX_PERSONAL_API_KEY'] as const;

/** Whether any credential is given, by flag or environment (`migrate --dry-run` then asks the server to check its plan). */
export const credentialsGiven = (flags: ReadonlyMap<string, string>, env: NodeJS.ProcessEnv): boolean =>
  [...CLOUD_SETTINGS.map(([, flag, envName]) => [flag, envName] as const), API_KEY_SETTING].some(([flag, envName]) => nonEmpty(flags.get(flag)) !== undefined || nonEmpty(env[envName]) !== undefined);

/** Cloud when any Cloud setting is given, open source when an API key is; both is a mistake. */
export function resolveMode(flags: ReadonlyMap<string, string>, env: NodeJS.ProcessEnv): StackMode {
  const setting = (flag: string, envName: string): [value: string | undefined, source: string] => {
    const fromFlag = nonEmpty(flags.get(flag));
    return fromFlag !== undefined ? [fromFlag, flag] : [nonEmpty(env[envName]), envName];
  };
  const cloud = CLOUD_SETTINGS.map(([key, flag, envName]) => ({ key, flag, envName, value: setting(flag, envName)[0] }));
  const [apiKey] = setting(...API_KEY_SETTING);
  const cloudGiven = cloud.some((c) => c.value !== undefined);
  if (cloudGiven && apiKey !== undefined) {
    throw new ConfigError('both Managed ClickStack settings (--org/--service/--key-id/--key-secret or CLICKSTACK_*) and an open-source API key (--api-key or HYPERDX_PERSONAL_API_KEY) are set: give one');
  }
  if (cloudGiven) {
    const missing = cloud.filter((c) => c.value === undefined);
    if (missing.length > 0) throw new ConfigError(`Managed ClickStack also needs ${missing.map((c) => `${c.flag} (or ${c.envName})`).join(', ')}`);
    const [url, source] = setting('--base-url', 'CLICKSTACK_API_URL');
    const values = Object.fromEntries(cloud.map((c) => [c.key, c.value as string])) as Record<(typeof CLOUD_SETTINGS)[number][0], string>;
    return { kind: 'cloud', baseUrl: baseUrl(url ?? DEFAULT_CLOUD_URL, source), ...values };
  }
  if (apiKey === undefined) {
    throw new ConfigError('no credentials: give --org, --service, --key-id and --key-secret (Managed ClickStack) or --api-key (open source), or their environment variables (see --help)');
  }
  const [url, source] = setting('--base-url', 'HYPERDX_API_URL');
  return { kind: 'oss', baseUrl: baseUrl(url ?? DEFAULT_OSS_URL, source), apiKey };
}

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Standard input, for `--file -`. */
  stdin: () => string;
}

function parseJsonBody(text: string, source: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${source}: not JSON (${(err as Error).message})`);
  }
}

function readBodyText(flags: ReadonlyMap<string, string>, io: Io): [text: string, source: string] | undefined {
  const file = flags.get('--file');
  const inline = flags.get('--body');
  if (file !== undefined && inline !== undefined) throw new ConfigError('give --file or --body, not both');
  if (inline !== undefined) return [inline, '--body'];
  if (file === undefined) return undefined;
  if (file === '-') return [io.stdin(), 'standard input'];
  try {
    return [readFileSync(file, 'utf8'), file];
  } catch (err) {
    throw new ConfigError(`--file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

function alertFields(flags: ReadonlyMap<string, string>): Record<string, unknown> {
  const fields = Object.fromEntries(
    Object.entries(ALERT_FIELD_FLAGS)
      .filter(([flag]) => flags.has(flag))
      .map(([flag, toField]) => toField(flags.get(flag)!)),
  );
  return fields.tileId !== undefined && fields.source === undefined ? { ...fields, source: 'tile' } : fields;
}

/** The body of create/update: --file or --body, with alert field flags laid over it. */
export function requestBody(invocation: Invocation, io: Io): unknown {
  const read = readBodyText(invocation.flags, io);
  const base = read ? parseJsonBody(...read) : undefined;
  const fields = invocation.resource === 'alerts' ? alertFields(invocation.flags) : {};
  if (Object.keys(fields).length === 0) {
    if (base === undefined) throw new ConfigError(`needs a body: --file PATH or --body JSON${invocation.resource === 'alerts' ? ' or the alert field flags' : ''}`);
    return base;
  }
  if (base !== undefined && (base === null || typeof base !== 'object' || Array.isArray(base))) throw new ConfigError('the alert flags need a JSON object body to add to');
  return { ...(base as object | undefined), ...fields };
}

const parseCount = (flag: string, raw: string): number => {
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${flag}: expected a whole number, got "${raw}"`);
  return Number(raw);
};

const FLAGS_ONLY_FOR: [flags: string[], allowed: (inv: Invocation) => boolean, where: string][] = [
  [BODY_FLAGS, (inv) => inv.action === 'create' || inv.action === 'update', 'create and update'],
  [Object.keys(ALERT_FIELD_FLAGS), (inv) => inv.resource === 'alerts' && (inv.action === 'create' || inv.action === 'update'), 'alerts create and update'],
  [PAGE_FLAGS, (inv) => inv.action === 'list', 'list'],
];

function checkInvocation(inv: Invocation): void {
  const actions = Object.keys(OPERATION_IDS[inv.resource]) as Action[];
  if (inv.action === undefined || !actions.includes(inv.action)) {
    throw new ConfigError(`${inv.action === undefined ? 'an action is missing' : `unknown action "${inv.action}"`}: ${inv.resource} takes ${actions.join('|')}`);
  }
  const needsId = inv.action === 'get' || inv.action === 'update' || inv.action === 'delete';
  if (needsId && inv.id === undefined) throw new ConfigError('needs the id of the item');
  if (!needsId && inv.id !== undefined) throw new ConfigError(`takes no id (got "${inv.id}")`);
  for (const [flags, allowed, where] of FLAGS_ONLY_FOR) {
    const used = flags.find((f) => inv.flags.has(f));
    if (used !== undefined && !allowed(inv)) throw new ConfigError(`${used} applies to ${where} only`);
  }
}

const MASK = '********';

/** Every byte the command (and `migrate`) writes passes here: a credential never reaches a terminal or CI log. */
export const masking =
  (secrets: readonly (string | undefined)[]) =>
  (text: string): string =>
    secrets.filter((s): s is string => s !== undefined && s.length >= 4).reduce((acc, secret) => acc.split(secret).join(MASK), text);

/** Known before the deployment is: a usage error may come before resolveMode. */
export const givenSecrets = (flags: ReadonlyMap<string, string>, env: NodeJS.ProcessEnv): (string | undefined)[] => [flags.get('--key-secret'), flags.get('--api-key'), env.CLICKSTACK_KEY_SECRET, env.HYPERDX_PERSONAL_API_KEY];

const showJson = (value: unknown): string => `${JSON.stringify(value ?? null, null, 2)}\n`;

function pageOf(flags: ReadonlyMap<string, string>): Page | undefined {
  const [limit, offset] = PAGE_FLAGS.map((f) => (flags.has(f) ? parseCount(f, flags.get(f)!) : undefined));
  return limit === undefined && offset === undefined ? undefined : { limit, offset };
}

async function execute(inv: Invocation, client: StackApiClient, io: Io): Promise<void> {
  const show = (value: unknown, items: unknown[]): void => io.out(inv.flags.has('--table') ? formatTable(inv.resource, items) : showJson(value));
  const showOne = (item: unknown): void => show(item, item === undefined ? [] : [item]);
  // checkInvocation let only list through for sources
  const writable = inv.resource as Exclude<ResourceName, 'sources'>;
  switch (inv.action) {
    case 'list': {
      const page = pageOf(inv.flags);
      const result = await client.list(inv.resource, page);
      show(result.items, result.items);
      if (page && result.total !== undefined) io.err(`${result.items.length} of ${result.total} ${inv.resource}, from offset ${result.offset}\n`);
      return;
    }
    case 'get':
      return showOne(await client.get(writable, inv.id!));
    case 'create':
    case 'update': {
      const body = requestBody(inv, io) as RequestBody;
      return showOne(inv.action === 'create' ? await client.create(writable, body) : await client.update(writable, inv.id!, body));
    }
    case 'delete':
      await client.delete(writable, inv.id!);
      io.err(`deleted ${inv.resource} ${inv.id}\n`);
  }
}

export async function stackApiCommand(argv: readonly string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  let mask = masking(givenSecrets(new Map(), env));
  const say = (text: string): void => io.err(mask(text));
  const command = ['stack', ...argv.slice(0, 2).filter((a) => !a.startsWith('-'))].join(' ');
  try {
    const inv = parseStackApiArgs(argv);
    mask = masking(givenSecrets(inv.flags, env));
    if (inv.flags.has('--help')) {
      io.out(STACK_API_USAGE);
      return 0;
    }
    checkInvocation(inv);
    const mode = resolveMode(inv.flags, env);
    mask = masking([...givenSecrets(inv.flags, env), ...secretsOf(mode)]);
    const client = new StackApiClient({ mode, notice: (line) => say(`${command}: ${line}\n`), ...(inv.flags.has('--verbose') ? { trace: (line: string) => say(`${line}\n`) } : {}) });
    await execute(inv, client, { out: (t) => io.out(mask(t)), err: say, stdin: io.stdin });
    return 0;
  } catch (err) {
    const usage = err instanceof ConfigError || err instanceof InvalidRequest;
    say(`${command}: ${(err as Error).message}\n`);
    return usage ? 2 : 1;
  }
}
