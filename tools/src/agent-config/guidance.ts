/**
 * What the operator does after the file changed: restart the agent on their platform, check it
 * took the settings, and (for container agents, which read the environment rather than a file)
 * the same settings as DD_* variables.
 */
import type { Change } from './plan';

const RESTART = [
  ['Linux (systemd)', 'sudo systemctl restart datadog-agent'],
  ['macOS', 'launchctl stop com.datadoghq.agent && launchctl start com.datadoghq.agent   (or the Datadog Agent menu-bar app)'],
  ['Windows (admin)', 'Restart-Service -Force datadogagent'],
  ['', '"%ProgramFiles%\\Datadog\\Datadog Agent\\bin\\agent.exe" restart-service'],
  ['Docker', 'docker restart <agent-container>   (a mounted datadog.yaml; agents set up by DD_* variables: change them, re-create the container)'],
  ['Kubernetes', 'kubectl rollout restart daemonset/datadog-agent -n <namespace>'],
  ['Helm', 'DD_* variables under datadog.env in your values, then helm upgrade'],
] as const;

const CHECKS = [
  ['sudo datadog-agent status', 'Forwarder, APM and Logs Agent sections name the bridge and show no errors'],
  ['sudo datadog-agent diagnose', 'connectivity to the configured endpoints'],
  ["sudo datadog-agent config | grep -E 'dd_url|logs_dd_url|use_v3_api'", 'the settings in force: DD_* environment variables win over datadog.yaml'],
  ['curl -s http://<bridge>:9126/metrics | grep ddbridge_http_requests_total', 'requests arriving at the bridge, by route and status'],
] as const;

/** apm_config keys have their own short variable names; everything else follows DD_ + path. */
const ENV_NAMES: Record<string, string> = {
  'apm_config.enabled': 'DD_APM_ENABLED',
  'apm_config.apm_dd_url': 'DD_APM_DD_URL',
  'apm_config.additional_endpoints': 'DD_APM_ADDITIONAL_ENDPOINTS',
};

/** Datadog's rule: DD_ + the key upper-cased, nesting by `_`; maps keyed by user values become JSON. */
const envName = (path: readonly string[]): string => ENV_NAMES[path.join('.')] ?? `DD_${path.join('_').toUpperCase()}`;

const table = (rows: readonly (readonly [string, string])[], width: number): string[] => rows.map(([a, b]) => `  ${a.padEnd(width)} ${b}`);

const KEY_PLACEHOLDER = '<Datadog API key>';
const maskEndpoint = (item: unknown): unknown => (typeof item === 'string' ? KEY_PLACEHOLDER : { ...(item as object), api_key: KEY_PLACEHOLDER });

/** One setting as a variable; additional_endpoints variables carry the whole setting as JSON. */
function envLine(change: Change): string {
  if (change.op === 'set') {
    return `${envName(change.path)}=${change.path[0] === 'api_key' ? '<the key given with --api-key>' : String(change.value)}`;
  }
  const split = change.path.indexOf('additional_endpoints') + 1;
  const json = change.path.slice(split).reduceRight<unknown>((inner, key) => ({ [key]: inner }), [maskEndpoint(change.item)]);
  return `${envName(change.path.slice(0, split))}='${JSON.stringify(json)}'`;
}

/** `settings`: every setting the migration wants (not only what this run changed). */
export function afterWriteGuidance(settings: readonly Change[]): string {
  const env = settings.map((change) => `  ${envLine(change)}`);
  return [
    'Restart the agent so it reads the file:',
    ...table(RESTART, 16),
    'Then check:',
    ...CHECKS.flatMap(([command, what]) => [`  ${command}`, `      ${what}`]),
    ...(env.length ? ['Agents configured by environment (containers, Helm, /etc/environment) need the same settings there:', ...env] : []),
    '',
  ].join('\n');
}
