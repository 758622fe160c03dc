import { encodeExportRequests, logStreamEncoder, RecordTooLargeError, type EncodedExport } from '../../src/core/otlp/encode';
import { AggregationTemporality, SpanKind, StatusCode, type AnyValue, type KeyValue, type LogRecord, type Metric, type NumberDataPoint, type ResourceLogs, type ResourceMetrics, type ResourceSpans, type SignalBatch, type Span } from '../../src/core/otlp/model';
import { TooLargeError } from '../../src/core/errors';
import { replyTo } from '../helpers/error-reply';
import { decodeExportRequest, decodeRequestObject, lookupType, REQUEST_TYPE } from '../helpers/otlp-proto';

const NO_LIMIT = 64 * 1024 * 1024;
const U64_MAX = 2n ** 64n - 1n;
const T0 = 1_700_000_000_123_456_789n; // well above 2^53: a double would round it

const str = (value: string): AnyValue => ({ string: value });
const attr = (key: string, value: AnyValue): KeyValue => ({ key, value });
const id = (length: number, seed: number): Uint8Array => Uint8Array.from({ length }, (_, i) => (seed * 31 + i * 7) & 0xff);

function encodeSingle(batch: SignalBatch): EncodedExport {
  const bodies = encodeExportRequests(batch, NO_LIMIT);
  expect(bodies).toHaveLength(1);
  return bodies[0]!;
}

/** protobufjs re-encodes canonically (fields by number, minimal varints, defaults left out). */
function expectCanonical(batch: SignalBatch, body: Buffer): void {
  const type = lookupType(REQUEST_TYPE[batch.signal]);
  expect(Buffer.from(type.encode(type.decode(body)).finish()).toString('hex')).toBe(body.toString('hex'));
}

function expectRoundTrip(batch: SignalBatch): EncodedExport {
  const encoded = encodeSingle(batch);
  expect(encoded.signal).toBe(batch.signal);
  expect(decodeExportRequest(batch.signal, encoded.body)).toEqual(batch);
  expectCanonical(batch, encoded.body);
  return encoded;
}

// ---------------------------------------------------------------- fixtures

const EVERY_ANY_VALUE: KeyValue[] = [
  attr('empty string', str('')),
  attr('ascii', str('GET /users/:id')),
  attr('unicode', str('héllo wörld ✓ 日本語 😀')),
  attr('long unicode', str('€'.repeat(200) + '😀'.repeat(50))),
  attr('bool false', { bool: false }),
  attr('bool true', { bool: true }),
  attr('int zero', { int: 0n }),
  attr('int min', { int: -(2n ** 63n) }),
  attr('int max', { int: 2n ** 63n - 1n }),
  attr('int negative', { int: -1n }),
  attr('double zero', { double: 0 }),
  attr('double', { double: -1234.5e-7 }),
  attr('double infinity', { double: Number.POSITIVE_INFINITY }),
  attr('bytes empty', { bytes: new Uint8Array(0) }),
  attr('bytes', { bytes: id(20, 3) }),
  attr('array empty', { array: [] }),
  attr('kvlist empty', { kvlist: [] }),
  attr('nested', {
    array: [str(''), { int: 7n }, { array: [{ kvlist: [attr('deep', { array: [{ bytes: id(3, 1) }, { bool: false }] })] }] }, { kvlist: [attr('a', str('b')), attr('c', { double: 0 })] }],
  }),
  // Nested messages beyond 127 and 16383 bytes need 2- and 3-byte length prefixes.
  attr('big kvlist', { kvlist: Array.from({ length: 40 }, (_, i) => attr(`k${i}`, str('v'.repeat(i * 10)))) }),
  attr('huge array', { array: [str('x'.repeat(20_000)), { kvlist: [attr('y', str('z'.repeat(300)))] }] }),
];

function logRecord(i: number, extra: Partial<LogRecord> = {}): LogRecord {
  return {
    timeUnixNano: T0 + BigInt(i),
    observedTimeUnixNano: T0 + BigInt(i) + 1_000n,
    severityNumber: 9,
    severityText: 'INFO',
    body: str(`log line ${i}`),
    attributes: [attr('i', { int: BigInt(i) }), attr('logger', str('app.main'))],
    ...extra,
  };
}

const logs = (resources: ResourceLogs[]) => ({ signal: 'logs' as const, resources });
const traces = (resources: ResourceSpans[]) => ({ signal: 'traces' as const, resources });
const metrics = (resources: ResourceMetrics[]) => ({ signal: 'metrics' as const, resources });

function span(i: number, extra: Partial<Span> = {}): Span {
  return {
    traceId: id(16, i),
    spanId: id(8, i + 1),
    name: `op-${i}`,
    kind: SpanKind.Server,
    startTimeUnixNano: T0 + BigInt(i) * 1000n,
    endTimeUnixNano: T0 + BigInt(i) * 1000n + 500n,
    attributes: [attr('i', { int: BigInt(i) })],
    events: [],
    links: [],
    ...extra,
  };
}

function numberPoint(i: number, value: NumberDataPoint['value']): NumberDataPoint {
  return { attributes: [attr('i', { int: BigInt(i) })], startTimeUnixNano: T0, timeUnixNano: T0 + BigInt(i), value };
}

// ---------------------------------------------------------------- round trips

describe('encodeExportRequests round trip through protobufjs and our .proto files', () => {
  it('encodes logs with every field, AnyValue variant, id and large timestamps', () => {
    const batch = logs([
      {
        resource: { attributes: [attr('service.name', str('checkout')), ...EVERY_ANY_VALUE] },
        schemaUrl: 'https://opentelemetry.io/schemas/1.26.0',
        scopeLogs: [
          {
            scope: { name: 'datadog.logs', version: '1.2.3', attributes: [attr('scope.attr', { bool: true })] },
            schemaUrl: 'https://example.com/scope',
            logRecords: [
              logRecord(0, {
                timeUnixNano: U64_MAX,
                observedTimeUnixNano: 2n ** 53n + 1n,
                severityNumber: 24,
                severityText: 'FATAL4',
                body: { kvlist: EVERY_ANY_VALUE },
                traceId: id(16, 1),
                spanId: id(8, 2),
                flags: 0x01,
                eventName: 'checkout.failed',
              }),
              logRecord(1, { body: str(''), attributes: EVERY_ANY_VALUE }),
              logRecord(2, { body: undefined, severityNumber: 0, severityText: '', timeUnixNano: 0n }),
            ],
          },
          { scope: { name: '' }, logRecords: [logRecord(3, { body: { double: 0 } })] },
        ],
      },
      { resource: { attributes: [] }, scopeLogs: [{ scope: { name: 'second' }, logRecords: [logRecord(4)] }] },
    ]);
    expect(expectRoundTrip(batch).records).toBe(5);
  });

  it('keeps an empty-string body distinct from no body', () => {
    const body = encodeSingle(logs([{ resource: { attributes: [] }, scopeLogs: [{ scope: { name: 's' }, logRecords: [logRecord(0, { body: str('') }), logRecord(1, { body: undefined })] }] }])).body;
    const records = decodeRequestObject('logs', body).resourceLogs[0].scopeLogs[0].logRecords;
    expect(records[0].body).toEqual({ stringValue: '', value: 'stringValue' });
    expect(records[1].body).toBeUndefined();
  });

  it('replaces lone surrogates like Buffer does, on both string paths', () => {
    const lone = 'a\ud800b';
    const longLone = `${'x'.repeat(60)}\udc00`;
    const batch = logs([{ resource: { attributes: [] }, scopeLogs: [{ scope: { name: 's' }, logRecords: [logRecord(0, { body: { array: [str(lone), str(longLone)] } })] }] }]);
    const decoded = decodeExportRequest('logs', encodeSingle(batch).body);
    const body = decoded.signal === 'logs' ? decoded.resources[0]!.scopeLogs[0]!.logRecords[0]!.body : undefined;
    expect(body).toEqual({ array: [str(Buffer.from(lone).toString()), str(Buffer.from(longLone).toString())] });
    expect(body).toEqual({ array: [str('a\ufffdb'), str(`${'x'.repeat(60)}\ufffd`)] });
  });

  it('writes string attributes on both sides of the one-byte-length boundary, in ASCII and UTF-8', () => {
    // the one-pass path covers KeyValues under 128 bytes and must hand the rest back untouched
    const attributes: KeyValue[] = [];
    // UTF-8 bytes of key + value from 110 to 135: the KeyValue message is those plus 6
    for (let bytes = 110; bytes <= 135; bytes++) {
      for (const [keyChar, valueChar] of [
        ['k', 'v'],
        ['k', 'é'],
        ['ü', '😀'],
        ['日', 'v'],
      ] as const) {
        const keyChars = bytes % 5;
        const keyBytes = keyChars * Buffer.byteLength(keyChar);
        attributes.push(attr(keyChar.repeat(keyChars), str(valueChar.repeat(Math.floor((bytes - keyBytes) / Buffer.byteLength(valueChar))))));
      }
    }
    attributes.push(attr('', str('value without a key')), attr('lone', str('x\ud800'.repeat(20))));
    const batch = logs([{ resource: { attributes }, scopeLogs: [{ scope: { name: 's' }, logRecords: [logRecord(0, { attributes })] }] }]);
    const decoded = decodeRequestObject('logs', encodeSingle(batch).body).resourceLogs[0];
    // proto3 leaves an empty key out, and the decoder gives it back as undefined
    const strings = (list: { key?: string; value: { stringValue: string } }[]) => list.map((kv) => [kv.key ?? '', kv.value.stringValue]);
    const expected = attributes.map((kv) => [kv.key, Buffer.from((kv.value as { string: string }).string).toString()]);
    expect(strings(decoded.resource.attributes)).toEqual(expected);
    expect(strings(decoded.scopeLogs[0].logRecords[0].attributes)).toEqual(expected);
    expectCanonical(batch, encodeSingle(batch).body);
  });

  it('encodes traces with every kind, status, event and link', () => {
    const kinds = [SpanKind.Unspecified, SpanKind.Internal, SpanKind.Server, SpanKind.Client, SpanKind.Producer, SpanKind.Consumer];
    const spans = kinds.map((kind, i) => span(i, { kind }));
    spans.push(
      span(10, {
        traceState: 'dd=s:1;p:00f067aa0ba902b7',
        parentSpanId: id(8, 99),
        flags: 0x301,
        startTimeUnixNano: U64_MAX - 10n,
        endTimeUnixNano: U64_MAX,
        status: { code: StatusCode.Error, message: 'boom: connection reset' },
        events: [
          { timeUnixNano: T0, name: 'exception', attributes: [attr('exception.message', str('boom')), ...EVERY_ANY_VALUE] },
          { timeUnixNano: 0n, name: '', attributes: [] },
        ],
        links: [
          { traceId: id(16, 5), spanId: id(8, 6), traceState: 'a=b', attributes: [attr('link', { bool: true })], flags: 1 },
          { traceId: id(16, 7), spanId: id(8, 8), attributes: [] },
        ],
      }),
      span(11, { status: { code: StatusCode.Ok } }),
      span(12, { status: { code: StatusCode.Unset } }),
      span(13, { name: '', attributes: [], kind: SpanKind.Unspecified }),
    );
    const batch = traces([
      {
        resource: { attributes: [attr('service.name', str('web'))] },
        scopeSpans: [{ scope: { name: 'dd-trace', version: '5.0.0' }, spans, schemaUrl: 'https://s' }],
        schemaUrl: 'https://r',
      },
    ]);
    expect(expectRoundTrip(batch).records).toBe(spans.length);
  });

  it('encodes all four metric kinds, zero values and negative exponential offsets', () => {
    const metricList: Metric[] = [
      {
        name: 'gauge.values',
        description: 'zeros are real values',
        unit: '1',
        gauge: {
          dataPoints: [numberPoint(0, { int: 0n }), numberPoint(1, { double: 0 }), numberPoint(2, { int: -(2n ** 63n) }), numberPoint(3, { double: -0.5 }), { ...numberPoint(4, { int: 2n ** 63n - 1n }), flags: 1, startTimeUnixNano: 0n }],
        },
      },
      {
        name: 'requests',
        unit: '{request}',
        sum: {
          aggregationTemporality: AggregationTemporality.Delta,
          isMonotonic: true,
          dataPoints: [numberPoint(0, { int: 42n }), numberPoint(1, { double: 0.25 })],
        },
      },
      {
        name: 'queue.depth',
        sum: { aggregationTemporality: AggregationTemporality.Cumulative, isMonotonic: false, dataPoints: [numberPoint(0, { int: 0n })] },
      },
      {
        name: 'latency',
        unit: 'ms',
        histogram: {
          aggregationTemporality: AggregationTemporality.Delta,
          dataPoints: [
            {
              attributes: [attr('route', str('/a'))],
              startTimeUnixNano: T0,
              timeUnixNano: T0 + 10n,
              count: 2n ** 60n,
              sum: 0,
              bucketCounts: [0n, 1n, U64_MAX, 2n ** 60n - 1n],
              explicitBounds: [-1, 0, 2.5],
              min: -1,
              max: 0,
              flags: 1,
            },
            { attributes: [], startTimeUnixNano: T0, timeUnixNano: T0, count: 0n, bucketCounts: [], explicitBounds: [] },
          ],
        },
      },
      {
        name: 'latency.exp',
        exponentialHistogram: {
          aggregationTemporality: AggregationTemporality.Cumulative,
          dataPoints: [
            {
              attributes: [attr('host', str('h1'))],
              startTimeUnixNano: T0,
              timeUnixNano: T0 + 1n,
              count: 17n,
              sum: 123.5,
              scale: -3,
              zeroCount: 2n,
              positive: { offset: -5, bucketCounts: [1, 0, 3, Number.MAX_SAFE_INTEGER] },
              negative: { offset: -1_000_000, bucketCounts: [4] },
              min: -12.5,
              max: 99,
              zeroThreshold: 1e-9,
              flags: 1,
            },
            {
              attributes: [],
              startTimeUnixNano: T0,
              timeUnixNano: T0,
              count: 0n,
              scale: 20,
              zeroCount: 0n,
              positive: { offset: 0, bucketCounts: [] },
              negative: { offset: 7, bucketCounts: [] },
            },
          ],
        },
      },
    ];
    const batch = metrics([{ resource: { attributes: [attr('host.name', str('h1'))] }, scopeMetrics: [{ scope: { name: 'dd' }, metrics: metricList }] }]);
    expect(expectRoundTrip(batch).records).toBe(5 + 2 + 1 + 2 + 2);
  });

  it('writes the oneof value of a zero number point and the optional histogram sum of zero', () => {
    const body = encodeSingle(
      metrics([
        {
          resource: { attributes: [] },
          scopeMetrics: [
            {
              scope: { name: 's' },
              metrics: [
                { name: 'g', gauge: { dataPoints: [numberPoint(0, { int: 0n }), numberPoint(1, { double: 0 })] } },
                {
                  name: 'h',
                  histogram: {
                    aggregationTemporality: AggregationTemporality.Delta,
                    dataPoints: [{ attributes: [], startTimeUnixNano: T0, timeUnixNano: T0, count: 1n, sum: 0, bucketCounts: [], explicitBounds: [] }],
                  },
                },
              ],
            },
          ],
        },
      ]),
    ).body;
    const [gauge, histogram] = decodeRequestObject('metrics', body).resourceMetrics[0].scopeMetrics[0].metrics;
    expect(gauge.gauge.dataPoints.map((p: { value: string }) => p.value)).toEqual(['asInt', 'asDouble']);
    expect(histogram.histogram.dataPoints[0]).toHaveProperty('sum', 0);
    expect(histogram.histogram.dataPoints[0]).not.toHaveProperty('min');
  });

  it('returns no bodies for an empty batch or one without records', () => {
    expect(encodeExportRequests(logs([]), 1000)).toEqual([]);
    expect(encodeExportRequests(traces([{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 's' }, spans: [] }] }]), 1000)).toEqual([]);
    expect(encodeExportRequests(metrics([{ resource: { attributes: [] }, scopeMetrics: [{ scope: { name: 's' }, metrics: [{ name: 'm', gauge: { dataPoints: [] } }] }] }]), 1000)).toEqual([]);
  });

  it('drops containers without records but keeps their siblings', () => {
    const batch = metrics([
      { resource: { attributes: [attr('r', str('empty'))] }, scopeMetrics: [] },
      {
        resource: { attributes: [attr('r', str('full'))] },
        scopeMetrics: [
          { scope: { name: 'empty' }, metrics: [{ name: 'none', gauge: { dataPoints: [] } }] },
          {
            scope: { name: 'full' },
            metrics: [
              { name: 'none', gauge: { dataPoints: [] } },
              { name: 'one', gauge: { dataPoints: [numberPoint(0, { int: 1n })] } },
            ],
          },
        ],
      },
    ]);
    expect(decodeExportRequest('metrics', encodeSingle(batch).body)).toEqual(
      metrics([
        {
          resource: { attributes: [attr('r', str('full'))] },
          scopeMetrics: [{ scope: { name: 'full' }, metrics: [{ name: 'one', gauge: { dataPoints: [numberPoint(0, { int: 1n })] } }] }],
        },
      ]),
    );
  });
});

// ---------------------------------------------------------------- splitting

/** Every record of a batch with the resource, scope and metric envelope it travels in. */
function flatten(batch: SignalBatch): unknown[] {
  const out: unknown[] = [];
  if (batch.signal === 'logs') {
    for (const r of batch.resources) for (const s of r.scopeLogs) for (const record of s.logRecords) out.push([r.resource, r.schemaUrl, s.scope, s.schemaUrl, record]);
  } else if (batch.signal === 'traces') {
    for (const r of batch.resources) for (const s of r.scopeSpans) for (const record of s.spans) out.push([r.resource, r.schemaUrl, s.scope, s.schemaUrl, record]);
  } else {
    for (const r of batch.resources) {
      for (const s of r.scopeMetrics) {
        for (const metric of s.metrics) {
          const [kind, data] = Object.entries(metric).find(([key]) => !['name', 'description', 'unit'].includes(key)) as [string, { dataPoints: unknown[] }];
          const { dataPoints, ...envelope } = data;
          for (const point of dataPoints) {
            out.push([r.resource, r.schemaUrl, s.scope, s.schemaUrl, metric.name, metric.description, metric.unit, kind, envelope, point]);
          }
        }
      }
    }
  }
  return out;
}

function expectSplit(batch: SignalBatch, maxBytes: number): EncodedExport[] {
  const bodies = encodeExportRequests(batch, maxBytes);
  const decoded = bodies.map((b) => decodeExportRequest(batch.signal, b.body));
  for (const [i, body] of bodies.entries()) {
    expect(body.signal).toBe(batch.signal);
    expect(body.body.length).toBeLessThanOrEqual(maxBytes);
    expect(body.records).toBe(flatten(decoded[i]!).length);
    expect(body.records).toBeGreaterThan(0);
    expectCanonical(batch, body.body);
  }
  expect(decoded.flatMap(flatten)).toEqual(flatten(batch));
  return bodies;
}

function manyLogs(resourceCount: number, perScope: number, attributeBytes = 40): ResourceLogs[] {
  let n = 0;
  return Array.from({ length: resourceCount }, (_, r) => ({
    resource: { attributes: [attr('service.name', str(`svc-${r}`)), attr('padding', str('r'.repeat(100)))] },
    schemaUrl: `https://schema/${r}`,
    scopeLogs: [0, 1].map((s) => ({
      scope: { name: `scope-${r}-${s}`, version: '1.0' },
      schemaUrl: `https://scope/${s}`,
      logRecords: Array.from({ length: perScope }, () => logRecord(n++, { attributes: [attr('pad', str('p'.repeat(attributeBytes)))] })),
    })),
  }));
}

describe('encodeExportRequests splitting', () => {
  it('splits many records into bodies under the limit, in order, each with its resource and scope', () => {
    const batch = logs(manyLogs(3, 400));
    const bodies = expectSplit(batch, 4096);
    expect(bodies.length).toBeGreaterThan(20);
    expect(bodies.reduce((sum, b) => sum + b.records, 0)).toBe(2400);
  });

  it('fills bodies greedily rather than leaving them half empty', () => {
    const batch = logs(manyLogs(1, 500));
    const bodies = expectSplit(batch, 8192);
    const single = encodeSingle(logs(manyLogs(1, 1))).body.length;
    const largestRecordWithEnvelope = single;
    for (const body of bodies.slice(0, -1)) expect(body.body.length).toBeGreaterThan(8192 - largestRecordWithEnvelope);
  });

  it('keeps a resource whole when it fits in a body of its own', () => {
    const resources = manyLogs(3, 10);
    const oneResource = encodeSingle(logs([resources[0]!])).body.length;
    // Two resources never fit together, each fits alone: three bodies, no resource split.
    const maxBytes = Math.floor(oneResource * 1.6);
    const bodies = expectSplit(logs(resources), maxBytes);
    expect(bodies.map((b) => b.records)).toEqual([20, 20, 20]);
    const decoded = bodies.map((b) => decodeExportRequest('logs', b.body));
    expect(decoded).toEqual(resources.map((r) => logs([r])));
  });

  it('packs several small resources into one body', () => {
    const resources = manyLogs(5, 1);
    const bodies = expectSplit(logs(resources), NO_LIMIT);
    expect(bodies).toHaveLength(1);
    expect(decodeExportRequest('logs', bodies[0]!.body)).toEqual(logs(resources));
  });

  it('uses exactly the limit: a body of maxBytes fits, one byte less splits', () => {
    const batch = traces([{ resource: { attributes: [attr('a', str('b'))] }, scopeSpans: [{ scope: { name: 's' }, spans: [span(1), span(2), span(3)] }] }]);
    const size = encodeSingle(batch).body.length;
    expect(expectSplit(batch, size).map((b) => b.body.length)).toEqual([size]);
    expect(expectSplit(batch, size - 1).length).toBe(2);
  });

  it('splits one huge scope of spans and repeats resource and scope in every body', () => {
    const spans = Array.from({ length: 700 }, (_, i) => span(i, { events: [{ timeUnixNano: T0, name: 'e', attributes: [attr('x', str('y'.repeat(i % 50)))] }] }));
    const batch = traces([
      {
        resource: { attributes: [attr('service.name', str('api')), attr('env', str('prod'))] },
        schemaUrl: 'https://r',
        scopeSpans: [{ scope: { name: 'dd-trace', version: '5', attributes: [attr('a', { int: 1n })] }, schemaUrl: 'https://s', spans }],
      },
    ]);
    const bodies = expectSplit(batch, 3000);
    expect(bodies.length).toBeGreaterThan(10);
    for (const body of bodies) {
      const decoded = decodeExportRequest('traces', body.body);
      if (decoded.signal !== 'traces') throw new Error('wrong signal');
      expect(decoded.resources).toHaveLength(1);
      expect(decoded.resources[0]!.resource).toEqual(batch.resources[0]!.resource);
      expect(decoded.resources[0]!.scopeSpans[0]!.scope).toEqual(batch.resources[0]!.scopeSpans[0]!.scope);
    }
  });

  it('keeps metric name, kind, temporality and monotonicity around split data points', () => {
    const points = Array.from({ length: 300 }, (_, i) => numberPoint(i, i % 2 ? { double: i / 3 } : { int: BigInt(i) }));
    const histogramPoints = Array.from({ length: 60 }, (_, i) => ({
      attributes: [attr('i', { int: BigInt(i) })],
      startTimeUnixNano: T0,
      timeUnixNano: T0 + BigInt(i),
      count: BigInt(i),
      sum: i * 1.5,
      bucketCounts: [1n, 2n, BigInt(i)],
      explicitBounds: [1, 10],
    }));
    const expPoints = Array.from({ length: 60 }, (_, i) => ({
      attributes: [],
      startTimeUnixNano: T0,
      timeUnixNano: T0 + BigInt(i),
      count: BigInt(i),
      scale: -2,
      zeroCount: 1n,
      positive: { offset: 5 - i, bucketCounts: [1, 2] },
      negative: { offset: i, bucketCounts: [] },
    }));
    const batch = metrics([
      {
        resource: { attributes: [attr('host', str('h'))] },
        scopeMetrics: [
          {
            scope: { name: 'dogstatsd' },
            metrics: [
              { name: 'hits', description: 'hit count', unit: '1', sum: { aggregationTemporality: AggregationTemporality.Delta, isMonotonic: true, dataPoints: points } },
              { name: 'temp', gauge: { dataPoints: points.slice(0, 50) } },
              { name: 'lat', histogram: { aggregationTemporality: AggregationTemporality.Cumulative, dataPoints: histogramPoints } },
              { name: 'exp', exponentialHistogram: { aggregationTemporality: AggregationTemporality.Delta, dataPoints: expPoints } },
            ],
          },
        ],
      },
    ]);
    const bodies = expectSplit(batch, 1500);
    expect(bodies.reduce((sum, b) => sum + b.records, 0)).toBe(300 + 50 + 60 + 60);
    const sums = bodies.flatMap((b) => {
      const decoded = decodeExportRequest('metrics', b.body);
      return decoded.signal === 'metrics' ? decoded.resources.flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics)) : [];
    });
    for (const metric of sums.filter((m) => m.name === 'hits')) {
      expect(metric).toMatchObject({ description: 'hit count', unit: '1', sum: { aggregationTemporality: AggregationTemporality.Delta, isMonotonic: true } });
    }
    expect(sums.filter((m) => m.name === 'hits').length).toBeGreaterThan(1);
  });

  it('survives random batches and limits', () => {
    // mulberry32: deterministic, so a failure reproduces.
    let seed = 12345;
    const random = (n: number): number => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * n);
    };
    const many = <T>(max: number, make: (i: number) => T): T[] => Array.from({ length: random(max) }, (_, i) => make(i));
    const envelope = (r: number) => ({ resource: { attributes: [attr('r', str('x'.repeat(random(200)) + r))] } });
    const scope = (s: number) => ({ scope: { name: `s${s}`.repeat(random(30)) } });
    const randomBatches: SignalBatch[] = [];
    for (let round = 0; round < 30; round++) {
      randomBatches.push(
        logs(many(5, (r) => ({ ...envelope(r), scopeLogs: many(4, (s) => ({ ...scope(s), logRecords: many(40, (i) => logRecord(i, { body: str('b'.repeat(random(300))) })) })) }))),
        metrics(
          many(5, (r) => ({
            ...envelope(r),
            scopeMetrics: many(4, (s) => ({
              ...scope(s),
              metrics: many(6, (m) => ({
                name: `m${m}`.repeat(1 + random(40)),
                sum: { aggregationTemporality: AggregationTemporality.Delta, isMonotonic: true, dataPoints: many(30, (i) => numberPoint(i, { int: BigInt(random(1e9)) })) },
              })),
            })),
          })),
        ),
      );
    }
    let splitBatches = 0;
    for (const batch of randomBatches) {
      const bodies = expectSplit(batch, 600 + random(3000));
      expect(bodies.reduce((sum, b) => sum + b.records, 0)).toBe(flatten(batch).length);
      if (bodies.length > 1) splitBatches++;
    }
    expect(splitBatches).toBeGreaterThan(20);
  });

  it('rejects a record that cannot fit even alone with a 413 naming the signal and size', () => {
    const batch = logs([
      {
        resource: { attributes: [] },
        scopeLogs: [{ scope: { name: 's' }, logRecords: [logRecord(0), logRecord(1, { body: str('x'.repeat(5000)) }), logRecord(2)] }],
      },
    ]);
    let error: unknown;
    try {
      encodeExportRequests(batch, 4096);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RecordTooLargeError);
    expect(error).toBeInstanceOf(TooLargeError);
    expect(replyTo(error).status).toBe(413);
    const tooLarge = error as RecordTooLargeError;
    expect(tooLarge.signal).toBe('logs');
    expect(tooLarge.size).toBeGreaterThan(5000);
    expect(tooLarge.message).toContain('logs');
    expect(tooLarge.message).toContain(String(tooLarge.size));
    expect(tooLarge.message).toContain('4096');
  });

  it('counts the resource and scope when deciding that a record is too large', () => {
    const record = logRecord(0);
    const bare = encodeSingle(logs([{ resource: { attributes: [] }, scopeLogs: [{ scope: { name: '' }, logRecords: [record] }] }])).body.length;
    const heavyResource = logs([{ resource: { attributes: [attr('big', str('r'.repeat(bare)))] }, scopeLogs: [{ scope: { name: '' }, logRecords: [record] }] }]);
    expect(() => encodeExportRequests(heavyResource, bare + 10)).toThrow(RecordTooLargeError);
    const spanBatch = traces([{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 's' }, spans: [span(0, { name: 'n'.repeat(300) })] }] }]);
    expect(() => encodeExportRequests(spanBatch, 200)).toThrow(/traces: a single span encodes to \d+ bytes/);
  });
});

describe('the scratch buffer shared between requests', () => {
  const batchOf = (n: number, text: string): SignalBatch =>
    logs([{ resource: { attributes: [attr('service.name', str(text))] }, scopeLogs: [{ scope: { name: text }, logRecords: Array.from({ length: n }, (_, i) => logRecord(i, { body: str(`${text} ${i}`) })) }] }]);

  it('bodies already handed out stay intact while later requests reuse the scratch', () => {
    const first = encodeExportRequests(batchOf(300, 'first'), 4096);
    const copies = first.map((r) => Buffer.from(r.body));
    for (let round = 0; round < 3; round++) encodeExportRequests(batchOf(500, `later ${round}`), 4096);
    expect(first.map((r) => r.body)).toEqual(copies);
  });

  it('two stream encoders open at once each keep their own records', () => {
    const [a, b] = [logStreamEncoder(), logStreamEncoder()];
    const [ga, gb] = [a.group({ attributes: [attr('service.name', str('a'))] }, { name: 's' }), b.group({ attributes: [attr('service.name', str('b'))] }, { name: 's' })];
    for (let i = 0; i < 200; i++) {
      a.add(ga, logRecord(i, { body: str(`a ${i}`) }));
      b.add(gb, logRecord(i, { body: str(`b ${i}`) }));
    }
    const bodiesA = a.requests(NO_LIMIT);
    const bodiesB = b.requests(NO_LIMIT);
    const bodyTexts = (bodies: EncodedExport[]) => (decodeExportRequest('logs', bodies[0]!.body) as { resources: ResourceLogs[] }).resources[0]!.scopeLogs[0]!.logRecords.map((r) => (r.body as { string: string }).string);
    expect(bodyTexts(bodiesA)).toEqual(Array.from({ length: 200 }, (_, i) => `a ${i}`));
    expect(bodyTexts(bodiesB)).toEqual(Array.from({ length: 200 }, (_, i) => `b ${i}`));
  });

  it('a stream encoder hands its bodies out once', () => {
    const encoder = logStreamEncoder();
    encoder.add(encoder.group({ attributes: [] }, { name: 's' }), logRecord(1));
    expect(encoder.requests(NO_LIMIT)).toHaveLength(1);
    expect(() => encoder.requests(NO_LIMIT)).toThrow(/already/);
  });
});
