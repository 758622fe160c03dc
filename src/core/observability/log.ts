/**
 * Structured JSON logs, one object per line on stdout, shaped like the collector's own logs
 * (level, ts, msg, fields) so both can be shipped by the same log pipeline. Callers pass fields,
 * never whole requests: API keys must not reach a log line (the sidecar's logger also takes every
 * configured key out of each line: `redacting`).
 */
import type { LogLevel } from '../../config';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type Fields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: Fields): void;
  info(msg: string, fields?: Fields): void;
  warn(msg: string, fields?: Fields): void;
  error(msg: string, fields?: Fields): void;
  child(fields: Fields): Logger;
}

export type Sink = (line: string) => void;

const stdoutSink: Sink = (line) => {
  process.stdout.write(line + '\n');
};

const errorFields = (value: unknown): unknown => (value instanceof Error ? { message: value.message, name: value.name, ...(value.stack ? { stack: value.stack } : {}) } : value);

const jsonSafe = (_key: string, value: unknown): unknown => (typeof value === 'bigint' ? value.toString() : errorFields(value));

export function createLogger(level: LogLevel, base: Fields = {}, sink: Sink = stdoutSink): Logger {
  const min = RANK[level];
  const emit = (lvl: LogLevel, msg: string, fields?: Fields): void => {
    if (RANK[lvl] < min) return;
    sink(JSON.stringify({ level: lvl, ts: new Date().toISOString(), msg, ...base, ...fields }, jsonSafe));
  };
  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    child: (fields) => createLogger(level, { ...base, ...fields }, sink),
  };
}

/**
 * A logger that writes each message (by level and text) at most once per `intervalMs`; the next
 * line written for it carries `suppressed`, the number of lines left out since. For lines a
 * client or a failing dependency can trigger at request rate (overload 503s, delivery retries),
 * so that a storm costs a line per interval instead of one per event.
 */
export function rateLimited(log: Logger, intervalMs: number, now: () => number = Date.now): Logger {
  const windows = new Map<string, { until: number; suppressed: number }>();
  const gate =
    (emit: (msg: string, fields?: Fields) => void, level: LogLevel) =>
    (msg: string, fields?: Fields): void => {
      const key = `${level} ${msg}`;
      const t = now();
      const window = windows.get(key);
      if (window && t < window.until) {
        window.suppressed++;
        return;
      }
      const suppressed = window?.suppressed ?? 0;
      windows.set(key, { until: t + intervalMs, suppressed: 0 });
      emit(msg, suppressed > 0 ? { ...fields, suppressed } : fields);
    };
  return {
    debug: gate(log.debug, 'debug'),
    info: gate(log.info, 'info'),
    warn: gate(log.warn, 'warn'),
    error: gate(log.error, 'error'),
    child: (fields) => rateLimited(log.child(fields), intervalMs, now),
  };
}

/** `value` as a log line shows it (errors as their fields, whatever has `toJSON` as what that returns), `redact` applied to every string in it. */
function redactedValue(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return redactedValue(errorFields(value), redact);
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') return redactedValue(withJson.toJSON(), redact);
  if (Array.isArray(value)) return value.map((item) => redactedValue(item, redact));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactedValue(v, redact)]));
}

/** A logger that applies `redact` to each message and to every string in its fields, its children's too. */
export function redacting(log: Logger, redact: (text: string) => string): Logger {
  const scrub =
    (emit: (msg: string, fields?: Fields) => void) =>
    (msg: string, fields?: Fields): void =>
      emit(redact(msg), fields && (redactedValue(fields, redact) as Fields));
  return {
    debug: scrub(log.debug),
    info: scrub(log.info),
    warn: scrub(log.warn),
    error: scrub(log.error),
    child: (fields) => redacting(log.child(redactedValue(fields, redact) as Fields), redact),
  };
}
