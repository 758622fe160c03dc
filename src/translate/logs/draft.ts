/**
 * A log record in translation. Steps take a draft and return a new one; each consumes the
 * reserved fields it understands, so whatever is left in `fields` at the end becomes attributes.
 */
import type { DatadogLogEntry } from '../../datadog/logs';
import { MESSAGE_KEYS } from '../../datadog/logs';
import type { JsonValue } from '../../parse/json';
import type { AnyValue } from '../../otlp/model';
import { flatten } from '../attributes';
import type { Promoted } from '../resource-promotion';
import type { TraceIdCache } from '../trace-id';

export interface LogDraft {
  /** Not yet consumed fields, flattened to dotted keys; a decoded JSON message is merged in. */
  fields: ReadonlyMap<string, JsonValue>;
  receivedAtNs: bigint;
  timeUnixNano: bigint;
  severityNumber: number;
  severityText: string;
  promoted: Promoted;
  traceId?: Uint8Array;
  spanId?: Uint8Array;
  body?: AnyValue;
}

export interface LogContext {
  traceIds: TraceIdCache;
  decodeJsonMessage: boolean;
  /** `?ddtags=` from the request, added to every entry's tags. */
  queryTags: string | undefined;
}

export type LogStep = (draft: LogDraft, ctx: LogContext) => LogDraft;

/** The message is kept whole even when it is an object (API clients), everything else is flattened. */
export function createDraft(entry: DatadogLogEntry, receivedAtNs: bigint): LogDraft {
  const messages: Record<string, JsonValue> = {};
  const rest: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(entry)) ((MESSAGE_KEYS as readonly string[]).includes(k) ? messages : rest)[k] = v;
  const fields = flatten(rest);
  for (const [k, v] of Object.entries(messages)) fields.set(k, v);
  return {
    fields,
    receivedAtNs,
    timeUnixNano: 0n,
    severityNumber: 0,
    severityText: '',
    promoted: { resource: new Map(), attributes: new Map() },
  };
}

/** The first of `keys` present in `fields`, and a copy of `fields` without every one of `keys`. */
export function takeFirst(fields: ReadonlyMap<string, JsonValue>, keys: readonly string[]): [JsonValue | undefined, Map<string, JsonValue>] {
  const rest = new Map(fields);
  let found: JsonValue | undefined;
  for (const k of keys) {
    if (found === undefined && fields.has(k)) found = fields.get(k);
    rest.delete(k);
  }
  return [found, rest];
}
