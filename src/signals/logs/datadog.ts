/**
 * Datadog log intake model. The agent sends exactly seven keys per
 * entry; API clients and logger transports send free-form objects. Both are kept as a field bag:
 * the translator steps decide what each reserved key means, so envelope fields and fields decoded
 * out of a JSON message go through the same rules.
 */
import type { JsonValue } from '../../core/wire/json';

/** One log entry as sent: reserved keys (message, status, timestamp, …) plus any attributes. */
export type DatadogLogEntry = Record<string, JsonValue>;

export interface DatadogLogPayload {
  entries: DatadogLogEntry[];
  /** `?ddtags=` on the request (public API), appended to every entry's ddtags. */
  queryTags: string | undefined;
}

/** Reserved keys and their aliases, in the order the first present one wins. */
// logback's JSON encoder writes the pattern as `message` and the rendered line as `formattedMessage`
export const MESSAGE_KEYS = ['formattedMessage', 'message', 'msg', 'log'] as const;
// `levelname` is python-json-logger's (Datadog's Python pipeline remaps it); the others are Datadog's own aliases
export const STATUS_KEYS = ['status', 'severity', 'level', 'syslog.severity', 'levelname'] as const;
// `time` (pino, bunyan, logrus) is ours, not Datadog's: without it a JSON line's own time loses to the agent's read time
export const TIMESTAMP_KEYS = ['timestamp', '@timestamp', '_timestamp', 'Timestamp', 'eventTime', 'date', 'published_date', 'syslog.timestamp', 'time'] as const;
export const HOST_KEYS = ['hostname', 'host', 'syslog.hostname'] as const;
export const SERVICE_KEYS = ['service'] as const;
export const SOURCE_KEYS = ['ddsource'] as const;
export const TAGS_KEYS = ['ddtags'] as const;
// logback's JSON encoder nests the MDC under `mdc`, log4j2's JSON layouts under `contextMap`
export const TRACE_ID_KEYS = ['dd.trace_id', 'mdc.dd.trace_id', 'contextMap.dd.trace_id'] as const;
export const SPAN_ID_KEYS = ['dd.span_id', 'mdc.dd.span_id', 'contextMap.dd.span_id'] as const;

/** Groups of aliases: a JSON message that names any member replaces the whole group. */
export const RESERVED_GROUPS: readonly (readonly string[])[] = [MESSAGE_KEYS, STATUS_KEYS, TIMESTAMP_KEYS, HOST_KEYS, SERVICE_KEYS, SOURCE_KEYS];
