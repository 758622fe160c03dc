/**
 * Status. `error: 1` → Error, with the error message as the status message (upstream sends no
 * message, docs/translation.md, Differences from the upstream receiver (traces)), and an
 * `exception` event carrying exception.type, .message and .stacktrace, which is where HyperDX shows
 * exceptions — unless the tracer already recorded one. The stack moves into the event (it is large
 * and useless as a filter); the type and message also stay span attributes (renamed exception.*) so
 * spans can be filtered by them.
 *
 * A span without an error stays Unset: Datadog's `error: 0` means "no error recorded", which is
 * what Unset means in OTel; Ok is reserved for an explicit verdict (upstream always sets Ok).
 */
import type { KeyValue } from '../../core/otlp/model';
import { StatusCode } from '../../core/otlp/model';
import { firstOf, type SpanStep } from './draft';

const MESSAGE_KEYS = ['error.message', 'error.msg'];
const TYPE_KEYS = ['error.type', 'error.kind'];
const STACK_KEYS = ['error.stack', 'error.stacktrace'];

export const status: SpanStep = (draft) => {
  if (draft.span.error === 0) return draft;
  const message = firstOf(draft.meta, ...MESSAGE_KEYS);
  draft.status = { code: StatusCode.Error, ...(message ? { message } : {}) };
  if (draft.events.some((e) => e.name === 'exception')) return draft;
  const exception: [string, string | undefined][] = [
    ['exception.type', firstOf(draft.meta, ...TYPE_KEYS)],
    ['exception.message', message],
    ['exception.stacktrace', firstOf(draft.meta, ...STACK_KEYS)],
  ];
  const attributes: KeyValue[] = exception.filter((e): e is [string, string] => e[1] !== undefined).map(([key, value]) => ({ key, value: { string: value } }));
  for (const key of STACK_KEYS) draft.meta.consume(key);
  draft.events = [...draft.events, { timeUnixNano: draft.endTimeUnixNano, name: 'exception', attributes }];
  return draft;
};
