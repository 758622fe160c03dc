/**
 * The embedded ClickHouse's config.xml and users.xml (written by the launcher into the server's
 * run folder; server.py only loads them). What each user may do, and which browser origin may
 * query over HTTP, is decided here: docs/embedded-clickhouse.md states it for users.
 */

/**
 * The telemetry tables' database: a plain Atomic one that server.py creates. clickhouse-local's
 * own database (an overlay that resolves unknown table names as files, which needs the READ ON
 * FILE grant even to create a table) is given another name, LOCAL_DATABASE, that no user is granted.
 */
export const TELEMETRY_DATABASE = 'default';
export const LOCAL_DATABASE = '_local';

/** The users the HTTP and native ports accept, with their password's sha256 (hex). */
export interface UserHashes {
  reader: string;
  collector: string;
  control: string;
}

/** Read-only: what HyperDX and the printed curl read (the telemetry tables and the metadata HyperDX looks up). */
export const READER_GRANTS = [
  `GRANT SELECT ON ${TELEMETRY_DATABASE}.*`,
  // HyperDX's metadata queries (packages/common-utils/src/core/metadata.ts, packages/app/src/clickhouse.ts)
  'GRANT SELECT ON system.databases',
  'GRANT SELECT ON system.tables',
  'GRANT SELECT ON system.columns',
  'GRANT SELECT ON system.data_skipping_indices',
  'GRANT SELECT ON system.parts',
  'GRANT SELECT ON system.settings',
  'GRANT SELECT ON system.table_engines',
] as const;

/**
 * The collector's clickhouse exporter with `create_schema`: CREATE TABLE IF NOT EXISTS for each
 * table, DESC TABLE (allowed by any other grant on the table), then INSERTs; only tables named
 * otel_* in the telemetry database, only MergeTree. The traces' materialized view
 * (otel_traces_trace_id_ts_mv) reads otel_traces into otel_traces_trace_id_ts as its definer, so
 * creating it takes SELECT on those two, the only tables the collector reads.
 */
export const COLLECTOR_GRANTS = [`GRANT CREATE TABLE, CREATE VIEW, INSERT ON ${TELEMETRY_DATABASE}.otel_*`, `GRANT SELECT ON ${TELEMETRY_DATABASE}.otel_traces*`, 'GRANT TABLE ENGINE ON MergeTree'] as const;

/** The launcher's stop: KILL QUERY on the query that holds clickhouse-local open. */
export const CONTROL_GRANTS = ['GRANT KILL QUERY ON *.*', 'GRANT SELECT ON system.processes'] as const;

/**
 * Settings that name a file the server would read or write (Template format strings, Protobuf and
 * Cap'n Proto schemas, the input-errors log). clickhouse-local resolves them anywhere on disk, so
 * the network users may not change them.
 */
export const FILE_SETTINGS = ['format_template_resultset', 'format_template_row', 'format_schema', 'format_schema_source', 'output_format_schema', 'input_format_record_errors_file_path'] as const;

const escapeXml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const grantsXml = (grants: readonly string[]): string => `<grants>${grants.map((g) => `<query>${escapeXml(g)}</query>`).join('')}</grants>`;

const userXml = (name: string, sha256: string, profile: string, grants: readonly string[]): string =>
  `    <${name}><password_sha256_hex>${sha256}</password_sha256_hex><networks><ip>127.0.0.1</ip></networks><profile>${profile}</profile><quota>default</quota><default_database>${TELEMETRY_DATABASE}</default_database>${grantsXml(grants)}</${name}>`;

const fixedFileSettings = `<constraints>${FILE_SETTINGS.map((s) => `<${s}><const/></${s}>`).join('')}</constraints>`;

/** What server.py's query does as `default`: create the telemetry database, open the listeners. */
const LOCAL_SESSION_GRANTS = [`GRANT CREATE DATABASE ON ${TELEMETRY_DATABASE}.*`, 'GRANT SYSTEM LISTEN ON *.*'];

/**
 * clickhouse-local's own session logs in as `default` with an empty password (hard-coded in its
 * LocalConnection) before the listeners open, and lives as long as the server: limited to one
 * session, `default` is taken by it, and every login over HTTP or TCP is refused
 * (USER_SESSION_LIMIT_EXCEEDED).
 */
export function usersXml(hashes: UserHashes): string {
  return [
    '<clickhouse>',
    '  <profiles>',
    '    <default/>',
    '    <locked><max_sessions_for_user>1</max_sessions_for_user></locked>',
    `    <reader><readonly>2</readonly>${fixedFileSettings}</reader>`,
    `    <collector>${fixedFileSettings}</collector>`,
    `    <control>${fixedFileSettings}</control>`,
    '  </profiles>',
    '  <quotas><default/></quotas>',
    '  <users>',
    `    <default><password></password><networks><ip>127.0.0.1</ip></networks><profile>locked</profile><quota>default</quota>${grantsXml(LOCAL_SESSION_GRANTS)}</default>`,
    userXml('reader', hashes.reader, 'reader', READER_GRANTS),
    userXml('collector', hashes.collector, 'collector', COLLECTOR_GRANTS),
    userXml('control', hashes.control, 'control', CONTROL_GRANTS),
    '  </users>',
    '</clickhouse>',
    '',
  ].join('\n');
}

export interface ServerConfig {
  httpPort: number;
  tcpPort: number;
  /** Browser origins allowed to query over HTTP (CORS): the HyperDX UI the stack started, or none. */
  uiOrigins: readonly string[];
}

/** The origins of a UI served on 127.0.0.1:port, as a browser may name them. */
export const uiOriginsFor = (uiPort: number): string[] => [`http://127.0.0.1:${uiPort}`, `http://localhost:${uiPort}`];

const refusal = (filter: string, why: string): string => `    <rule>${filter}<handler><type>static</type><status>403</status><content_type>text/plain; charset=UTF-8</content_type><response_content>${escapeXml(why)}</response_content></handler></rule>`;

const CORS_REFUSED = 'refused: a browser may query this ClickHouse only from the HyperDX UI that dd-otlp-bridge-tools stack --ui started\n';

/**
 * An allowed origin: its preflight answered here (200: a static 204 comes with a chunked body, which
 * strict HTTP parsers refuse), its queries answered with its own Access-Control-Allow-Origin.
 */
function originRules(origin: string, host: string): string {
  const o = escapeXml(origin);
  const match = `<headers><Origin>${o}</Origin>${host}</headers>`;
  return [
    `    <rule><methods>OPTIONS</methods>${match}<handler><type>static</type><status>200</status><response_content></response_content><http_response_headers>`,
    `<Access-Control-Allow-Origin>${o}</Access-Control-Allow-Origin><Access-Control-Allow-Methods>POST, GET, OPTIONS</Access-Control-Allow-Methods>`,
    '<Access-Control-Allow-Headers>origin, x-requested-with, content-type, x-clickhouse-format, x-clickhouse-user, x-clickhouse-key, authorization</Access-Control-Allow-Headers>',
    '<Access-Control-Max-Age>86400</Access-Control-Max-Age><Vary>Origin</Vary></http_response_headers></handler></rule>\n',
    `    <rule>${match}<handler><type>dynamic_query_handler</type><query_param_name>query</query_param_name><http_response_headers><Access-Control-Allow-Origin>${o}</Access-Control-Allow-Origin><Vary>Origin</Vary></http_response_headers></handler></rule>`,
  ].join('');
}

/**
 * Loopback listeners and the HTTP rules, first match wins: an allowed origin gets CORS; any other
 * Origin, and a browser's cross-site request without one (an image, a script, a navigation:
 * Sec-Fetch-Site), get 403 before any login; a Host other than this server's loopback address
 * (DNS rebinding) gets 403. `http_options_response` replaces ClickHouse's default CORS answer
 * (`Access-Control-Allow-Origin: *`, also sent with `add_http_cors_header=1`).
 */
export function configXml(config: ServerConfig): string {
  const host = `<Host>regex:^(127\\.0\\.0\\.1|localhost):${config.httpPort}$</Host>`;
  return [
    '<clickhouse>',
    '  <listen_host>127.0.0.1</listen_host>',
    `  <http_port>${config.httpPort}</http_port>`,
    `  <tcp_port>${config.tcpPort}</tcp_port>`,
    '  <users_config>users.xml</users_config>',
    `  <default_database>${LOCAL_DATABASE}</default_database>`,
    '  <http_options_response><header><name>Vary</name><value>Origin</value></header></http_options_response>',
    '  <http_handlers>',
    ...config.uiOrigins.map((origin) => originRules(origin, host)),
    refusal('<headers><Origin>regex:^.+$</Origin></headers>', CORS_REFUSED),
    refusal('<headers><Sec-Fetch-Site>regex:^(cross-site|same-site)$</Sec-Fetch-Site></headers>', CORS_REFUSED),
    `    <rule><url>/ping</url><headers>${host}</headers><handler><type>static</type><status>200</status><response_content>Ok.\n</response_content></handler></rule>`,
    `    <rule><headers>${host}</headers><handler><type>dynamic_query_handler</type><query_param_name>query</query_param_name></handler></rule>`,
    refusal('', `refused: ask for http://127.0.0.1:${config.httpPort}/ (this Host header is not this server's)\n`),
    '  </http_handlers>',
    '</clickhouse>',
    '',
  ].join('\n');
}
