/**
 * Reads what the real collector's file exporter wrote: OTLP JSON, one export request per line.
 * Flattened to records with their resource attributes so tests can assert on single values.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

type Json = any;

export interface SinkLogRecord {
  resource: Record<string, unknown>;
  scope: { name?: string; version?: string };
  record: Json;
  attributes: Record<string, unknown>;
  body: unknown;
}

/** OTLP JSON AnyValue → plain JS (ints stay strings, as protojson writes int64). */
export function plain(value: Json): unknown {
  if (value === undefined || value === null) return undefined;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return String(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('bytesValue' in value) return value.bytesValue;
  if ('arrayValue' in value) return (value.arrayValue.values ?? []).map(plain);
  if ('kvlistValue' in value) return attributesOf(value.kvlistValue.values);
  return undefined;
}

export const attributesOf = (kvs: Json[] | undefined): Record<string, unknown> => Object.fromEntries((kvs ?? []).map((kv: Json) => [kv.key, plain(kv.value)]));

/** The top-level key of an export request of each signal (one request per line of otlp.jsonl). */
const REQUEST_KEY = { logs: 'resourceLogs', traces: 'resourceSpans', metrics: 'resourceMetrics' } as const;

/** The export requests of one signal. Complete lines only: the collector may be half-way through writing the last one. */
export function readLines(dir: string, signal: 'logs' | 'traces' | 'metrics'): Json[] {
  const file = join(dir, 'otlp.jsonl');
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.pop(); // '' after the last newline, or a line still being written
  return lines
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
    .filter((request) => REQUEST_KEY[signal] in request);
}

export function logRecords(dir: string): SinkLogRecord[] {
  return readLines(dir, 'logs').flatMap((req: Json) =>
    (req.resourceLogs ?? []).flatMap((rl: Json) =>
      (rl.scopeLogs ?? []).flatMap((sl: Json) =>
        (sl.logRecords ?? []).map((record: Json) => ({
          resource: attributesOf(rl.resource?.attributes),
          scope: sl.scope ?? {},
          record,
          attributes: attributesOf(record.attributes),
          body: plain(record.body),
        })),
      ),
    ),
  );
}

/** Polls until `read` returns something `done` accepts; the collector flushes its file every 100 ms. */
export async function waitFor<T>(read: () => T, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}
