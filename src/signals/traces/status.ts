/**
 * Status. `error: 1` → Error, with the error message as the status message (upstream sends no
 * message, docs/translation.md, Differences from the upstream receiver (traces)), and an
 * `exception` event carrying exception.type, .message and .stacktrace, which is where HyperDX shows
 * exceptions. When the tracer already recorded an exception event, it is kept, and given the stack
 * if its own is missing or empty (dd-trace-go writes `[]` there and the stack in `error.stack`).
 * The stack moves into the event (it is large and useless as a filter), and so does the message,
 * which the status message (the StatusMessage column, shown and filtered on by HyperDX) holds
 * already; the type also stays a span attribute (renamed exception.type), the one place spans can
 * be filtered by it.
 *
 * A span without an error stays Unset: Datadog's `error: 0` means "no error recorded", which is
 * what Unset means in OTel; Ok is reserved for an explicit verdict (upstream always sets Ok) — the
 * `otel.status_code: Ok` of a span that began in OpenTelemetry (the datadog exporter keeps its
 * status there, with `otel.status_description`).
 */
import type { KeyValue, SpanEvent } from '../../core/otlp/model';
import { StatusCode } from '../../core/otlp/model';
import { firstOf, type Remaining, type SpanStep } from './draft';

const MESSAGE_KEYS = ['error.message', 'error.msg'];
const TYPE_KEYS = ['error.type', 'error.kind'];
/** `error.handling_stack`: where dd-trace-go v2 and dd-java-agent put the stack an error was handled at */
const STACK_KEYS = ['error.stack', 'error.stacktrace', 'error.handling_stack'];
const OTEL_STATUS = 'otel.status_code';
const OTEL_DESCRIPTION = 'otel.status_description';
const EXCEPTION_STACK = 'exception.stacktrace';

/** A stack that says something: not empty, not dd-trace-go's `[]`. */
const usableStack = (stack: string | undefined): boolean => stack !== undefined && stack.trim() !== '' && stack.trim() !== '[]';

function stackOf(meta: Remaining<string>): string | undefined {
  for (const key of STACK_KEYS) {
    const stack = meta.get(key);
    if (usableStack(stack)) return stack;
  }
  return undefined;
}

const eventStack = (event: SpanEvent): string | undefined => {
  const kv = event.attributes.find((a) => a.key === EXCEPTION_STACK);
  return kv && 'string' in kv.value ? kv.value.string : undefined;
};

/** The tracer's own exception event, with `stack` where its stacktrace is missing or empty. */
function withStack(event: SpanEvent, stack: string | undefined): SpanEvent {
  if (stack === undefined || usableStack(eventStack(event))) return event;
  const attributes = event.attributes.filter((a) => a.key !== EXCEPTION_STACK);
  return { ...event, attributes: [...attributes, { key: EXCEPTION_STACK, value: { string: stack } }] };
}

function exceptionEvent(draft: Parameters<SpanStep>[0], message: string | undefined, stack: string | undefined): SpanEvent {
  const exception: [string, string | undefined][] = [
    ['exception.type', firstOf(draft.meta, ...TYPE_KEYS)],
    ['exception.message', message],
    [EXCEPTION_STACK, stack],
  ];
  const attributes: KeyValue[] = exception.filter((e): e is [string, string] => e[1] !== undefined).map(([key, value]) => ({ key, value: { string: value } }));
  return { timeUnixNano: draft.endTimeUnixNano, name: 'exception', attributes };
}

export const status: SpanStep = (draft) => {
  const { meta } = draft;
  const otelStatus = meta.get(OTEL_STATUS);
  const description = otelStatus === undefined ? undefined : meta.get(OTEL_DESCRIPTION);
  if (otelStatus !== undefined) {
    meta.consume(OTEL_STATUS);
    meta.consume(OTEL_DESCRIPTION);
  }
  if (draft.span.error === 0) {
    if (otelStatus === 'Ok') draft.status = { code: StatusCode.Ok };
    return draft;
  }
  const messageKey = MESSAGE_KEYS.find((k) => meta.get(k));
  const message = (messageKey && meta.get(messageKey)) || description || undefined;
  draft.status = { code: StatusCode.Error, ...(message ? { message } : {}) };
  if (messageKey) meta.consume(messageKey);
  const stack = stackOf(meta);
  for (const key of STACK_KEYS) if (meta.get(key) === stack || !usableStack(meta.get(key))) meta.consume(key);
  const recorded = draft.events.findIndex((e) => e.name === 'exception');
  if (recorded >= 0) draft.events[recorded] = withStack(draft.events[recorded] as SpanEvent, stack);
  else {
    const event = exceptionEvent(draft, message, stack);
    // an error the tracer said nothing about: an empty exception would only show an empty panel
    if (event.attributes.length > 0) draft.events = [...draft.events, event];
  }
  return draft;
};
