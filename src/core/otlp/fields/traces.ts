/** The Span writer and those of its nested messages (proto/opentelemetry/proto/trace/v1/trace.proto). */
import type { Span, SpanEvent, SpanLink } from '../model';
import type { ProtoWriter } from '../../wire/proto-writer';
import { writeAttributes, writeId, writeMessage } from './common';

export const SPAN = {
  traceId: 1,
  spanId: 2,
  traceState: 3,
  parentSpanId: 4,
  name: 5,
  kind: 6,
  startTimeUnixNano: 7,
  endTimeUnixNano: 8,
  attributes: 9,
  events: 11,
  links: 13,
  status: 15,
  flags: 16,
} as const;
/** Span.Event */
export const SPAN_EVENT = { timeUnixNano: 1, name: 2, attributes: 3 } as const;
/** Span.Link */
export const SPAN_LINK = { traceId: 1, spanId: 2, traceState: 3, attributes: 4, flags: 6 } as const;
export const STATUS = { message: 2, code: 3 } as const;

export function writeSpan(w: ProtoWriter, span: Span): void {
  writeId(w, SPAN.traceId, span.traceId);
  writeId(w, SPAN.spanId, span.spanId);
  if (span.traceState) w.stringField(SPAN.traceState, span.traceState);
  writeId(w, SPAN.parentSpanId, span.parentSpanId);
  if (span.name) w.stringField(SPAN.name, span.name);
  if (span.kind) w.int32Field(SPAN.kind, span.kind);
  if (span.startTimeUnixNano) w.fixed64Field(SPAN.startTimeUnixNano, span.startTimeUnixNano);
  if (span.endTimeUnixNano) w.fixed64Field(SPAN.endTimeUnixNano, span.endTimeUnixNano);
  writeAttributes(w, SPAN.attributes, span.attributes);
  for (const event of span.events) writeMessage(w, SPAN.events, event, writeSpanEvent);
  for (const link of span.links) writeMessage(w, SPAN.links, link, writeSpanLink);
  if (span.status !== undefined) writeMessage(w, SPAN.status, span.status, writeStatus);
  if (span.flags) w.fixed32Field(SPAN.flags, span.flags);
}

function writeSpanEvent(w: ProtoWriter, event: SpanEvent): void {
  if (event.timeUnixNano) w.fixed64Field(SPAN_EVENT.timeUnixNano, event.timeUnixNano);
  if (event.name) w.stringField(SPAN_EVENT.name, event.name);
  writeAttributes(w, SPAN_EVENT.attributes, event.attributes);
}

function writeSpanLink(w: ProtoWriter, link: SpanLink): void {
  writeId(w, SPAN_LINK.traceId, link.traceId);
  writeId(w, SPAN_LINK.spanId, link.spanId);
  if (link.traceState) w.stringField(SPAN_LINK.traceState, link.traceState);
  writeAttributes(w, SPAN_LINK.attributes, link.attributes);
  if (link.flags) w.fixed32Field(SPAN_LINK.flags, link.flags);
}

function writeStatus(w: ProtoWriter, status: NonNullable<Span['status']>): void {
  if (status.message) w.stringField(STATUS.message, status.message);
  if (status.code) w.int32Field(STATUS.code, status.code);
}
