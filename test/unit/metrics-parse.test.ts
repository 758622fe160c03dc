/**
 * Metric body parsers: JSON v1/v2, protobuf v2 (packed and unpacked), sketches, check runs and
 * distribution points. Bad input is a 400 naming the field; odd but valid input (null values,
 * missing types, unknown fields) is read, not refused.
 */
import protobuf from 'protobufjs';
import { parseCheckRuns } from '../../src/signals/metrics/parse-check-run';
import { parseDistributionPoints } from '../../src/signals/metrics/parse-distribution';
import { decodeSketchPayload, decodeSketchPayloadInPieces } from '../../src/signals/metrics/parse-sketches';
import { parseSeriesV1 } from '../../src/signals/metrics/parse-v1';
import { parseSeriesV2Json } from '../../src/signals/metrics/parse-v2-json';
import { decodeMetricPayload } from '../../src/signals/metrics/parse-v2-proto';
import { encodeMetricPayload, encodeSketchPayload } from '../fixtures/metrics/agent-payloads';
import { badRequestMessage } from '../fixtures/metrics/bad-request';

const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));

describe('v1 series (JSON)', () => {
  it('reads every field', () => {
    const p = parseSeriesV1(
      json({
        series: [
          {
            metric: 'a.b',
            points: [
              [1700000000, 1.5],
              [1700000010, 2],
            ],
            type: 'rate',
            interval: 10,
            host: 'h',
            device: 'sda',
            tags: ['env:prod'],
            source_type_name: 'System',
            unit: 'byte',
          },
        ],
      }),
    );
    expect(p.series).toEqual([
      {
        metric: 'a.b',
        type: 'rate',
        points: [
          { timestamp: 1700000000, value: 1.5 },
          { timestamp: 1700000010, value: 2 },
        ],
        tags: ['env:prod'],
        resources: [
          { type: 'host', name: 'h' },
          { type: 'device', name: 'sda' },
        ],
        interval: 10,
        unit: 'byte',
        sourceTypeName: 'System',
      },
    ]);
    expect(p.dropped).toEqual({});
  });

  it('treats a missing type as a gauge and null tags as none', () => {
    const p = parseSeriesV1(json({ series: [{ metric: 'g', points: [[1, 2]], tags: null }] }));
    expect(p.series[0]).toMatchObject({ type: 'gauge', tags: [], resources: [], interval: 0 });
  });

  it('skips and counts null values instead of failing', () => {
    const p = parseSeriesV1(
      json({
        series: [
          {
            metric: 'g',
            points: [
              [1, null],
              [2, 3],
            ],
          },
        ],
      }),
    );
    expect(p.series[0]!.points).toEqual([{ timestamp: 2, value: 3 }]);
    expect(p.dropped).toEqual({ null_value: 1 });
  });

  it('drops (and counts) a series of an unknown type, keeping the rest', () => {
    const p = parseSeriesV1(
      json({
        series: [
          {
            metric: 'x',
            type: 'histogram',
            points: [
              [1, 2],
              [2, 3],
            ],
          },
          { metric: 'y', points: [[1, 2]] },
        ],
      }),
    );
    expect(p.series.map((s) => s.metric)).toEqual(['y']);
    expect(p.dropped).toEqual({ unknown_type: 2 });
  });

  it.each([
    [
      {
        series: [
          { metric: 'a', points: [[1, 2]] },
          { metric: 'b', points: [[1, 2]] },
          { metric: 'c', points: [[1, 2]] },
          { metric: 'd', points: [{ timestamp: 1 }] },
        ],
      },
      'v1 series: series[3].points[0]: expected [timestamp, value], got an object',
    ],
    [{ series: [{ metric: 'a', points: [[1, 2, 3]] }] }, 'series[0].points[0]: expected [timestamp, value], got an array'],
    [{ series: [{ metric: 'a', points: [['1', 2]] }] }, 'series[0].points[0][0]: expected a number, got string'],
    [{ series: [{ metric: 'a', points: [[1, '2']] }] }, 'series[0].points[0][1]: expected a number, got string'],
    [{ series: [{ points: [[1, 2]] }] }, 'series[0].metric: expected a non-empty string, got nothing'],
    [{ series: [{ metric: 'a', points: [[1, 2]], tags: [1] }] }, 'series[0].tags[0]: expected a string, got number'],
    [{ series: {} }, 'series: expected an array, got an object'],
    [[], '<body>: expected an object, got an array'],
  ])('refuses %j with a path', (body, message) => {
    expect(badRequestMessage(() => parseSeriesV1(json(body)))).toContain(message);
  });

  it('refuses a body that is not JSON', () => {
    expect(badRequestMessage(() => parseSeriesV1(Buffer.from('{"series":')))).toMatch(/^v1 series: body is not valid JSON/);
  });
});

describe('v2 series (JSON, as the API client sends)', () => {
  it('reads types by number, resources, unit and source', () => {
    const p = parseSeriesV2Json(json({ series: [{ metric: 'c', type: 1, points: [{ timestamp: 5, value: 7 }], resources: [{ name: 'h1', type: 'host' }], tags: ['a:b'], unit: 'request', interval: 0, source_type_name: 'api' }] }));
    expect(p.series).toEqual([{ metric: 'c', type: 'count', points: [{ timestamp: 5, value: 7 }], tags: ['a:b'], resources: [{ type: 'host', name: 'h1' }], interval: 0, unit: 'request', sourceTypeName: 'api' }]);
  });

  it('maps 0 and a missing type to gauge, 2 to rate, 3 to gauge, and drops unknown numbers', () => {
    const p = parseSeriesV2Json(
      json({
        series: [
          { metric: 'a', type: 0, points: [{ timestamp: 1, value: 1 }] },
          { metric: 'b', points: [{ timestamp: 1, value: 1 }] },
          { metric: 'c', type: 2, points: [{ timestamp: 1, value: 1 }] },
          { metric: 'd', type: 3, points: [{ timestamp: 1, value: 1 }] },
          { metric: 'e', type: 9, points: [{ timestamp: 1, value: 1 }] },
        ],
      }),
    );
    expect(p.series.map((s) => [s.metric, s.type])).toEqual([
      ['a', 'gauge'],
      ['b', 'gauge'],
      ['c', 'rate'],
      ['d', 'gauge'],
    ]);
    expect(p.dropped).toEqual({ unknown_type: 1 });
  });

  it('counts null values and refuses malformed points with a path', () => {
    expect(parseSeriesV2Json(json({ series: [{ metric: 'a', points: [{ timestamp: 1, value: null }] }] })).dropped).toEqual({ null_value: 1 });
    expect(badRequestMessage(() => parseSeriesV2Json(json({ series: [{ metric: 'a', points: [[1, 2]] }] })))).toContain('v2 series: series[0].points[0]: expected an object, got an array');
    expect(badRequestMessage(() => parseSeriesV2Json(json({ series: [{ metric: 'a', points: [], resources: [1] }] })))).toContain('series[0].resources[0]: expected an object');
  });
});

describe('v2 series (protobuf MetricPayload, as the agent sends)', () => {
  const agentSeries = {
    resources: [
      { type: 'host', name: 'web-1' },
      { type: 'device', name: 'sda' },
    ],
    metric: 'system.disk.used',
    tags: ['env:prod', 'role:db'],
    points: [
      { value: 12.5, timestamp: 1700000000 },
      { value: 13, timestamp: 1700000010 },
    ],
    type: 3,
    sourceTypeName: 'System',
    interval: 10,
    metadata: { origin: { originProduct: 10, originMetricType: 9 } },
  };

  it('reads series, points, resources and ignores origin metadata', () => {
    const p = decodeMetricPayload(encodeMetricPayload({ series: [agentSeries, { metric: 'dd.count', type: 1, points: [{ value: 3, timestamp: 1700000000 }] }] }));
    expect(p.series).toEqual([
      {
        metric: 'system.disk.used',
        type: 'gauge',
        points: [
          { timestamp: 1700000000, value: 12.5 },
          { timestamp: 1700000010, value: 13 },
        ],
        tags: ['env:prod', 'role:db'],
        resources: agentSeries.resources,
        interval: 10,
        unit: '',
        sourceTypeName: 'System',
      },
      { metric: 'dd.count', type: 'count', points: [{ timestamp: 1700000000, value: 3 }], tags: [], resources: [], interval: 0, unit: '', sourceTypeName: '' },
    ]);
  });

  it('skips fields it does not know (newer agents) and fields of an unexpected wire type', () => {
    const w = protobuf.Writer.create();
    w.uint32((1 << 3) | 2).fork();
    w.uint32((2 << 3) | 2).string('m');
    w.uint32((99 << 3) | 0).uint64(7); // unknown varint
    w.uint32((98 << 3) | 2).bytes(Buffer.from('xx')); // unknown bytes
    w.uint32((5 << 3) | 1).fixed64(3); // type with the wrong wire type: skipped
    w.uint32((4 << 3) | 2)
      .fork()
      .uint32((1 << 3) | 1)
      .double(2)
      .uint32((2 << 3) | 0)
      .int64(9)
      .ldelim();
    w.ldelim();
    const p = decodeMetricPayload(w.finish());
    expect(p.series).toEqual([expect.objectContaining({ metric: 'm', type: 'gauge', points: [{ timestamp: 9, value: 2 }] })]);
  });

  it('refuses truncated bodies and empty names with the field path', () => {
    const body = encodeMetricPayload({ series: [agentSeries] });
    expect(badRequestMessage(() => decodeMetricPayload(body.subarray(0, body.length - 3)))).toMatch(/^v2 series: invalid protobuf: MetricPayload: needs \d+ bytes/);
    const inner = encodeMetricPayload({ series: [agentSeries, { ...agentSeries, points: [{ value: 1, timestamp: 1 }] }] });
    expect(badRequestMessage(() => decodeMetricPayload(Buffer.concat([inner, Buffer.from([0x0a, 0x04, 0x22, 0x02, 0x10, 0x80])])))).toContain('MetricPayload.series[2].points[0]: truncated varint');
    expect(badRequestMessage(() => decodeMetricPayload(encodeMetricPayload({ series: [{ points: [{ value: 1, timestamp: 1 }] }] })))).toContain('MetricPayload.series[0]: metric name is empty');
  });
});

describe('sketches (protobuf SketchPayload)', () => {
  const dogsketch = { ts: 1700000000, cnt: 3, min: 1, max: 9, avg: 4, sum: 12, k: [-1400, 0, 1338, 1500], n: [1, 1, 0, 1] };

  it('reads sketches with packed keys and counts', () => {
    const p = decodeSketchPayload(encodeSketchPayload({ sketches: [{ metric: 'latency', host: 'h', tags: ['service:api'], dogsketches: [dogsketch] }], metadata: {} }));
    expect(p.sketches).toEqual([{ metric: 'latency', tags: ['service:api'], resources: [{ type: 'host', name: 'h' }], points: [{ timestamp: 1700000000, count: 3, sum: 12, min: 1, max: 9, keys: [-1400, 0, 1338, 1500], counts: [1, 1, 0, 1] }] }]);
  });

  it('reads unpacked keys and counts too, and the agent’s empty metadata footer', () => {
    const w = protobuf.Writer.create();
    w.uint32((1 << 3) | 2).fork();
    w.uint32((1 << 3) | 2).string('s');
    w.uint32((7 << 3) | 2).fork();
    w.uint32((1 << 3) | 0)
      .int64(5)
      .uint32((2 << 3) | 0)
      .int64(2);
    for (const k of [-3, 1400]) w.uint32((7 << 3) | 0).sint32(k);
    for (const n of [1, 1]) w.uint32((8 << 3) | 0).uint32(n);
    w.ldelim().ldelim();
    w.uint32((2 << 3) | 2).uint32(0);
    const p = decodeSketchPayload(w.finish());
    expect(p.sketches[0]!.points[0]).toMatchObject({ timestamp: 5, count: 2, keys: [-3, 1400], counts: [1, 1] });
    expect(p.sketches[0]!.resources).toEqual([]);
  });

  it('refuses keys and counts of different lengths', () => {
    const body = encodeSketchPayload({ sketches: [{ metric: 's', dogsketches: [{ ...dogsketch, n: [1] }] }] });
    expect(badRequestMessage(() => decodeSketchPayload(body))).toContain('SketchPayload.sketches[0].dogsketches[0]: 4 bin keys (k) but 1 counts (n)');
  });

  it('hands sketches over in pieces, in order, and numbers a malformed one from the whole body', () => {
    const five = encodeSketchPayload({ sketches: Array.from({ length: 5 }, (_, i) => ({ metric: `s${i}`, dogsketches: [dogsketch] })) });
    const pieces: string[][] = [];
    decodeSketchPayloadInPieces(five, 2, (piece) => pieces.push(piece.sketches.map((s) => s.metric)));
    expect(pieces).toEqual([['s0', 's1'], ['s2', 's3'], ['s4']]);
    expect(pieces.flat()).toEqual(decodeSketchPayload(five).sketches.map((s) => s.metric));
    const bad = Buffer.concat([five, encodeSketchPayload({ sketches: [{ metric: 'x', dogsketches: [{ ...dogsketch, n: [1] }] }] })]);
    const before: number[] = [];
    expect(badRequestMessage(() => decodeSketchPayloadInPieces(bad, 2, (piece) => before.push(piece.sketches.length)))).toContain('SketchPayload.sketches[5].dogsketches[0]: 4 bin keys (k) but 1 counts (n)');
    expect(before).toEqual([2, 2]);
  });
});

describe('check runs', () => {
  it('reads an array (tags may be null) and a single object', () => {
    expect(parseCheckRuns(json([{ check: 'datadog.agent.up', host_name: 'h', timestamp: 1700000000, status: 0, message: '', tags: null }])).serviceChecks).toEqual([
      { check: 'datadog.agent.up', hostName: 'h', timestamp: 1700000000, status: 0, message: '', tags: [] },
    ]);
    expect(parseCheckRuns(json({ check: 'app.ok', status: 2, message: 'down', tags: ['env:prod'] })).serviceChecks).toEqual([{ check: 'app.ok', hostName: '', timestamp: undefined, status: 2, message: 'down', tags: ['env:prod'] }]);
    expect(parseCheckRuns(json([])).serviceChecks).toEqual([]);
  });

  it('refuses what is not a check with a path', () => {
    expect(
      badRequestMessage(() =>
        parseCheckRuns(
          json([
            { check: 'a', status: 0 },
            { check: 'b', status: 'ok' },
          ]),
        ),
      ),
    ).toContain('check_run: [1].status: expected a number, got string');
    expect(badRequestMessage(() => parseCheckRuns(json([{ check: 'a', status: 0.5 }])))).toContain('[0].status: expected an integer 0–3');
    expect(badRequestMessage(() => parseCheckRuns(json('x')))).toContain('<body>: expected an array of service checks or one service check, got string');
  });
});

describe('distribution points', () => {
  it('reads raw values per timestamp and counts nulls', () => {
    const p = parseDistributionPoints(json({ series: [{ metric: 'd', points: [[10, [1, null, 2.5]]], host: 'h', tags: ['a:b'], type: 'distribution' }] }));
    expect(p.distributions).toEqual([{ metric: 'd', tags: ['a:b'], resources: [{ type: 'host', name: 'h' }], points: [{ timestamp: 10, values: [1, 2.5] }] }]);
    expect(p.dropped).toEqual({ null_value: 1 });
  });

  it('refuses points that are not [timestamp, [values]]', () => {
    expect(badRequestMessage(() => parseDistributionPoints(json({ series: [{ metric: 'd', points: [[10, 1]] }] })))).toContain('distribution_points: series[0].points[0][1]: expected an array, got number');
    expect(badRequestMessage(() => parseDistributionPoints(json({ series: [{ metric: 'd', points: [10] }] })))).toContain('series[0].points[0]: expected [timestamp, [values]], got number');
  });
});
