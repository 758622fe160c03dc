/**
 * The OTLP model as OTLP/JSON (the protojson mapping the collector's file exporter writes):
 * int64 as strings, ids as lower-case hex, AnyValue as {stringValue: …}. Golden files use it so an
 * expected output reads exactly like what lands in the collector.
 */
import type { AnyValue, KeyValue, LogRecord, ResourceLogs } from '../../src/core/otlp/model';

type Json = Record<string, unknown>;

export function anyValueJson(v: AnyValue): Json {
  if ('string' in v) return { stringValue: v.string };
  if ('bool' in v) return { boolValue: v.bool };
  if ('int' in v) return { intValue: v.int.toString() };
  if ('double' in v) return { doubleValue: v.double };
  if ('bytes' in v) return { bytesValue: Buffer.from(v.bytes).toString('base64') };
  if ('array' in v) return { arrayValue: { values: v.array.map(anyValueJson) } };
  return { kvlistValue: { values: v.kvlist.map(keyValueJson) } };
}

export const keyValueJson = (kv: KeyValue): Json => ({ key: kv.key, value: anyValueJson(kv.value) });
const hex = (b: Uint8Array | undefined): string | undefined => (b ? Buffer.from(b).toString('hex') : undefined);

export function logRecordJson(r: LogRecord): Json {
  return {
    timeUnixNano: r.timeUnixNano.toString(),
    observedTimeUnixNano: r.observedTimeUnixNano.toString(),
    severityNumber: r.severityNumber,
    severityText: r.severityText,
    ...(r.body ? { body: anyValueJson(r.body) } : {}),
    attributes: r.attributes.map(keyValueJson),
    ...(r.traceId ? { traceId: hex(r.traceId) } : {}),
    ...(r.spanId ? { spanId: hex(r.spanId) } : {}),
  };
}

export function resourceLogsJson(resources: ResourceLogs[]): Json {
  return {
    resourceLogs: resources.map((rl) => ({
      resource: { attributes: rl.resource.attributes.map(keyValueJson) },
      scopeLogs: rl.scopeLogs.map((sl) => ({ scope: { name: sl.scope.name, version: sl.scope.version }, logRecords: sl.logRecords.map(logRecordJson) })),
    })),
  };
}
