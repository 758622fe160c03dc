/**
 * Structured JSON logs, one object per line on stdout, shaped like the collector's own logs
 * (level, ts, msg, fields) so both can be shipped by the same log pipeline. Callers pass fields,
 * never whole requests: API keys must not reach a log line.
 */
import type { LogLevel } from '../config';

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

const errorFields = (value: unknown): unknown =>
  value instanceof Error ? { message: value.message, name: value.name, ...(value.stack ? { stack: value.stack } : {}) } : value;

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
