/**
 * A chain record's fields as a pipeline log and back. Datadog's pipelines see the message, the
 * status, service, host, source and tags apart from the attributes; so does the engine. Going
 * back, what the pipelines decided is written where the chain's later steps read it: the status
 * remapper's status as `status` (the severity step maps it), the service as `service` (resource
 * promotion), the trace id as `dd.trace_id` (trace correlation); the message and the date
 * remapper's time are returned for the draft itself.
 */
import type { JsonValue } from '../../../core/wire/json';
import { HOST_KEYS, SOURCE_KEYS, TAGS_KEYS, TRACE_ID_KEYS, SPAN_ID_KEYS } from '../datadog';
import { FieldsBuilder, type FieldMap } from '../fields';
import { PipelineLog, splitTags } from './log';

const STATUS_KEY = 'status';
const SERVICE_KEY = 'service';

/** The fields a pipeline log keeps apart, and the text of each (for writing them back unchanged). */
export interface Apart {
  messageKey: string | undefined;
  /** The message field as it came (an API client's may be an object). */
  message: JsonValue | undefined;
  tagsText: string | undefined;
}

const text = (v: JsonValue | undefined): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined);

const ENVELOPE: ReadonlySet<string> = new Set([SOURCE_KEYS[0], TAGS_KEYS[0]]);
const RESERVED: ReadonlySet<string> = new Set([STATUS_KEY, SERVICE_KEY, ...HOST_KEYS.slice(0, 2), SOURCE_KEYS[0], TAGS_KEYS[0]]);

/** `messageKey`: the field holding the record's message (draft.ts's messageKeyOf). */
export function pipelineLogOf(fields: FieldMap, messageKey: string | undefined): [PipelineLog, Apart] {
  const log = new PipelineLog();
  const apart: Apart = { messageKey, message: messageKey === undefined ? undefined : fields.get(messageKey), tagsText: text(fields.get(TAGS_KEYS[0])) };
  fields.forEach((value, key) => {
    if (key === messageKey) {
      log.message = typeof value === 'string' ? value : JSON.stringify(value);
      return;
    }
    // Datadog keeps reserved attributes of a JSON line (`status`, `service`, …) as attributes too;
    // the agent's envelope (source, tags) is not
    if (!ENVELOPE.has(key)) log.set(key, value);
    if (!RESERVED.has(key)) return;
    if (key === STATUS_KEY) log.status = text(value);
    else if (key === SERVICE_KEY) log.service = text(value);
    else if (key === SOURCE_KEYS[0]) log.source = text(value);
    else if (key === TAGS_KEYS[0]) log.tagsText = text(value) ?? '';
    else log.host ??= text(value);
  });
  return [log, apart];
}

/**
 * The record's message after the pipelines: the message field as it came unless a remapper
 * replaced it. It leaves the fields (the draft's body), so that a `message` attribute a grok
 * rule extracted stays an attribute beside it, as Datadog keeps both.
 */
export function bodyOf(log: PipelineLog, apart: Apart): JsonValue {
  const original = apart.message;
  const text = typeof original === 'string' ? original : original === undefined || original === null ? '' : JSON.stringify(original);
  return log.message === text && original !== undefined ? original : log.message;
}

/** The tags' text after the pipelines: the record's own text unless a processor changed the tags. */
function tagsOf(log: PipelineLog, apart: Apart): string | undefined {
  if (!log.tagsRead) return apart.tagsText;
  const text = log.tags.join(',');
  if (text === splitTags(apart.tagsText).join(',')) return apart.tagsText ?? (text === '' ? undefined : text);
  return text;
}

/** The fields after the pipelines ran (the message apart: bodyOf): reserved ones (as decided), then the attributes. */
export function fieldsOf(log: PipelineLog, apart: Apart): FieldMap {
  const out = new FieldsBuilder();
  log.attributes.forEach((value, key) => {
    out.set(key, value);
  });
  if (log.statusRemapped && log.status !== undefined) out.set(STATUS_KEY, log.status);
  if (log.serviceRemapped && log.service !== undefined) out.set(SERVICE_KEY, log.service);
  if (log.source !== undefined) out.set(SOURCE_KEYS[0], log.source);
  const tags = tagsOf(log, apart);
  if (tags !== undefined) out.set(TAGS_KEYS[0], tags);
  if (log.traceId !== undefined) out.set(TRACE_ID_KEYS[0], log.traceId);
  if (log.spanId !== undefined) out.set(SPAN_ID_KEYS[0], log.spanId);
  return out.build();
}
