/**
 * A log record in translation. Steps take a draft and return a new one; each consumes the
 * reserved fields it understands, so whatever is left in `fields` at the end becomes attributes.
 */
import type { DatadogLogEntry } from '../../datadog/logs';
import { MESSAGE_KEYS } from '../../datadog/logs';
import type { JsonValue } from '../../parse/json';
import type { AnyValue } from '../../otlp/model';
import { flattenValue } from '../attributes';
import { without } from '../map-view';
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

const isMessageKey = (key: string): boolean => (MESSAGE_KEYS as readonly string[]).includes(key);

/** The message is kept whole even when it is an object (API clients), everything else is flattened. */
export function createDraft(entry: DatadogLogEntry, receivedAtNs: bigint): LogDraft {
  const fields = new Map<string, JsonValue>();
  for (const key in entry) if (!isMessageKey(key)) flattenValue(key, entry[key] as JsonValue, fields);
  for (const key in entry) if (isMessageKey(key)) fields.set(key, entry[key] as JsonValue);
  return {
    fields,
    receivedAtNs,
    timeUnixNano: 0n,
    severityNumber: 0,
    severityText: '',
    promoted: { resource: new Map(), attributes: new Map() },
  };
}

/** The value of the first of `keys` present in `fields`. */
export function firstPresent(fields: ReadonlyMap<string, JsonValue>, keys: readonly string[]): JsonValue | undefined {
  for (const k of keys) if (fields.has(k)) return fields.get(k);
  return undefined;
}

/** The first of `keys` present in `fields`, and `fields` without every one of `keys`. */
export const takeFirst = (fields: ReadonlyMap<string, JsonValue>, keys: readonly string[]): [JsonValue | undefined, ReadonlyMap<string, JsonValue>] => [
  firstPresent(fields, keys),
  without(fields, ...keys),
];
