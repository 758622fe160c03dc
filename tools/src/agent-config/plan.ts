/**
 * What `datadog.yaml` must say for the agent to ship to the bridge, as a list of changes computed
 * from the file's current meaning (anchors and merge keys resolved). A setting that already has
 * the wanted value yields no change, which is what makes a second run a no-op.
 */
import { isDeepStrictEqual } from 'node:util';
import type { BridgeTarget } from './target';

export type Path = readonly string[];
export type Change = { op: 'set'; path: Path; value: string | boolean } | { op: 'append'; path: Path; item: unknown };

export interface AgentConfigOptions {
  target: BridgeTarget;
  /** Written to `api_key`; when absent the file's key is kept. */
  apiKey?: string | undefined;
  /** The bridge decodes v3 series (`/api/intake/metrics/v3/*`): leave the agent's own choice alone. */
  v3?: boolean | undefined;
  /** Keep shipping to Datadog too, through the agent's `additional_endpoints`. */
  dualShip?: boolean | undefined;
  /** Datadog key for dual shipping; defaults to the key the file had before the switch. */
  vendorApiKey?: string | undefined;
}

export class RewriteError extends Error {
  override name = 'RewriteError';
}

type Tree = Record<string, unknown>;

const valueAt = (tree: unknown, path: Path): unknown => path.reduce<unknown>((node, key) => (node !== null && typeof node === 'object' && !Array.isArray(node) ? (node as Tree)[key] : undefined), tree);

const isSatisfied = (tree: unknown, change: Change): boolean => {
  const current = valueAt(tree, change.path);
  if (change.op === 'set') return current === change.value;
  return Array.isArray(current) && current.some((entry) => isDeepStrictEqual(entry, change.item));
};

function bridgeSettings(tree: unknown, o: AgentConfigOptions): Change[] {
  const { url, hostPort, plainHttp } = o.target;
  const set = (path: Path, value: string | boolean): Change => ({ op: 'set', path, value });
  return [
    ...(o.apiKey === undefined ? [] : [set(['api_key'], o.apiKey)]),
    set(['dd_url'], url),
    // Agent 7.81 sends series to the v3 intake by default; only a bridge that decodes v3 can take it
    ...(o.v3 ? [] : [set(['use_v3_api', 'series', 'enabled'], false)]),
    set(['apm_config', 'enabled'], true),
    set(['apm_config', 'apm_dd_url'], url),
    set(['logs_enabled'], true),
    set(['logs_config', 'logs_dd_url'], hostPort),
    // a failed TCP probe must never move the logs agent off HTTP
    set(['logs_config', 'force_use_http'], true),
    // false is only written over an existing true: the absent default is already TLS
    ...(plainHttp || valueAt(tree, ['logs_config', 'logs_no_ssl']) !== undefined ? [set(['logs_config', 'logs_no_ssl'], plainHttp)] : []),
    // both talk to Datadog's backend, which is not there any more
    set(['remote_updates'], false),
    set(['remote_configuration', 'enabled'], false),
  ];
}

interface VendorEndpoints {
  metricsUrl: string;
  traceUrl: string;
  logsHost: string;
}

/** Datadog's public intakes for the file's `site`; dual shipping goes there, not to a former proxy. */
const vendorEndpoints = (tree: unknown): VendorEndpoints => {
  const site = valueAt(tree, ['site']);
  const domain = typeof site === 'string' && site.trim() !== '' ? site.trim() : 'datadoghq.com';
  return { metricsUrl: `https://app.${domain}`, traceUrl: `https://trace.agent.${domain}`, logsHost: `agent-http-intake.logs.${domain}` };
};

/**
 * Datadog's key: the one an earlier dual-shipping run left in `additional_endpoints` (so a second
 * run adds nothing), else the file's own `api_key` while that is not the bridge's yet.
 */
function vendorKey(tree: unknown, o: AgentConfigOptions, vendor: VendorEndpoints): string {
  const previous = valueAt(tree, ['additional_endpoints', vendor.metricsUrl]);
  const own = valueAt(tree, ['api_key']);
  const ownIsVendor = valueAt(tree, ['dd_url']) !== o.target.url && own !== o.apiKey;
  const key = [o.vendorApiKey, ...(Array.isArray(previous) ? previous : []), ownIsVendor ? own : undefined].find((k): k is string => typeof k === 'string' && k.trim() !== '');
  if (key === undefined) {
    throw new RewriteError('--dual-ship: no Datadog API key in the file (already switched, or the key comes from DD_API_KEY); pass --vendor-api-key');
  }
  return key;
}

/** The three `additional_endpoints` settings, in the shapes Datadog's dual-shipping guide documents. */
function dualShipSettings(tree: unknown, o: AgentConfigOptions): Change[] {
  const vendor = vendorEndpoints(tree);
  const key = vendorKey(tree, o, vendor);
  return [
    { op: 'append', path: ['additional_endpoints', vendor.metricsUrl], item: key },
    { op: 'append', path: ['apm_config', 'additional_endpoints', vendor.traceUrl], item: key },
    { op: 'append', path: ['logs_config', 'additional_endpoints'], item: { api_key: key, Host: vendor.logsHost, Port: 443, is_reliable: true } },
  ];
}

/** Every setting the switch wants for `tree` (the parsed file), whether or not it is there yet. */
export function wantedSettings(tree: unknown, options: AgentConfigOptions): Change[] {
  if (tree !== null && tree !== undefined && (typeof tree !== 'object' || Array.isArray(tree))) {
    throw new RewriteError('the file is not a YAML mapping at the top level');
  }
  return [...bridgeSettings(tree, options), ...(options.dualShip ? dualShipSettings(tree, options) : [])];
}

/** The changes `tree` still needs; empty when it is already migrated. */
export const planChanges = (tree: unknown, options: AgentConfigOptions): Change[] => wantedSettings(tree, options).filter((change) => !isSatisfied(tree, change));

/** `apm_config.additional_endpoints["https://trace.agent.datadoghq.com"]`: dots inside a key stay readable. */
export const describePath = (path: Path): string => path.map((key, i) => (/^[A-Za-z0-9_]+$/.test(key) ? `${i ? '.' : ''}${key}` : `[${JSON.stringify(key)}]`)).join('');
