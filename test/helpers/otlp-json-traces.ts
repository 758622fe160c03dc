/**
 * ResourceSpans as OTLP/JSON (what the collector's file exporter writes), for trace golden files:
 * ids as lower-case hex, times as decimal strings, kinds and status codes as numbers.
 */
import type { ResourceSpans, Span, SpanEvent, SpanLink } from '../../src/core/otlp/model';
import { keyValueJson } from './otlp-json';

type Json = Record<string, unknown>;
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

export const eventJson = (e: SpanEvent): Json => ({ timeUnixNano: e.timeUnixNano.toString(), name: e.name, attributes: e.attributes.map(keyValueJson) });

export const linkJson = (l: SpanLink): Json => ({
  traceId: hex(l.traceId),
  spanId: hex(l.spanId),
  ...(l.traceState ? { traceState: l.traceState } : {}),
  attributes: l.attributes.map(keyValueJson),
  ...(l.flags ? { flags: l.flags } : {}),
});

export function spanJson(s: Span): Json {
  return {
    traceId: hex(s.traceId),
    spanId: hex(s.spanId),
    ...(s.parentSpanId ? { parentSpanId: hex(s.parentSpanId) } : {}),
    name: s.name,
    kind: s.kind,
    startTimeUnixNano: s.startTimeUnixNano.toString(),
    endTimeUnixNano: s.endTimeUnixNano.toString(),
    attributes: s.attributes.map(keyValueJson),
    ...(s.events.length ? { events: s.events.map(eventJson) } : {}),
    ...(s.links.length ? { links: s.links.map(linkJson) } : {}),
    ...(s.status ? { status: { code: s.status.code, ...(s.status.message ? { message: s.status.message } : {}) } } : {}),
  };
}

export function resourceSpansJson(resources: ResourceSpans[]): Json {
  return {
    resourceSpans: resources.map((rs) => ({
      resource: { attributes: rs.resource.attributes.map(keyValueJson) },
      scopeSpans: rs.scopeSpans.map((ss) => ({ scope: { name: ss.scope.name, version: ss.scope.version }, spans: ss.spans.map(spanJson) })),
    })),
  };
}
