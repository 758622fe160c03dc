/**
 * Every way our output differs from the upstream receiver's on the conformance payloads, each
 * declared with its reason and the docs/translation.md section that documents it. A difference not
 * listed here fails test/e2e/conformance.test.ts: it is either a bug to fix or a decision to write
 * down.
 */
import type { Difference, Signal } from './conformance-types';

export interface Deliberate {
  signal: Signal;
  /** the field, or a pattern over fields */
  field: string | RegExp;
  kinds: readonly Difference['kind'][];
  reason: string;
}

const LOGS = 'docs/translation.md, Differences from the upstream receiver (logs)';
const TRACES = 'docs/translation.md, Traces';
const METRICS = 'docs/translation.md, Differences from the upstream receiver (metrics)';

export const DELIBERATE: readonly Deliberate[] = [
  // ---------------------------------------------------------------- logs: a JSON message (pino under dd-trace-js)
  { signal: 'logs', field: 'body', kinds: ['differs'], reason: `the body is the JSON message's \`msg\`; upstream reads only \`message\` and keeps the whole line (${LOGS}: field and message aliases)` },
  { signal: 'logs', field: 'attributes.msg', kinds: ['only upstream'], reason: `consumed as the body (${LOGS}: field and message aliases)` },
  { signal: 'logs', field: 'attributes.time', kinds: ['only upstream'], reason: `pino's \`time\` is the record's timestamp, not an attribute (${LOGS}: \`time\` field)` },
  { signal: 'logs', field: /^(attributes\.dd|traceId|spanId)$/, kinds: ['only upstream', 'only ours'], reason: `dd-trace-js injects a nested \`dd\` object; its ids fill TraceId/SpanId and service/env/version the resource (${LOGS}: nested \`dd\` object)` },
  { signal: 'logs', field: /^attributes\.req(\..+)?$/, kinds: ['only upstream', 'only ours'], reason: `object-valued fields are flattened to dotted keys, as Datadog treats them (${LOGS}: object-valued fields)` },
  { signal: 'logs', field: /^severity(Number|Text)$/, kinds: ['only ours', 'differs'], reason: `pino's numeric \`level\` 30 is info (9, \`info\`); upstream keeps the text "30" with no number (${LOGS}: more status names and numbers)` },
  // ---------------------------------------------------------------- traces
  { signal: 'traces', field: 'name', kinds: ['differs'], reason: `span named after its route (\`GET /products/{id}\`) or resource (\`GET /products\`), queries after their summary (\`SELECT orders\`); upstream uses the operation name (${TRACES}: span name)` },
  {
    signal: 'traces',
    field:
      /^attributes\.(url\.full|http\.url|http\.request\.method|http\.method|http\.response\.status_code|http\.status_code|client\.address|http\.client_ip|net\.peer\.ip|user_agent\.original|http\.user_agent|network\.protocol\.version|http\.flavor|server\.address|http\.server_name|http\.(request|response)\.body\.size|http\.(request|response)_content_length|db\.(system|system\.name|operation|operation\.name|name|namespace|sql\.table|collection\.name|statement|query\.text))$/,
    kinds: ['only ours', 'only upstream', 'differs'],
    reason: `HTTP and database keys under OTEL_SEMCONV_STABILITY_OPT_IN, by default the names HyperDX reads (\`http.url\`, \`db.statement\`), status codes as ints, a query in the resource also as \`db.statement\`; upstream writes the stable names only (${TRACES}: semantic-convention names)`,
  },
  {
    signal: 'traces',
    field: /^attributes\.(service\.name|datadog\.service)$/,
    kinds: ['only ours', 'only upstream'],
    reason: `an integration span's own service is \`datadog.service\`, the name the APM-stats metrics carry too; upstream calls it \`service.name\` (${TRACES}: resource, service identity)`,
  },
  { signal: 'traces', field: 'attributes.SampleRate', kinds: ['only ours'], reason: `the weight HyperDX and ClickStack's schema read, from the sampling rates (${TRACES}: SampleRate)` },
  { signal: 'traces', field: /^attributes\.datadog\.span\.(name|type)$/, kinds: ['only ours'], reason: `the operation name and span type stay searchable next to the resource-based name (${TRACES}: span name)` },
  { signal: 'traces', field: /^attributes\.datadog\.(trace|span)\.id$/, kinds: ['only upstream'], reason: `TraceId/SpanId carry the same ids (${TRACES}: differences)` },
  {
    signal: 'traces',
    field: /^(resource|attributes)\.(deployment\.environment\.name|service\.version|service\.instance\.id|process\.pid|runtime-id|language|_dd\.base_service)$/,
    kinds: ['only ours', 'only upstream'],
    reason: `env, version, runtime-id, process_id and language describe the process: resource attributes, which ClickStack's filters read; \`_dd.base_service\` chooses the resource's service.name (${TRACES}: resource)`,
  },
  {
    signal: 'traces',
    field: /^resource\.telemetry\.sdk\.(name|version)$/,
    kinds: ['differs'],
    reason: `semantic conventions: \`telemetry.sdk.name\` is \`datadog\` and the version the tracer's own (\`5.132.0\`); upstream writes \`Datadog\` and \`Datadog-5.132.0\` (${TRACES}: resource)`,
  },
  { signal: 'traces', field: 'attributes._dd.p.tid', kinds: ['only upstream'], reason: `the high 64 bits are in the 128-bit TraceId, consumed (${TRACES}: span translation, ids)` },
  {
    signal: 'traces',
    field: /^attributes\._dd\.(p\.dm|top_level|measured|agent_psr|rule_psr|limit_psr)$/,
    kinds: ['only upstream'],
    reason: `the tracers' sampling bookkeeping, read by no HyperDX view, alert or migration, is written only under --keep-internal-tags (${TRACES}: what is not written)`,
  },
  { signal: 'traces', field: 'attributes.span.kind', kinds: ['only upstream'], reason: `consumed: SpanKind says it (${TRACES}: span translation, kind)` },
  {
    signal: 'traces',
    field: /^attributes\.(sampling\.priority|_sampling_priority_v1)$/,
    kinds: ['differs', 'only upstream'],
    reason: `\`sampling.priority\` is an int on every span of the chunk; upstream writes the string "1.000000" and keeps the raw metric (${TRACES}: span translation, sampling)`,
  },
  { signal: 'traces', field: 'status.code', kinds: ['only upstream'], reason: `a span without error stays Unset; upstream sets Ok (${TRACES}: differences)` },
  { signal: 'traces', field: 'events', kinds: ['only ours'], reason: `an error span gets an \`exception\` event, where HyperDX shows exceptions (${TRACES}: span translation, status)` },
  // ---------------------------------------------------------------- metrics
  { signal: 'metrics', field: 'resource.source', kinds: ['only upstream'], reason: `resource \`source\` only when a source_type_name is sent; upstream adds it empty (${METRICS})` },
  {
    signal: 'metrics',
    field: 'startTimeUnixNano',
    kinds: ['only ours', 'only upstream', 'differs'],
    reason: `a count or rate with an interval covers [time − interval, time], anything else starts where its stream's previous point ended; upstream starts every stream's first point at 0 (the epoch) and later ones at the previous point, gauges included, which have no window (${METRICS}; Type mapping and Start times)`,
  },
];
