/**
 * A log record in translation. Each step writes into the draft (step.ts) and consumes the
 * reserved fields it understands, so whatever is left in `fields` at the end becomes attributes.
 */
import type { DatadogLogEntry } from './datadog';
import { MESSAGE_KEYS } from './datadog';
import type { JsonValue } from '../../core/wire/json';
import type { Promoted } from '../shared/resource-promotion';
import type { TraceIdCache } from '../shared/trace-id';
import { FieldsBuilder } from './fields';
import type { PromotionMemo } from './promotion-memo';
import type { Step } from '../shared/step';
import type { PipelineSet } from './pipelines/pipeline-set';
import type { PipelineStats } from './pipelines/run';

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
  /**
   * The message, once a step has taken it out of `fields` (the log pipelines: a `message` they
   * extract is then an attribute like any other); undefined while the message is a field.
   */
  body?: JsonValue;
}

export interface LogContext {
  traceIds: TraceIdCache;
  decodeJsonMessage: boolean;
  /** Whether plain-text lines are read for injected trace ids and their level (text-correlation.ts). */
  textCorrelation: boolean;
  /** `?ddtags=` from the request, added to every entry's tags. */
  queryTags: string | undefined;
  /**
   * Resource promotions already worked out, keyed by the texts they were made from (see the
   * resource step); absent when a step runs on its own.
   */
  promotions?: PromotionMemo;
  /** Datadog log pipelines to run (log-pipelines.ts); absent or empty: none. */
  pipelines?: PipelineSet;
  /** Milliseconds one record may spend in the pipelines before it goes on unparsed. */
  pipelineBudgetMs?: number;
  /** Where the pipelines count what they did, per request. */
  pipelineStats?: PipelineStats;
}

export type LogStep = Step<LogDraft, LogContext>;

/**
 * What a draft starts with: nothing promoted yet. One shared instance, never written to (the
 * resource step builds new maps), so a record does not pay for two empty maps it will not use.
 */
export const NOTHING_PROMOTED: Promoted = { resource: new Map(), attributes: new Map() };

/** One of MESSAGE_KEYS (compared directly: this runs for every field of every record). */
export const isMessageKey = (key: string): boolean => key === MESSAGE_KEYS[0] || key === MESSAGE_KEYS[1] || key === MESSAGE_KEYS[2] || key === MESSAGE_KEYS[3];

/** A message or status alias with nothing in it (`""`, null) says nothing. */
export const isEmptyValue = (value: JsonValue): boolean => value === null || value === '';

/**
 * The key of the record's message: the first alias with something in it (`"message":""` beside
 * `"msg":"…"` must not empty the body), else the first present. The other aliases stay attributes.
 */
export function messageKeyOf(fields: ReadonlyMap<string, JsonValue>): string | undefined {
  let present: string | undefined;
  for (let i = 0; i < MESSAGE_KEYS.length; i++) {
    const key = MESSAGE_KEYS[i] as string;
    const value = fields.get(key);
    if (value === undefined) continue;
    if (!isEmptyValue(value)) return key;
    present ??= key;
  }
  return present;
}

/** The message is kept whole even when it is an object (API clients), everything else is flattened. */
export function createDraft(entry: DatadogLogEntry, receivedAtNs: bigint): LogDraft {
  const builder = new FieldsBuilder();
  let messages = false;
  for (const key in entry) {
    if (isMessageKey(key)) messages = true;
    else builder.flatten(key, entry[key] as JsonValue);
  }
  if (messages) for (const key in entry) if (isMessageKey(key)) builder.set(key, entry[key] as JsonValue);
  return {
    fields: builder.build(),
    receivedAtNs,
    timeUnixNano: 0n,
    severityNumber: 0,
    severityText: '',
    promoted: NOTHING_PROMOTED,
    traceId: undefined,
    spanId: undefined,
    body: undefined,
  };
}
