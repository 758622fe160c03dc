/**
 * Datadog trace intake model. Every trace format we accept —
 * v0.3/v0.4 (JSON or msgpack), v0.5 (string table), v0.7 (TracerPayload), the trace-agent's
 * AgentPayload in both its classic and its idx (string-table) form — is parsed into these types,
 * so the translator has one input whatever the sender. Ids and ns timestamps are bigints: a
 * double cannot hold them exactly.
 */

/** TraceChunk.priority when the sender set none (v0.3–v0.5 payloads). */
export const PRIORITY_NONE = -128;

/** A typed attribute value: bigint is an int64, number a double. */
export type DdAttributeValue = string | boolean | bigint | number | Uint8Array | DdAttributeValue[] | Map<string, DdAttributeValue>;

export interface DdSpanLink {
  /** Low 64 bits of the linked trace id. */
  traceId: bigint;
  /** High 64 bits; 0 when the sender did not know them. */
  traceIdHigh: bigint;
  spanId: bigint;
  attributes: Map<string, string>;
  tracestate: string;
  /** W3C trace flags; Datadog sets bit 31 to say the flags were set at all. */
  flags: number;
}

export interface DdSpanEvent {
  timeUnixNano: bigint;
  name: string;
  attributes: Map<string, DdAttributeValue>;
}

export interface DdSpan {
  service: string;
  /** The operation name (`http.request`, `express.request`, `pg.query`). */
  name: string;
  /** What the operation acted on (`GET /users/:id`, a SQL query); defaults to the name. */
  resource: string;
  type: string;
  /** Low 64 bits; the high half travels in meta `_dd.p.tid`. */
  traceId: bigint;
  spanId: bigint;
  /** 0 for a root span. */
  parentId: bigint;
  /** ns since the epoch */
  start: bigint;
  /** ns */
  duration: bigint;
  /** 1 = error */
  error: number;
  meta: Map<string, string>;
  metrics: Map<string, number>;
  links: DdSpanLink[];
  events: DdSpanEvent[];
}

export interface DdTraceChunk {
  /** Sampling priority, PRIORITY_NONE when unset. */
  priority: number;
  origin: string;
  spans: DdSpan[];
  /** Chunk-level tags (`_dd.p.dm`, …), which hold for every span of the chunk. */
  tags: Map<string, string>;
  droppedTrace: boolean;
  /** High 64 bits of the trace id when the format carries the full id (idx chunks). */
  traceIdHigh?: bigint;
}

/** What one tracer (one process) sent; fields are empty strings when unknown. */
export interface DdTracerPayload {
  containerId: string;
  languageName: string;
  languageVersion: string;
  tracerVersion: string;
  runtimeId: string;
  env: string;
  hostname: string;
  appVersion: string;
  /** e.g. `_dd.tags.container`, `_dd.tags.process` (comma-separated tag lists). */
  tags: Map<string, string>;
  chunks: DdTraceChunk[];
}

/** AgentPayload-level fields: the trace-agent's own host, env and tags. */
export interface DdAgentInfo {
  hostName: string;
  env: string;
  agentVersion: string;
  tags: Map<string, string>;
}

export interface DdTracePayload {
  tracerPayloads: DdTracerPayload[];
  /** Present for /api/v0.2/traces only. */
  agent?: DdAgentInfo;
}

export const emptyTracerPayload = (): DdTracerPayload => ({
  containerId: '',
  languageName: '',
  languageVersion: '',
  tracerVersion: '',
  runtimeId: '',
  env: '',
  hostname: '',
  appVersion: '',
  tags: new Map(),
  chunks: [],
});

export const emptySpan = (): DdSpan => ({
  service: '',
  name: '',
  resource: '',
  type: '',
  traceId: 0n,
  spanId: 0n,
  parentId: 0n,
  start: 0n,
  duration: 0n,
  error: 0,
  meta: new Map(),
  metrics: new Map(),
  links: [],
  events: [],
});

export const emptySpanLink = (): DdSpanLink => ({ traceId: 0n, traceIdHigh: 0n, spanId: 0n, attributes: new Map(), tracestate: '', flags: 0 });

export const emptySpanEvent = (): DdSpanEvent => ({ timeUnixNano: 0n, name: '', attributes: new Map() });

export const chunkOf = (spans: DdSpan[]): DdTraceChunk => ({ priority: PRIORITY_NONE, origin: '', spans, tags: new Map(), droppedTrace: false });

// ---------------------------------------------------------------- APM stats

export interface DdGroupedStats {
  service: string;
  name: string;
  resource: string;
  type: string;
  dbType: string;
  spanKind: string;
  httpStatusCode: number;
  httpMethod: string;
  httpEndpoint: string;
  grpcStatusCode: string;
  synthetics: boolean;
  /** Counts are int64, as OTLP's int data points. */
  hits: bigint;
  errors: bigint;
  topLevelHits: bigint;
  /** Total duration of all hits, ns. */
  duration: bigint;
  /** Durations of the ok / error hits (DDSketch), ns. */
  okSummary: DdSketch;
  errorSummary: DdSketch;
}

/** A DDSketch as bins with an upper bound; bin i holds the values in (upper[i-1], upper[i]]. */
export interface DdSketch {
  bins: { upper: number; count: number }[];
  /** Values at (or too close to) zero, and negative ones: durations are never negative. */
  zeroCount: number;
}

export const emptySketch = (): DdSketch => ({ bins: [], zeroCount: 0 });

export interface DdStatsBucket {
  /** ns since the epoch */
  start: bigint;
  /** ns */
  duration: bigint;
  stats: DdGroupedStats[];
}

export interface DdClientStatsPayload {
  hostname: string;
  env: string;
  version: string;
  lang: string;
  tracerVersion: string;
  runtimeId: string;
  service: string;
  containerId: string;
  buckets: DdStatsBucket[];
}

export interface DdStatsPayload {
  agentHostname: string;
  agentEnv: string;
  agentVersion: string;
  clientComputed: boolean;
  stats: DdClientStatsPayload[];
}
