/**
 * `otel_origin`: logs that began in OpenTelemetry and reached us through Datadog's log serializer
 * (the collector's datadog exporter, the agent's OTLP ingest, tracers in OTel mode) carry the
 * original record's ids, time and severity in `otel.*` fields beside lossy Datadog ones: the
 * `dd.trace_id` they also write is the low 64 bits in decimal, `@timestamp` is cut to the second
 * or millisecond, `status` is derived from the severity. The `otel.*` values win and are consumed:
 * the full 128-bit TraceId, the time to the nanosecond, the severity as the SDK set it. The step
 * runs after the ones that read the derived fields, so what it finds replaces their result; an
 * `otel.*` value it cannot read stays an attribute. The serializer also flattens the OTel
 * resource into every item (`service.name`, `telemetry.sdk.*`, `deployment.environment`…): on
 * such a record, fields under the semantic conventions' resource namespaces go back to the
 * resource instead of being repeated as record attributes (`deployment.environment` as
 * `deployment.environment.name`, shared/environment.ts); one the resource already holds with
 * another value stays an attribute.
 */
import { anyValue, scalarText } from '../shared/attributes';
import { resourceKeyOf } from '../shared/environment';
import type { AnyValue } from '../../core/otlp/model';
import { parseOtelHexId, spanIdBytes, traceIdBytes } from '../shared/trace-id';
import type { JsonValue } from '../../core/wire/json';
import type { LogDraft, LogStep } from './draft';
import { consume } from './fields';
import { severityOf, type Severity } from './severity';

const TRACE_ID = 'otel.trace_id';
const SPAN_ID = 'otel.span_id';
const TIMESTAMP = 'otel.timestamp';
const SEVERITY_TEXT = 'otel.severity_text';
const SEVERITY_NUMBER = 'otel.severity_number';

const MAX_NS = (1n << 64n) - 1n;

/** The OpenTelemetry semantic conventions' resource namespaces. */
const RESOURCE_PREFIXES: readonly string[] = ['service.', 'telemetry.', 'host.', 'os.', 'process.', 'deployment.', 'k8s.', 'container.', 'cloud.', 'faas.', 'device.', 'aws.ecs.', 'aws.eks.', 'aws.log.', 'gcp.', 'heroku.'];

const isResourceKey = (key: string): boolean => RESOURCE_PREFIXES.some((prefix) => key.startsWith(prefix));

/** Whether `held` already says `value`: only strings compare, anything else counts as different. */
const sameText = (held: AnyValue, value: AnyValue): boolean => 'string' in held && 'string' in value && held.string === value.string;

/** Moves the fields under RESOURCE_PREFIXES onto a copy of the record's resource; their keys are added to `consumed`. */
function restoreResource(draft: LogDraft, consumed: string[]): void {
  const resource = new Map(draft.promoted.resource);
  draft.fields.forEach((value, key) => {
    if (!isResourceKey(key)) return;
    const kept = anyValue(value);
    const target = resourceKeyOf(key, kept, resource);
    const held = target === undefined ? undefined : resource.get(target);
    if (held !== undefined && !sameText(held, kept)) return;
    if (target !== undefined) resource.set(target, kept);
    consumed.push(key);
  });
  if (resource.size !== draft.promoted.resource.size) draft.promoted = { resource, attributes: draft.promoted.attributes };
}

/** `otel.timestamp`: decimal nanoseconds since the epoch (a string, so no digit is lost). */
function nanosOf(value: JsonValue | undefined): bigint | undefined {
  const text = scalarText(value);
  if (text === undefined || !/^\d{1,20}$/.test(text)) return undefined;
  const ns = BigInt(text);
  return ns > 0n && ns <= MAX_NS ? ns : undefined;
}

/** OTel SeverityNumber 1–24, as text or number. */
function severityNumberOf(value: JsonValue | undefined): number | undefined {
  const text = scalarText(value);
  if (text === undefined || !/^\d{1,2}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= 1 && n <= 24 ? n : undefined;
}

/** The OTel data model's short names of the six ranges of four numbers (1–4 trace … 21–24 fatal). */
const RANGE_NAMES = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;

/**
 * The SDK's severity: its number when it set one, its text lower-cased (ClickStack lower-cases it
 * anyway); a missing text is the number's range name, a missing number the text's level.
 */
function otelSeverity(number: number | undefined, text: string | undefined): Severity | undefined {
  const named = text === undefined || text === '' ? undefined : text.toLowerCase();
  if (number === undefined) return named === undefined ? undefined : { number: severityOf(named).number, text: named };
  return { number, text: named ?? (RANGE_NAMES[Math.floor((number - 1) / 4)] as string) };
}

export const otelOrigin: LogStep = (draft) => {
  const { fields } = draft;
  const traceText = fields.get(TRACE_ID);
  const spanText = fields.get(SPAN_ID);
  const time = fields.get(TIMESTAMP);
  const text = fields.get(SEVERITY_TEXT);
  const number = fields.get(SEVERITY_NUMBER);
  if (traceText === undefined && spanText === undefined && time === undefined && text === undefined && number === undefined) return draft;

  const consumed: string[] = [];
  const traceId = parseOtelHexId(scalarText(traceText), 32);
  if (traceId !== undefined) {
    draft.traceId = traceIdBytes(traceId);
    consumed.push(TRACE_ID);
  }
  const spanId = parseOtelHexId(scalarText(spanText), 16);
  if (spanId !== undefined) {
    draft.spanId = spanIdBytes(spanId);
    consumed.push(SPAN_ID);
  }
  const ns = nanosOf(time);
  if (ns !== undefined) {
    draft.timeUnixNano = ns;
    consumed.push(TIMESTAMP);
  }
  const severityNumber = severityNumberOf(number);
  const severityText = scalarText(text);
  const severity = otelSeverity(severityNumber, severityText);
  if (severity !== undefined) {
    draft.severityNumber = severity.number;
    draft.severityText = severity.text;
    if (severityNumber !== undefined) consumed.push(SEVERITY_NUMBER);
    if (severityText !== undefined) consumed.push(SEVERITY_TEXT);
  }
  if (consumed.length === 0) return draft;
  restoreResource(draft, consumed);
  draft.fields = consume(fields, consumed);
  return draft;
};
