/**
 * Why each integrations-core case the engine does not match fails (docs/pipelines-conformance.md).
 * A difference under a GeoIP target is explained once for all; every other failing case needs an
 * entry here, and the conformance test fails when one has none, so a new failure is looked at.
 */

const GEOIP = 'GeoIP: Datadog’s test run answers every address with one made-up location (185.64.148.0, Paris, whatever the address); the sidecar has no GeoIP database and writes `{}` for a valid address, as Datadog does for one its database lacks.';

const DDSOURCE = 'A `ddsource` key inside the JSON line: the sidecar merges a JSON message into the agent’s envelope, where `ddsource` is the log’s source, so the pipeline sees it as the source and not as an attribute.';
const UNEXPLAINED = 'Not explained yet: the engine runs the same processors and the result differs as shown.';

const REASONS: Readonly<Record<string, string>> = {
  'azure_active_directory azure.activedirectory_tests.yaml #0': `${UNEXPLAINED} (an \`ocsf.src_endpoint\` the OCSF sub-pipeline writes is absent from Datadog’s result)`,
  'azure_active_directory azure.activedirectory_tests.yaml #3': `${UNEXPLAINED} (which OCSF sub-pipeline applies: Datadog’s result is the role-assignment class, the engine’s the base event)`,
  'azure_active_directory azure.activedirectory_tests.yaml #5': `${UNEXPLAINED} (an \`ocsf.src_endpoint\` the OCSF sub-pipeline writes is absent from Datadog’s result)`,
  'cisco_duo cisco-duo_tests.yaml #6': `${UNEXPLAINED} (\`actor.details\`, a JSON text whose members are all null, is gone from Datadog’s result)`,
  'delinea_privilege_manager delinea-privilege-manager_tests.yaml #2': `${UNEXPLAINED} (Datadog’s syslog header rule matches this RFC 5424 line, the engine’s translation of it does not)`,
  'fly_io fly_io_tests.yaml #0': DDSOURCE,
  'fly_io fly_io_tests.yaml #1': DDSOURCE,
  'oke oke_tests.yaml #0': DDSOURCE,
  'keda keda_tests.yaml #0': 'keyvalue with quoted keys (`"address"="…"`): Datadog reads them, the engine’s keys are unquoted words.',
  'linux_audit_logs linux-audit-logs_tests.yaml #2':
    'keyvalue over `res=1AUID="devuser"`: Datadog ends the value `1` where the key `AUID` starts with no delimiter between; the engine ends unquoted values only at a delimiter (which other cases need: `caller=cluster.go:649`).',
  'nginx_ingress_controller weave-kube_tests.yaml #1': 'Datadog’s own result reads the client address `127.0.0.1` as `7.0.0.1`; the engine reads it whole.',
  'nginx_ingress_controller weave-kube_tests.yaml #2': 'Datadog’s own result reads the client address `127.0.0.1` as `7.0.0.1`; the engine reads it whole.',
  'nginx_ingress_controller weave-npc_tests.yaml #0': `${UNEXPLAINED} (the JSON after the prefix, with its own \`status\` object)`,
  'openvpn openvpn_tests.yaml #1': `${UNEXPLAINED} (a Python dict text read by keyvalue with \`'\` quotes)`,
  'openvpn openvpn_tests.yaml #3': `${UNEXPLAINED} (a Python dict text read by keyvalue with \`'\` quotes)`,
  'pan_firewall pan.firewall_tests.yaml #0':
    'Leading zeros: Datadog keeps this `serial=012001018742` as text but `serial=023001016134` of case #2 as a number; the results show no rule that tells them apart (the engine makes both numbers). The `timestamp` text also stays in Datadog’s result.',
  'pan_firewall pan.firewall_tests.yaml #1': 'Leading zeros: Datadog keeps this `serial=001801010877` as text but `serial=023001016134` of case #2 as a number; the results show no rule that tells them apart (the engine makes both numbers).',
  'pan_firewall pan.firewall_tests.yaml #2': `${UNEXPLAINED} (\`url_category_list\`)`,
  'pan_firewall pan.firewall_tests.yaml #3': `${UNEXPLAINED} (the syslog header’s priority)`,
  'proofpoint_tap proofpoint-tap_tests.yaml #2': `${UNEXPLAINED} (a \`status\` attribute)`,
  'proofpoint_tap proofpoint-tap_tests.yaml #3': 'Datadog cuts one URL of the list to its first 106 characters; the engine keeps it whole.',
  'sonicwall_firewall sonicwall-firewall_tests.yaml #1': 'Leading zeros: Datadog keeps `sn=0019206645` as text here, but pan_firewall’s `serial=023001016134` as a number; the engine makes both numbers.',
  'sonicwall_firewall sonicwall-firewall_tests.yaml #9': 'keyvalue over `msg="Connection Closed"n=567999`: Datadog’s result has a key `Closed"n`; the engine reads the quoted value and `n`.',
  'trend_micro_vision_one_endpoint_security trend-micro-vision-one-endpoint-security_tests.yaml #7': `${UNEXPLAINED} (\`cs2=N/A\` is absent from Datadog’s result)`,
  'velero velero_tests.yaml #0': 'keyvalue over `namespace=resource=datadownloads`: Datadog keeps neither key, the engine keeps the inner pair.',
  'ping_federate ping-federate_tests.yaml #3': `${GEOIP} Besides: ${UNEXPLAINED} (\`attributes.name\` from a keyvalue list)`,
};

/** `path: …` lines under a GeoIP target (`network.client.geoip.city`, cisco umbrella's copy of one). */
const isGeoIp = (difference: string): boolean => /^[^:]*geoip/.test(difference) || /^cisco: \{"umbrella":\{"dns":\{"external":\{"geoip"/.test(difference);

/** Why the case `id` (`integration file #index`) differs as `differences` says; undefined when nobody has said. */
export function reasonOf(id: string, differences: readonly string[]): string | undefined {
  if (REASONS[id] !== undefined) return REASONS[id];
  return differences.length > 0 && differences.every(isGeoIp) ? GEOIP : undefined;
}
