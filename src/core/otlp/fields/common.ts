/**
 * Writers of the messages every signal shares (proto/opentelemetry/proto/common/v1/common.proto,
 * resource/v1/resource.proto) and of the envelopes around each signal's records. Field numbers are
 * named after the .proto fields (test/unit/otlp-fields.test.ts checks each name and number against
 * them); proto3 defaults are left out except where the schema makes a zero meaningful (oneof
 * members, `optional` fields).
 */
import type { AnyValue, InstrumentationScope, KeyValue, Resource } from '../model';
import type { ProtoWriter } from '../../wire/proto-writer';

export const ANY_VALUE = { stringValue: 1, boolValue: 2, intValue: 3, doubleValue: 4, arrayValue: 5, kvlistValue: 6, bytesValue: 7 } as const;
export const ARRAY_VALUE = { values: 1 } as const;
export const KEY_VALUE_LIST = { values: 1 } as const;
export const KEY_VALUE = { key: 1, value: 2 } as const;
export const INSTRUMENTATION_SCOPE = { name: 1, version: 2, attributes: 3 } as const;
export const RESOURCE = { attributes: 1 } as const;

/**
 * The three signals number their envelopes alike, so one layout serves them all:
 * Export{Logs,Trace,Metrics}ServiceRequest (collector/<signal>/v1/<signal>_service.proto) holds
 * resource_logs / resource_spans / resource_metrics = 1.
 */
export const EXPORT_REQUEST = { resourceEntries: 1 } as const;
/** ResourceLogs / ResourceSpans / ResourceMetrics: resource = 1, scope_logs / scope_spans / scope_metrics = 2, schema_url = 3. */
export const RESOURCE_ENTRY = { resource: 1, scopeEntries: 2, schemaUrl: 3 } as const;
/** ScopeLogs / ScopeSpans / ScopeMetrics: scope = 1, log_records / spans / metrics = 2, schema_url = 3. */
export const SCOPE_ENTRY = { scope: 1, contents: 2, schemaUrl: 3 } as const;

export function writeMessage<T>(w: ProtoWriter, field: number, value: T, write: (w: ProtoWriter, value: T) => void): void {
  const lengthAt = w.beginLen(field);
  write(w, value);
  w.endLen(lengthAt);
}

export function writeId(w: ProtoWriter, field: number, id: Uint8Array | undefined): void {
  if (id !== undefined && id.length > 0) w.bytesField(field, id);
}

export function writeOptionalDouble(w: ProtoWriter, field: number, value: number | undefined): void {
  if (value !== undefined) w.doubleField(field, value);
}

export function writeAttributes(w: ProtoWriter, field: number, attributes: readonly KeyValue[] | undefined): void {
  if (attributes === undefined) return;
  for (const attribute of attributes) {
    const { key, value } = attribute;
    if ('string' in value && w.shortStringKeyValueField(field, key, value.string)) continue;
    writeMessage(w, field, attribute, writeKeyValue);
  }
}

function writeKeyValue(w: ProtoWriter, kv: KeyValue): void {
  if (kv.key) w.stringField(KEY_VALUE.key, kv.key);
  const lengthAt = w.beginLen(KEY_VALUE.value);
  writeAnyValue(w, kv.value);
  w.endLen(lengthAt);
}

/** A oneof: the member is written even when it holds its type's default. */
export function writeAnyValue(w: ProtoWriter, value: AnyValue): void {
  if ('string' in value) w.stringField(ANY_VALUE.stringValue, value.string);
  else if ('bool' in value) w.boolField(ANY_VALUE.boolValue, value.bool);
  else if ('int' in value) w.int64Field(ANY_VALUE.intValue, value.int);
  else if ('double' in value) w.doubleField(ANY_VALUE.doubleValue, value.double);
  else if ('array' in value) {
    const lengthAt = w.beginLen(ANY_VALUE.arrayValue);
    for (const item of value.array) writeMessage(w, ARRAY_VALUE.values, item, writeAnyValue);
    w.endLen(lengthAt);
  } else if ('kvlist' in value) {
    const lengthAt = w.beginLen(ANY_VALUE.kvlistValue);
    writeAttributes(w, KEY_VALUE_LIST.values, value.kvlist);
    w.endLen(lengthAt);
  } else w.bytesField(ANY_VALUE.bytesValue, value.bytes);
}

function writeResource(w: ProtoWriter, resource: Resource): void {
  writeAttributes(w, RESOURCE.attributes, resource.attributes);
}

function writeScope(w: ProtoWriter, scope: InstrumentationScope): void {
  if (scope.name) w.stringField(INSTRUMENTATION_SCOPE.name, scope.name);
  if (scope.version) w.stringField(INSTRUMENTATION_SCOPE.version, scope.version);
  writeAttributes(w, INSTRUMENTATION_SCOPE.attributes, scope.attributes);
}

export const writeResourceField = (w: ProtoWriter, resource: Resource): void => writeMessage(w, RESOURCE_ENTRY.resource, resource, writeResource);

export const writeScopeField = (w: ProtoWriter, scope: InstrumentationScope): void => writeMessage(w, SCOPE_ENTRY.scope, scope, writeScope);

/** Resource and scope entries alike: RESOURCE_ENTRY.schemaUrl is SCOPE_ENTRY.schemaUrl. */
export function writeSchemaUrl(w: ProtoWriter, schemaUrl: string | undefined): void {
  if (schemaUrl) w.stringField(RESOURCE_ENTRY.schemaUrl, schemaUrl);
}
