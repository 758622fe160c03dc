/**
 * `dd-otlp-bridge-tools migrate dashboards|monitors FILE|DIR…`: Datadog exports → HyperDX dashboards,
 * saved searches and alerts, through the same management API client and credentials as
 * `stack …`. Dispatched before the sidecar's option parser (its flags are its own).
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, optionOf, resolveSetting } from '../../../src/config';
import { InvalidRequest, secretsOf, StackApiClient } from '../stack-api/client';
import { credentialsGiven, givenSecrets, type Io, masking, parseArgList, resolveMode } from '../stack-api/cli';
import type { Source } from '../stack-api/types';
import { type Api, applyDashboards, applyMonitors, checkDashboards, deleteDashboards, deleteMonitors, type ItemResult, MONITORS_DASHBOARD } from './apply';
import { translateDashboard } from './dashboards';
import { ExportError, looksLikeMonitor, readDashboard, readMonitor } from './datadog';
import { exportFiles } from './files';
import { readMetricTypes } from './metric-types';
import { translateMonitor } from './monitors';
import type { WebhookMap } from './notifications';
import type { DashboardPlan, MonitorPlan, PlanItem, Sources } from './plan';
import { migratePipelinesCommand } from './pipelines/cli';
import { itemText, reportJson, totalsText } from './report';
import type { TranslationSettings } from './series';

/** The sidecar's own option (one definition): queries must name attributes as that run writes them. */
const SEMCONV = optionOf('semconvOptIn');

const MIGRATE_USAGE = `Usage: dd-otlp-bridge-tools migrate dashboards FILE|DIR… [options]
       dd-otlp-bridge-tools migrate monitors   FILE|DIR… [options]

Translates Datadog dashboards (GET /api/v1/dashboard/{id} exports) into HyperDX dashboards, and
Datadog monitors (GET /api/v1/monitor/{id} exports, or integrations-core's assets/monitors files)
into HyperDX alerts: a metric monitor or service check becomes a tile on the dashboard
"${MONITORS_DASHBOARD.name}" and an alert on it; a log monitor becomes a saved search and an
alert on it. Metric names stay Datadog's; each tag filter and group-by reads the column the bridge
writes that tag to. What HyperDX cannot express is listed per item, and every dashboard keeps the
original queries in a last "Migrated from Datadog" tile. Template variables with a tag key become
dashboard filters on that tag's column. A DIR is read for *.json, recursively.

Runs are idempotent: each object carries a marker (a dd-migrate:… tag, or the start of an alert's
note), so running again updates what an earlier run created and never duplicates it.

Modes:
  (default)              check each dashboard with the server (dashboards/validate), then create or
                         update it through the management API
  --dry-run              print the plan and the request bodies; nothing is saved and no credentials are
                         needed; with credentials, each dashboard is checked by the server too
  --out DIR              write the request bodies under DIR (dashboards/, monitors/) for review
  --delete               delete what an earlier run created for these files

Translation:
  --metric-source ID     HyperDX source for metric tiles   } default: the instance's only source
  --log-source ID        HyperDX source for log searches    } of that kind (placeholder offline)
  --trace-source ID      HyperDX source for APM span queries: default the instance's only trace
                         source; without one, span queries are dropped and said
  --notify-map FILE      JSON {"@slack-ops": "<webhook id>", …}: Datadog handles → HyperDX webhooks
  --webhook NAME=ID      a monitor's @NAME (or @webhook-NAME) notifies HyperDX webhook ID (repeatable)
  --default-webhook ID   webhook for monitors none of whose handles map (without it they get no alert)
  --metric-types FILE|DIR
                         integrations-core metadata.csv files (or directories holding them; repeatable):
                         a count is read from the sum table, a gauge or a check's rate from the gauge
                         table, a distribution from the exponential-histogram table. Without a type, a
                         query with .as_count()/.as_rate() reads the sum table, any other the gauge table
  ${SEMCONV.flag} LIST
                         the bridge's own (env ${SEMCONV.env.join(', ')}, same values): APM
                         queries then name HTTP and database attributes as that bridge writes
                         them (http.response.status_code under "http"); log attributes keep
                         the default names whatever it says, as the bridge writes them

Connection: as \`stack\` (see \`dd-otlp-bridge-tools stack dashboards --help\`): --base-url, --api-key
(HYPERDX_PERSONAL_API_KEY) for open source; --org, --service, --key-id, --key-secret
(CLICKSTACK_*) for Managed ClickStack. --verbose prints one line per request.

Output: one line per item on stderr (created, updated, unchanged, skipped, failed), each
approximated widget (≈, how) and dropped one (✗, why), then a summary and the totals;
--report FILE writes the same per widget and per monitor as JSON. Items are keyed by Datadog id
(else file path), never by name; a re-run sends nothing for what did not change. Exit status: 0 done (partial items included), 1 the service refused or
failed for some item, 2 usage error or an input file that is not a Datadog export.
`;

const KINDS = ['dashboards', 'monitors'] as const;
type Kind = (typeof KINDS)[number];

const BOOLEAN_FLAGS = new Set(['--dry-run', '--delete', '--verbose', '--help']);
const CONNECTION_FLAGS = ['--base-url', '--org', '--service', '--key-id', '--key-secret', '--api-key'];
const VALUE_FLAGS = new Set([...CONNECTION_FLAGS, '--out', '--metric-source', '--log-source', '--trace-source', '--default-webhook', '--notify-map', '--report', SEMCONV.flag]);

interface Invocation {
  kind: Kind;
  paths: string[];
  flags: Map<string, string>;
  webhooks: Map<string, string>;
  /** `--metric-types FILE|DIR`, repeatable: integrations-core metadata.csv files */
  metricTypes: string[];
}

/**
 * `--notify-map FILE`: a JSON object from Datadog handles (`@slack-ops`, `@pagerduty-db`,
 * `@webhook-x`, `@someone@example.com`; the `@` optional) to HyperDX webhook ids.
 */
function readNotifyMap(file: string): Map<string, string> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`--notify-map ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new ConfigError(`--notify-map ${file}: expected a JSON object of "@handle": "webhook id"`);
  const map = new Map<string, string>();
  for (const [handle, id] of Object.entries(raw)) {
    if (typeof id !== 'string' || id === '') throw new ConfigError(`--notify-map ${file}: "${handle}": expected a webhook id, got ${JSON.stringify(id)}`);
    map.set(handle.replace(/^@/, ''), id);
  }
  return map;
}

/** `--webhook NAME=ID`, repeatable: a monitor's `@NAME` (or `@webhook-NAME`) → webhook ID. */
function webhookMap(pairs: readonly string[], notifyMap: string | undefined): Map<string, string> {
  const webhooks = notifyMap === undefined ? new Map<string, string>() : readNotifyMap(notifyMap);
  for (const pair of pairs) {
    const sep = pair.lastIndexOf('=');
    if (sep <= 0 || sep === pair.length - 1) throw new ConfigError(`--webhook: expected NAME=ID, got "${pair}"`);
    webhooks.set(pair.slice(0, sep).replace(/^@/, ''), pair.slice(sep + 1));
  }
  return webhooks;
}

export function parseMigrateArgs(argv: readonly string[]): Invocation | 'help' {
  const { flags, repeated, positionals } = parseArgList(argv, { booleans: BOOLEAN_FLAGS, values: VALUE_FLAGS, repeatable: new Set(['--webhook', '--metric-types']), command: 'migrate' });
  const webhooks = webhookMap(repeated.get('--webhook') ?? [], flags.get('--notify-map'));
  if (flags.has('--help')) return 'help';
  const [kind, ...paths] = positionals;
  if (!KINDS.includes(kind as Kind)) throw new ConfigError(`${kind === undefined ? 'say what to migrate' : `unknown "${kind}"`}: migrate dashboards|monitors FILE|DIR…`);
  if (paths.length === 0) throw new ConfigError(`migrate ${kind}: give at least one FILE or DIR`);
  const modes = ['--dry-run', '--out', '--delete'].filter((f) => flags.has(f));
  if (modes.length > 1) throw new ConfigError(`${modes.join(' and ')} do not go together`);
  return { kind: kind as Kind, paths, flags, webhooks, metricTypes: repeated.get('--metric-types') ?? [] };
}

interface Loaded {
  plans: PlanItem[];
  /** files that could not be read or translated, with the reason */
  rejected: { file: string; reason: string }[];
}

/** An export larger than this is refused unread: Datadog's own are well under a megabyte. */
export const MAX_EXPORT_BYTES = 20 * 1024 * 1024;

function readExport(file: string): unknown {
  const size = statSync(file).size;
  if (size > MAX_EXPORT_BYTES) throw new ExportError(`${size} bytes; an export is read up to ${MAX_EXPORT_BYTES} bytes`);
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ExportError(`not JSON (${(err as Error).message})`);
  }
}

/**
 * Every file is read and translated on its own: whatever one file holds (not JSON, another kind,
 * over the limits, or a translation that fails), it fails that file, named, and the others go on.
 */
function loadPlans(inv: Invocation, sources: Sources, settings: TranslationSettings, say: (t: string) => void): Loaded {
  const webhookMap: WebhookMap = { byHandle: inv.webhooks, fallback: inv.flags.get('--default-webhook') };
  const plans: PlanItem[] = [];
  const rejected: Loaded['rejected'] = [];
  for (const { file, identity } of exportFiles(inv.paths)) {
    try {
      const raw = readExport(file);
      const isMonitor = looksLikeMonitor(raw);
      if (isMonitor !== (inv.kind === 'monitors')) throw new ExportError(`this is a Datadog ${isMonitor ? 'monitor' : 'dashboard'}: use migrate ${isMonitor ? 'monitors' : 'dashboards'}`);
      plans.push(inv.kind === 'dashboards' ? translateDashboard(readDashboard(raw), file, sources, settings, identity) : translateMonitor(readMonitor(raw), file, sources, webhookMap, plans.length, settings, identity));
    } catch (err) {
      const reason = err instanceof ExportError ? err.message : `not translated (${(err as Error).message})`;
      rejected.push({ file, reason });
      say(`${file}: ${reason}\n`);
    }
  }
  return { plans, rejected };
}

/** The instance's only source of a kind, unless a flag names one; offline, a placeholder. */
function pickSource(all: readonly Source[] | undefined, kind: 'metric' | 'log', flag: string | undefined): string {
  if (flag !== undefined) return flag;
  if (all === undefined) return `<${kind} source id>`;
  const ofKind = all.filter((s) => s.kind === kind);
  if (ofKind.length === 1 && ofKind[0]!.id) return ofKind[0]!.id;
  const names = ofKind.map((s) => `${s.id} (${s.name})`).join(', ');
  throw new ConfigError(`${ofKind.length === 0 ? `the instance has no ${kind} source` : `the instance has ${ofKind.length} ${kind} sources: ${names}`}; give --${kind}-source ID`);
}

/** The trace source: optional, as only APM span queries read one (they are dropped without it). */
function pickTraceSource(all: readonly Source[] | undefined, flag: string | undefined): string | undefined {
  if (flag !== undefined) return flag;
  if (all === undefined) return '<trace source id>';
  const traces = all.filter((s) => s.kind === 'trace');
  return traces.length === 1 ? traces[0]!.id : undefined;
}

const describe = (item: PlanItem): string => `${item.kind} "${item.name}" (${item.file})`;

const showJson = (v: unknown): string => `${JSON.stringify(v, null, 2)}\n`;

function bodiesOf(item: PlanItem): unknown {
  if (item.kind === 'dashboard') return item.body;
  return { ...(item.target?.kind === 'tile' ? { tile: item.target.tile, dashboard: MONITORS_DASHBOARD.name } : item.target?.kind === 'search' ? { savedSearch: item.target.search } : {}), ...(item.alert ? { alert: item.alert } : {}) };
}

const slug = (name: string): string =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 60) || 'item';

function writeOut(dir: string, kind: Kind, plans: readonly PlanItem[]): void {
  const sub = join(dir, kind);
  mkdirSync(sub, { recursive: true });
  plans.forEach((p, i) => {
    writeFileSync(join(sub, `${String(i + 1).padStart(3, '0')}-${slug(p.name)}.json`), showJson(bodiesOf(p)));
  });
  writeFileSync(join(dir, `${kind}-report.txt`), plans.map((p) => itemText(p, p.outcome === 'skipped' ? 'skipped' : 'translated')).join('') + totalsText(kind, plans));
}

interface Counts {
  [action: string]: number;
}

function summary(kind: Kind, results: readonly { item: PlanItem; action: string }[], rejected: number): string {
  const counts: Counts = {};
  for (const r of results) counts[r.action] = (counts[r.action] ?? 0) + 1;
  const partial = results.filter((r) => r.item.outcome === 'partial' && r.action !== 'failed').length;
  const order = ['created', 'updated', 'unchanged', 'deleted', 'not found', 'would apply', 'written', 'skipped', 'failed'];
  const always = results.some((r) => r.action === 'would apply' || r.action === 'written') ? ['skipped', 'failed'] : ['created', 'updated', 'unchanged', 'skipped', 'failed'];
  const parts = order.filter((a) => counts[a] !== undefined || always.includes(a)).map((a) => `${counts[a] ?? 0} ${a}`);
  return `migrate ${kind}: ${results.length + rejected} items: ${parts.join(', ')}, ${partial} partial${rejected > 0 ? `, ${rejected} not read` : ''}\n`;
}

async function listSources(client: StackApiClient): Promise<Source[]> {
  return (await client.list('sources')).items;
}

async function run(inv: Invocation, env: NodeJS.ProcessEnv, io: Io, say: (t: string) => void, setSecrets: (s: string[]) => void): Promise<number> {
  const dryRun = inv.flags.has('--dry-run');
  const offline = inv.flags.has('--out') || (dryRun && !credentialsGiven(inv.flags, env));
  const settings: TranslationSettings = { semconv: resolveSetting('semconvOptIn', inv.flags, env), metricTypes: readMetricTypes(inv.metricTypes) };
  let client: StackApiClient | undefined;
  if (!offline) {
    const mode = resolveMode(inv.flags, env);
    setSecrets(secretsOf(mode));
    client = new StackApiClient({ mode, ...(inv.flags.has('--verbose') ? { trace: (line: string) => say(`${line}\n`) } : {}) });
  }
  const needSources = !offline && !inv.flags.has('--delete') && ['--metric-source', '--log-source', '--trace-source'].some((f) => !inv.flags.has(f));
  const all = client && needSources ? await listSources(client) : undefined;
  const trace = pickTraceSource(all, inv.flags.get('--trace-source'));
  const sources: Sources = { metric: pickSource(all, 'metric', inv.flags.get('--metric-source')), log: pickSource(all, 'log', inv.flags.get('--log-source')), ...(trace !== undefined ? { trace } : {}) };
  const { plans, rejected } = loadPlans(inv, sources, settings, say);
  const reportOne = (r: ItemResult): void => say(itemText(r.item, r.error ? `failed (${r.error})` : r.action));
  let results: { item: PlanItem; action: string }[];
  if (dryRun) {
    for (const p of plans) io.out(`# ${p.outcome === 'skipped' ? 'skip' : 'create or update'} ${describe(p)} [${p.marker}]\n${p.outcome === 'skipped' ? '' : showJson(bodiesOf(p))}`);
    if (client && inv.kind === 'dashboards') results = await checkDashboards(client, plans as DashboardPlan[], reportOne);
    else {
      results = plans.map((p) => ({ item: p, action: p.outcome === 'skipped' ? 'skipped' : 'would apply' }));
      for (const r of results) say(itemText(r.item, r.action));
    }
  } else if (inv.flags.has('--out')) {
    writeOut(inv.flags.get('--out')!, inv.kind, plans);
    results = plans.map((p) => ({ item: p, action: p.outcome === 'skipped' ? 'skipped' : 'written' }));
    for (const r of results) say(itemText(r.item, r.action));
  } else {
    const api: Api = client!;
    const deleting = inv.flags.has('--delete');
    results = inv.kind === 'dashboards' ? await (deleting ? deleteDashboards : applyDashboards)(api, plans as DashboardPlan[], reportOne) : await (deleting ? deleteMonitors : applyMonitors)(api, plans as MonitorPlan[], reportOne);
  }
  say(summary(inv.kind, results, rejected.length));
  if (!inv.flags.has('--delete'))
    say(
      totalsText(
        inv.kind,
        results.map((r) => r.item),
      ),
    );
  const reportFile = inv.flags.get('--report');
  if (reportFile !== undefined) writeFileSync(reportFile, showJson(reportJson(inv.kind, results, rejected)));
  if (rejected.length > 0) return 2;
  return results.some((r) => r.action === 'failed') ? 1 : 0;
}

export async function migrateCommand(argv: readonly string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  let mask = masking(givenSecrets(new Map(), env));
  const say = (text: string): void => io.err(mask(text));
  if (argv[0] === 'pipelines') return migratePipelinesCommand(argv.slice(1), io);
  try {
    const inv = parseMigrateArgs(argv);
    if (inv === 'help') {
      io.out(MIGRATE_USAGE);
      return 0;
    }
    const setSecrets = (secrets: string[]): void => {
      mask = masking([...givenSecrets(inv.flags, env), ...secrets]);
    };
    setSecrets([]);
    return await run(inv, env, { ...io, out: (t) => io.out(mask(t)) }, say, setSecrets);
  } catch (err) {
    say(`migrate: ${(err as Error).message}\n`);
    return err instanceof ConfigError || err instanceof InvalidRequest ? 2 : 1;
  }
}
