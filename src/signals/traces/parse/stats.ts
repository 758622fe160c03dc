/**
 * APM stats: `ClientStatsPayload` from tracers on /v0.6/stats and
 * `StatsPayload` (a list of them) from the trace-agent on /api/v0.2/stats, msgpack with the
 * PascalCase keys tinylib/msgp writes. Fields the translator has no use for are skipped.
 */
import { emptySketch, type DdClientStatsPayload, type DdGroupedStats, type DdStatsBucket, type DdStatsPayload } from '../datadog';
import { decodeSketch } from './ddsketch';
import { decodeMsgpack } from '../../../core/wire/msgpack';
import { parsing } from './body';
import { bool, bytes, each, i64, int, parseFields, setters, str, u64, type FieldSetters } from './fields';

const GROUP_FIELDS: FieldSetters<DdGroupedStats> = setters<DdGroupedStats>([
  ['Service', (g, v) => (g.service = str(v))],
  ['Name', (g, v) => (g.name = str(v))],
  ['Resource', (g, v) => (g.resource = str(v))],
  ['HTTPStatusCode', (g, v) => (g.httpStatusCode = int(v))],
  ['Type', (g, v) => (g.type = str(v))],
  ['DBType', (g, v) => (g.dbType = str(v))],
  ['Hits', (g, v) => (g.hits = i64(v))],
  ['Errors', (g, v) => (g.errors = i64(v))],
  ['Duration', (g, v) => (g.duration = u64(v))],
  ['OkSummary', (g, v) => (g.okSummary = decodeSketch(bytes(v)))],
  ['ErrorSummary', (g, v) => (g.errorSummary = decodeSketch(bytes(v)))],
  ['Synthetics', (g, v) => (g.synthetics = bool(v))],
  ['TopLevelHits', (g, v) => (g.topLevelHits = i64(v))],
  ['SpanKind', (g, v) => (g.spanKind = str(v))],
  ['GRPCStatusCode', (g, v) => (g.grpcStatusCode = str(v))],
  ['HTTPMethod', (g, v) => (g.httpMethod = str(v))],
  ['HTTPEndpoint', (g, v) => (g.httpEndpoint = str(v))],
]);

const newGroup = (): DdGroupedStats => ({
  service: '',
  name: '',
  resource: '',
  type: '',
  dbType: '',
  spanKind: '',
  httpStatusCode: 0,
  httpMethod: '',
  httpEndpoint: '',
  grpcStatusCode: '',
  synthetics: false,
  hits: 0n,
  errors: 0n,
  topLevelHits: 0n,
  duration: 0n,
  okSummary: emptySketch(),
  errorSummary: emptySketch(),
});

const BUCKET_FIELDS: FieldSetters<DdStatsBucket> = setters<DdStatsBucket>([
  ['Start', (b, v) => (b.start = u64(v))],
  ['Duration', (b, v) => (b.duration = u64(v))],
  ['Stats', (b, v) => (b.stats = each(v, (g) => parseFields(g, newGroup(), GROUP_FIELDS)))],
]);

const CLIENT_FIELDS: FieldSetters<DdClientStatsPayload> = setters<DdClientStatsPayload>([
  ['Hostname', (c, v) => (c.hostname = str(v))],
  ['Env', (c, v) => (c.env = str(v))],
  ['Version', (c, v) => (c.version = str(v))],
  ['Lang', (c, v) => (c.lang = str(v))],
  ['TracerVersion', (c, v) => (c.tracerVersion = str(v))],
  ['RuntimeID', (c, v) => (c.runtimeId = str(v))],
  ['Service', (c, v) => (c.service = str(v))],
  ['ContainerID', (c, v) => (c.containerId = str(v))],
  ['Stats', (c, v) => (c.buckets = each(v, (b) => parseFields(b, { start: 0n, duration: 0n, stats: [] }, BUCKET_FIELDS)))],
]);

const newClient = (): DdClientStatsPayload => ({ hostname: '', env: '', version: '', lang: '', tracerVersion: '', runtimeId: '', service: '', containerId: '', buckets: [] });

const PAYLOAD_FIELDS: FieldSetters<DdStatsPayload> = setters<DdStatsPayload>([
  ['AgentHostname', (p, v) => (p.agentHostname = str(v))],
  ['AgentEnv', (p, v) => (p.agentEnv = str(v))],
  ['AgentVersion', (p, v) => (p.agentVersion = str(v))],
  ['ClientComputed', (p, v) => (p.clientComputed = bool(v))],
  ['Stats', (p, v) => (p.stats = each(v, (c) => parseFields(c, newClient(), CLIENT_FIELDS)))],
]);

const newPayload = (): DdStatsPayload => ({ agentHostname: '', agentEnv: '', agentVersion: '', clientComputed: false, stats: [] });

/** /v0.6/stats: one tracer's payload, wrapped so both routes hand the translator the same shape. */
export const parseClientStats = (body: Buffer, what: string): DdStatsPayload => parsing(what, () => ({ ...newPayload(), clientComputed: true, stats: [parseFields(decodeMsgpack(body), newClient(), CLIENT_FIELDS)] }));

/** /api/v0.2/stats: the trace-agent's StatsPayload. */
export const parseAgentStats = (body: Buffer, what: string): DdStatsPayload => parsing(what, () => parseFields(decodeMsgpack(body), newPayload(), PAYLOAD_FIELDS));
