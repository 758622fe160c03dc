/**
 * How each signal's messages map onto the piece tree (src/core/otlp/pieces.ts): the request, its
 * resource and scope entries, and for metrics the metric and its kind's message around the points.
 */
import type { InstrumentationScope, Metric, Resource, SignalBatch } from './model';
import { encodeSlice, type Frame, makeFrame, NOTHING, type Piece, type Slice } from './pieces';
import { EXPORT_REQUEST, RESOURCE_ENTRY, SCOPE_ENTRY, writeResourceField, writeSchemaUrl, writeScopeField } from './fields/common';
import { writeLogRecord } from './fields/logs';
import { AGGREGATION, metricKind, writeAggregation, writeExponentialHistogramDataPoint, writeHistogramDataPoint, writeMetricHeader, writeNumberDataPoint } from './fields/metrics';
import { writeSpan } from './fields/traces';
import type { ProtoWriter } from '../wire/proto-writer';

export function encodeTree(w: ProtoWriter, batch: SignalBatch): Frame {
  switch (batch.signal) {
    case 'logs':
      return requestFrame(
        w,
        batch.resources.map((r) => ({ ...r, scopes: r.scopeLogs })),
        (scope) => scope.logRecords.map((log) => encodeSlice(w, writeLogRecord, log)),
      );
    case 'traces':
      return requestFrame(
        w,
        batch.resources.map((r) => ({ ...r, scopes: r.scopeSpans })),
        (scope) => scope.spans.map((span) => encodeSlice(w, writeSpan, span)),
      );
    case 'metrics':
      return requestFrame(
        w,
        batch.resources.map((r) => ({ ...r, scopes: r.scopeMetrics })),
        (scope) => scope.metrics.map((metric) => metricFrame(encodeMetric(w, metric))),
      );
  }
}

interface ScopeEnvelope {
  scope: InstrumentationScope;
  schemaUrl?: string;
}

export interface ResourceEnvelope<S extends ScopeEnvelope> {
  resource: Resource;
  scopes: S[];
  schemaUrl?: string;
}

export function requestFrame<S extends ScopeEnvelope>(w: ProtoWriter, resources: ResourceEnvelope<S>[], contentsOf: (scope: S) => Piece[]): Frame {
  const entries = resources.map((r) =>
    envelopeFrame(
      w,
      encodeSlice(w, writeResourceField, r.resource),
      RESOURCE_ENTRY.scopeEntries,
      r.scopes.map((s) => envelopeFrame(w, encodeSlice(w, writeScopeField, s.scope), SCOPE_ENTRY.contents, contentsOf(s), s.schemaUrl)),
      r.schemaUrl,
    ),
  );
  return makeFrame(NOTHING, EXPORT_REQUEST.resourceEntries, entries, NOTHING);
}

function envelopeFrame(w: ProtoWriter, header: Slice, contentsField: number, contents: Piece[], schemaUrl: string | undefined): Frame {
  const tail = encodeSlice(w, writeSchemaUrl, schemaUrl);
  return makeFrame(header, contentsField, contents, tail);
}

/** A metric's bytes in the scratch: its header, its points, and the aggregation fields after them. */
export interface EncodedMetric {
  head: Slice;
  /** the Metric field of its kind (gauge, sum, histogram, exponential_histogram) */
  kindField: number;
  points: Slice[];
  tail: Slice;
}

export function encodeMetric(w: ProtoWriter, metric: Metric): EncodedMetric {
  const head = encodeSlice(w, writeMetricHeader, metric);
  const points: Slice[] = [];
  encodePoints(w, metric, points);
  const [kindField, aggregation] = metricKind(metric);
  return { head, kindField, points, tail: encodeSlice(w, writeAggregation, aggregation) };
}

export function encodePoints(w: ProtoWriter, metric: Metric, into: Slice[]): void {
  if ('gauge' in metric) encodeEach(w, metric.gauge.dataPoints, writeNumberDataPoint, into);
  else if ('sum' in metric) encodeEach(w, metric.sum.dataPoints, writeNumberDataPoint, into);
  else if ('histogram' in metric) encodeEach(w, metric.histogram.dataPoints, writeHistogramDataPoint, into);
  else encodeEach(w, metric.exponentialHistogram.dataPoints, writeExponentialHistogramDataPoint, into);
}

function encodeEach<P>(w: ProtoWriter, points: readonly P[], write: (w: ProtoWriter, point: P) => void, into: Slice[]): void {
  for (const point of points) into.push(encodeSlice(w, write, point));
}

/**
 * Metric{name, description, unit, <kind> {data_points, temporality...}}: two nested frames so
 * that a split keeps the name, kind, temporality and monotonicity around every share of points.
 */
export const metricFrame = (m: EncodedMetric): Frame => makeFrame(m.head, m.kindField, [makeFrame(NOTHING, AGGREGATION.dataPoints, m.points, m.tail)], NOTHING);
