/**
 * mergeByResource against protobufjs's reading of the result (an independent decoder): equal
 * resources and scopes become one, records keep their order, anything unknown is left alone.
 */
import { encodeExportRequests } from '../../src/core/otlp/encode';
import type { ResourceSpans, SignalBatch } from '../../src/core/otlp/model';
import { mergeByResource } from '../../src/core/otlp/merge-resources';
import { lookupType } from '../helpers/otlp-proto';

const TRACES = lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
const span = (name: string) => ({ traceId: new Uint8Array(16).fill(1), spanId: new Uint8Array(8).fill(2), name, kind: 2, startTimeUnixNano: 1n, endTimeUnixNano: 2n, attributes: [], events: [], links: [], status: { code: 0 } });
const resourceSpans = (service: string, scope: string, ...names: string[]): ResourceSpans => ({
  resource: { attributes: [{ key: 'service.name', value: { string: service } }] },
  scopeSpans: [{ scope: { name: scope }, spans: names.map(span) }],
});
const body = (...resources: ResourceSpans[]): Buffer => {
  const batch: SignalBatch = { signal: 'traces', resources };
  const [request] = encodeExportRequests(batch, 1 << 20);
  return request!.body;
};

interface Decoded {
  resourceSpans: { resource: { attributes: { value: { stringValue: string } }[] }; scopeSpans: { scope: { name: string }; spans: { name: string }[] }[] }[];
}
const layout = (bytes: Uint8Array): string[][] =>
  (TRACES.toObject(TRACES.decode(bytes)) as Decoded).resourceSpans.map((r) => [r.resource.attributes[0]!.value.stringValue, ...r.scopeSpans.map((s) => `${s.scope.name}: ${s.spans.map((x) => x.name).join(' ')}`)]);

describe('mergeByResource', () => {
  it('puts the records of equal resources and scopes under one of each, in first-seen order', () => {
    const merged = mergeByResource([body(resourceSpans('a', 'http', 'a1'), resourceSpans('b', 'http', 'b1')), body(resourceSpans('a', 'http', 'a2'), resourceSpans('a', 'pg', 'a3')), body(resourceSpans('b', 'http', 'b2'))]);
    expect(layout(merged!)).toEqual([
      ['a', 'http: a1 a2', 'pg: a3'],
      ['b', 'http: b1 b2'],
    ]);
  });

  it('is the concatenation when nothing is shared', () => {
    const parts = [body(resourceSpans('a', 'http', 'a1')), body(resourceSpans('b', 'http', 'b1'))];
    expect(mergeByResource(parts)).toEqual(Buffer.concat(parts));
  });

  it('leaves requests alone that hold a field it does not read, or are cut short', () => {
    const good = body(resourceSpans('a', 'http', 'a1'));
    expect(mergeByResource([good, Buffer.concat([good, Buffer.from([0x12, 0x00])])])).toBeUndefined();
    expect(mergeByResource([good, good.subarray(0, good.length - 3)])).toBeUndefined();
  });
});
