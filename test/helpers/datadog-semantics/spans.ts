/**
 * APM spans for the span searches a set of Datadog widgets read (`data_source: "spans"`, the
 * `trace_stream` list), made as ./workload.ts makes logs (each search met, branch by branch, in
 * two groups of each facet it splits by, a measure where it measures, a miss and a near miss),
 * and sent as a tracer sends them: msgpack on `/v0.4/traces`, one trace of one top-level span
 * each.
 *
 * A span is held in a log's shape, as Datadog's span search sees it, so the log search's reading
 * and matching (./log-search.ts, ./evaluate.ts's logGrid) serve: `service`; `status` ok or error;
 * `operation_name`, `resource_name`, `type` and the span's other tags (what a search names
 * without `@`) as tags; `@` attributes, `@duration` the span's duration (ns).
 *
 * On the wire: operation_name, resource_name and type are the span's name, resource and type; a
 * tag or a string attribute is a meta entry under its name, a number attribute a metrics entry;
 * `@_top_level` is the tracers' `_dd.top_level` metric (Datadog's facet for it), sent only where
 * it is a number. Every other span is an integration's, as a tracer sends one whose service
 * differs from its process's: `_dd.base_service` names the process (PROCESS_SERVICE), which the
 * bridge files the span under, keeping the span's own service beside it; Datadog's `service` is
 * the span's own either way.
 */
import { encodeMsgpack, type Encodable } from '../../fixtures/traces/msgpack-writer';
import type { Window } from './evaluate';
import type { DatadogLog } from './log-search';
import { type LogNeed, logsFor } from './workload';

/** The tags that are a span's own fields rather than meta entries. */
const SPAN_FIELDS = ['operation_name', 'resource_name', 'type'] as const;

/** A generated group's value of `status` (ours: `status-a`, `status-b`): the second group is the error one, so a split by status has both. */
const ERROR_GROUP = 'status-b';

/** What every span has, whatever a search asks of it: an operation and a resource (Datadog's default resource is the operation; ours differs, to tell them apart). */
const SPAN_DEFAULTS = { operation_name: 'gen.operation', resource_name: 'gen-resource' } as const;

/** A record made as a log is, kept to what a span holds: its status ok or error, an operation and a resource. */
function asSpan(log: DatadogLog): DatadogLog {
  const defaults = Object.entries(SPAN_DEFAULTS).flatMap(([key, value]) => (tagValue(log, key) === undefined ? [`${key}:${value}`] : []));
  return { ...log, message: '', status: log.status === 'error' || log.status === ERROR_GROUP ? 'error' : 'ok', tags: [...log.tags, ...defaults] };
}

/** Spans for each span search (`needs`), after the logs' indexes so their times differ. */
export const spansFor = (needs: readonly LogNeed[], window: Window, offset: number): DatadogLog[] => needs.flatMap((need, i) => logsFor(need, offset + i, window).map(asSpan));

const tagValue = (span: DatadogLog, key: string): string | undefined => span.tags.find((t) => t.startsWith(`${key}:`))?.slice(key.length + 1);

/** The process an integration span's tracer runs in (`_dd.base_service`). */
const PROCESS_SERVICE = 'gen-process';

const MS_NS = 1_000_000n;
/** A span's duration when no search measures it: 1 ms. */
const DEFAULT_DURATION_NS = 1_000_000;

/** One span as a v0.4 tracer writes it (ids from `id`). */
function wireSpan(span: DatadogLog, id: number): Record<string, Encodable> {
  const meta: Record<string, string> = {};
  const metrics: Record<string, number> = {};
  for (const tag of span.tags) {
    const colon = tag.indexOf(':');
    const key = colon < 0 ? tag : tag.slice(0, colon);
    if (colon > 0 && !(SPAN_FIELDS as readonly string[]).includes(key)) meta[key] = tag.slice(colon + 1);
  }
  if (id % 2 === 0 && span.service !== PROCESS_SERVICE) meta['_dd.base_service'] = PROCESS_SERVICE;
  let duration = DEFAULT_DURATION_NS;
  for (const [name, value] of Object.entries(span.attributes)) {
    if (name === 'duration' && typeof value === 'number') duration = value;
    else if (name === '_top_level') {
      if (typeof value === 'number') metrics['_dd.top_level'] = value;
    } else if (typeof value === 'number') metrics[name] = value;
    else meta[name] = String(value);
  }
  return {
    trace_id: id,
    span_id: id,
    parent_id: 0,
    name: tagValue(span, 'operation_name') ?? SPAN_DEFAULTS.operation_name,
    resource: tagValue(span, 'resource_name') ?? SPAN_DEFAULTS.resource_name,
    service: span.service,
    // a span without a type: the field left out, as tracers do
    ...(tagValue(span, 'type') === undefined ? {} : { type: tagValue(span, 'type')! }),
    start: BigInt(span.ts) * MS_NS,
    duration,
    error: span.status === 'error' ? 1 : 0,
    meta,
    metrics,
  };
}

const SPANS_PER_PAYLOAD = 500;

/** Sends `spans` as a Node tracer does (PUT, msgpack, its headers), one trace per span. */
export async function sendSpans(intakeUrl: string, apiKey: string, spans: readonly DatadogLog[]): Promise<void> {
  for (let i = 0; i < spans.length; i += SPANS_PER_PAYLOAD) {
    const traces = spans.slice(i, i + SPANS_PER_PAYLOAD).map((s, j) => [wireSpan(s, i + j + 1)]);
    const res = await fetch(`${intakeUrl}/v0.4/traces`, {
      method: 'PUT',
      body: encodeMsgpack(traces),
      headers: { 'Content-Type': 'application/msgpack', 'DD-Api-Key': apiKey, 'Datadog-Meta-Lang': 'nodejs', 'Datadog-Meta-Tracer-Version': '5.132.0', 'X-Datadog-Trace-Count': String(traces.length) },
    });
    if (res.status !== 200 && res.status !== 202) throw new Error(`/v0.4/traces: ${res.status} ${await res.text()}`);
  }
}
