/**
 * The v3 columnar decoder: dictionaries, delta-encoded refs and timestamps, sparse units, value
 * types, sketch points, payload metadata, the agent's multi-stream framing, and the 400s for
 * references that point outside their dictionary or columns that do not line up.
 */
import { decodeBody } from '../../src/http/decode';
import { decodeV3Payload, MAX_EXPANDED_TAGS } from '../../src/signals/metrics/parse-v3';
import { agentV3Body, encodeV3Payload, v3Body, v3MetricData, type V3Series } from '../fixtures/metrics/agent-payloads';
import { badRequestMessage } from '../fixtures/metrics/bad-request';

const T = 1_700_000_000;

/** A payload from explicit columns, for the cases the builder would never write. */
const columns = (metricData: Record<string, unknown>, metadata?: Record<string, unknown>): Buffer => encodeV3Payload({ metricData, ...(metadata ? { metadata } : {}) });
const dict = (...strings: string[]): Buffer => Buffer.concat(strings.map((s) => Buffer.concat([Buffer.from([Buffer.byteLength(s)]), Buffer.from(s)])));
const oneGauge = { dictNameStr: dict('m'), types: [0x13], nameRefs: [1], tagsetRefs: [0], resourcesRefs: [0], intervals: [0], numPoints: [1], sourceTypeNameRefs: [0], timestamps: [T], valsSint64: [7] };

describe('v3 series', () => {
  const series: V3Series[] = [
    {
      name: 'cpu',
      type: 'gauge',
      tags: ['env:prod', 'role:web'],
      resources: [['host', 'h1']],
      interval: 10,
      points: [
        { ts: T, value: 0.5 },
        { ts: T + 10, value: 0.25 },
      ],
    },
    { name: 'req', type: 'rate', tags: ['role:web', 'env:prod'], resources: [['host', 'h1']], interval: 10, unit: 'request', sourceTypeName: 'dogstatsd', points: [{ ts: T, value: 3 }] },
    { name: 'zero', type: 'count', interval: 15, points: [{ ts: T + 5, value: 0 }] },
    {
      name: 'big',
      type: 'gauge',
      resources: [
        ['host', 'h2'],
        ['device', 'sda'],
      ],
      unit: 'byte',
      points: [{ ts: T - 100, value: 1.1e300 }],
    },
    { name: 'cpu', type: 'gauge', tags: ['env:dev'], points: [{ ts: T, value: 1 / 3 }] },
  ];

  it('decodes every series the builder wrote, in order', () => {
    const p = decodeV3Payload(v3Body(series));
    expect(p.series).toEqual([
      {
        metric: 'cpu',
        type: 'gauge',
        points: [
          { timestamp: T, value: 0.5 },
          { timestamp: T + 10, value: 0.25 },
        ],
        tags: ['env:prod', 'role:web'],
        resources: [{ type: 'host', name: 'h1' }],
        interval: 10,
        unit: '',
        sourceTypeName: '',
      },
      { metric: 'req', type: 'rate', points: [{ timestamp: T, value: 3 }], tags: ['env:prod', 'role:web'], resources: [{ type: 'host', name: 'h1' }], interval: 10, unit: 'request', sourceTypeName: 'dogstatsd' },
      { metric: 'zero', type: 'count', points: [{ timestamp: T + 5, value: 0 }], tags: [], resources: [], interval: 15, unit: '', sourceTypeName: '' },
      {
        metric: 'big',
        type: 'gauge',
        points: [{ timestamp: T - 100, value: 1.1e300 }],
        tags: [],
        resources: [
          { type: 'host', name: 'h2' },
          { type: 'device', name: 'sda' },
        ],
        interval: 0,
        unit: 'byte',
        sourceTypeName: '',
      },
      { metric: 'cpu', type: 'gauge', points: [{ timestamp: T, value: 1 / 3 }], tags: ['env:dev'], resources: [], interval: 0, unit: '', sourceTypeName: '' },
    ]);
    expect(p.sketches).toEqual([]);
  });

  it('reads each value type from its own column (zero, sint64, float32, float64)', () => {
    const p = decodeV3Payload(
      v3Body([
        { name: 'a', type: 'gauge', valueType: 'zero', points: [{ ts: T, value: 0 }] },
        { name: 'b', type: 'gauge', valueType: 'sint64', points: [{ ts: T, value: -42 }] },
        { name: 'c', type: 'gauge', valueType: 'float32', points: [{ ts: T, value: 0.5 }] },
        { name: 'd', type: 'gauge', valueType: 'float64', points: [{ ts: T, value: 0.1 }] },
      ]),
    );
    expect(p.series.map((s) => s.points[0]!.value)).toEqual([0, -42, 0.5, 0.1]);
  });

  it('decodes hand-computed delta columns', () => {
    // names: a=1, b=2; series refs a, b, a → deltas 1, 1, -1; timestamps T, T+10, T-5 → deltas
    const p = decodeV3Payload(
      columns({
        dictNameStr: dict('a', 'b'),
        types: [0x13, 0x13, 0x13],
        nameRefs: [1, 1, -1],
        tagsetRefs: [0, 0, 0],
        resourcesRefs: [0, 0, 0],
        intervals: [10, 0, 20],
        numPoints: [1, 1, 1],
        sourceTypeNameRefs: [0, 0, 0],
        timestamps: [T, 10, -15],
        valsSint64: [1, 2, 3],
      }),
    );
    expect(p.series.map((s) => [s.metric, s.points[0]!.timestamp, s.points[0]!.value, s.interval])).toEqual([
      ['a', T, 1, 10],
      ['b', T + 10, 2, 0],
      ['a', T - 5, 3, 20],
    ]);
  });

  it('splices an earlier tagset where a running tag ref goes negative', () => {
    // tagset 1 = [bar, foo]; tagset 2 = splice(1) + ook + eek (refs -1, 3, 4 → deltas -1, 4, 1)
    const p = decodeV3Payload(columns({ ...oneGauge, dictTagStr: dict('bar', 'foo', 'ook', 'eek'), dictTagsets: [2, 1, 1, 3, -1, 4, 1], tagsetRefs: [2] }));
    expect(p.series[0]!.tags).toEqual(['bar', 'foo', 'ook', 'eek']);
  });

  it('restarts resource type/name deltas at every resource set', () => {
    const p = decodeV3Payload(columns({ ...oneGauge, dictResourceStr: dict('host', 'h', 'device', 'sda'), dictResourceLen: [1, 2], dictResourceType: [1, 1, 2], dictResourceName: [2, 2, 2], resourcesRefs: [2] }));
    expect(p.series[0]!.resources).toEqual([
      { type: 'host', name: 'h' },
      { type: 'device', name: 'sda' },
    ]);
  });

  it('unions payload metadata tags into every tagset and appends metadata resources to real sets only', () => {
    const body = encodeV3Payload({
      metadata: { tags: ['env:prod', 'team:core'], resources: ['cluster', 'c1'] },
      metricData: v3MetricData([
        { name: 'a', type: 'gauge', tags: ['env:prod', 'x:1'], resources: [['host', 'h']], points: [{ ts: T, value: 1 }] },
        { name: 'b', type: 'gauge', points: [{ ts: T, value: 1 }] },
      ]),
    });
    const [a, b] = decodeV3Payload(body).series;
    expect(a!.tags).toEqual(['env:prod', 'x:1', 'team:core']);
    expect(a!.resources).toEqual([
      { type: 'host', name: 'h' },
      { type: 'cluster', name: 'c1' },
    ]);
    expect(b!.tags).toEqual(['env:prod', 'team:core']);
    expect(b!.resources).toEqual([]);
  });

  it('drops and counts series of an unknown metric type, keeping the columns aligned', () => {
    const p = decodeV3Payload(
      v3Body([
        {
          name: 'u',
          type: 'unused',
          points: [
            { ts: T, value: 5 },
            { ts: T + 1, value: 6 },
          ],
        },
        { name: 'k', type: 'gauge', points: [{ ts: T + 2, value: 7 }] },
      ]),
    );
    expect(p.series.map((s) => [s.metric, s.points])).toEqual([['k', [{ timestamp: T + 2, value: 7 }]]]);
    expect(p.dropped).toEqual({ unknown_type: 2 });
  });

  it('replaces invalid UTF-8 in tags but refuses it in metric names', () => {
    const badTag = Buffer.from([3, 0x61, 0xff, 0x62]);
    expect(decodeV3Payload(columns({ ...oneGauge, dictTagStr: badTag, dictTagsets: [1, 1], tagsetRefs: [1] })).series[0]!.tags).toEqual(['a\ufffdb']);
    expect(badRequestMessage(() => decodeV3Payload(columns({ ...oneGauge, dictNameStr: badTag })))).toContain('dictNameStr[1] is not valid UTF-8');
  });
});

describe('v3 sketches', () => {
  it('reads summaries from the value column, counts from valsSint64 and per-point delta keys', () => {
    const p = decodeV3Payload(
      v3Body([
        {
          name: 'lat',
          type: 'sketch',
          tags: ['service:api'],
          resources: [['host', 'h']],
          points: [
            { ts: T, sketch: { sum: 10.5, min: 0.5, max: 9.75, cnt: 3, k: [-1400, 0, 1338, 1500], n: [1, 1, 0, 1] } },
            { ts: T + 10, sketch: { sum: 4, min: 2, max: 2, cnt: 2, k: [1383], n: [2] } },
          ],
        },
        { name: 'ints', type: 'sketch', valueType: 'sint64', points: [{ ts: T, sketch: { sum: 6, min: 1, max: 5, cnt: 2, k: [1338, 1450], n: [1, 1] } }] },
        { name: 'empty', type: 'sketch', valueType: 'zero', points: [{ ts: T, sketch: { sum: 0, min: 0, max: 0, cnt: 4, k: [0], n: [4] } }] },
      ]),
    );
    expect(p.series).toEqual([]);
    expect(p.sketches).toEqual([
      {
        metric: 'lat',
        tags: ['service:api'],
        resources: [{ type: 'host', name: 'h' }],
        points: [
          { timestamp: T, count: 3, sum: 10.5, min: 0.5, max: 9.75, keys: [-1400, 0, 1338, 1500], counts: [1, 1, 0, 1] },
          { timestamp: T + 10, count: 2, sum: 4, min: 2, max: 2, keys: [1383], counts: [2] },
        ],
      },
      { metric: 'ints', tags: [], resources: [], points: [{ timestamp: T, count: 2, sum: 6, min: 1, max: 5, keys: [1338, 1450], counts: [1, 1] }] },
      { metric: 'empty', tags: [], resources: [], points: [{ timestamp: T, count: 4, sum: 0, min: 0, max: 0, keys: [0], counts: [4] }] },
    ]);
  });
});

describe('v3 framing', () => {
  it('decodes the agent’s separately compressed header and columns as one payload', async () => {
    const series: V3Series[] = [{ name: 'a', type: 'count', interval: 10, tags: ['x:y'], points: [{ ts: T, value: 2 }] }];
    const wire = await agentV3Body(series);
    const body = await decodeBody(wire, 'zstd', { maxDecodedBytes: 64 << 20 });
    expect(body).toEqual(v3Body(series));
    expect(decodeV3Payload(body).series).toEqual(decodeV3Payload(v3Body(series)).series);
  });

  it('decodes concatenated Payload messages block by block, each with its own dictionaries', () => {
    const first = v3Body([{ name: 'first', type: 'gauge', tags: ['a:1'], points: [{ ts: T, value: 1 }] }]);
    const second = v3Body([{ name: 'second', type: 'gauge', tags: ['b:2'], points: [{ ts: T + 60, value: 2 }] }]);
    const p = decodeV3Payload(Buffer.concat([first, second]));
    expect(p.series.map((s) => [s.metric, s.tags, s.points[0]!.timestamp])).toEqual([
      ['first', ['a:1'], T],
      ['second', ['b:2'], T + 60],
    ]);
  });

  it('reads an empty payload as nothing', () => {
    expect(decodeV3Payload(Buffer.alloc(0)).series).toEqual([]);
  });
});

describe('v3 references and columns that do not line up → 400', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['name ref past the dictionary', { ...oneGauge, nameRefs: [2] }, 'reference 2 is outside dictNameStr (1 entries)'],
    ['negative name ref', { ...oneGauge, nameRefs: [-1] }, 'reference -1 is outside dictNameStr'],
    ['tagset ref past the dictionary', { ...oneGauge, tagsetRefs: [1] }, 'reference 1 is outside dictTagsets (0 entries)'],
    ['resources ref past the dictionary', { ...oneGauge, resourcesRefs: [3] }, 'reference 3 is outside dictResourceLen'],
    ['source type ref past the dictionary', { ...oneGauge, sourceTypeNameRefs: [1] }, 'outside dictSourceTypeName'],
    ['unit ref past the dictionary', { ...oneGauge, types: [0x213], unitRefs: [1] }, 'outside dictUnitStr'],
    ['unit flag without a unit ref', { ...oneGauge, types: [0x213] }, 'unitRefs has only 0 entries'],
    ['tag ref past the tag strings', { ...oneGauge, dictTagStr: dict('a'), dictTagsets: [1, 2], tagsetRefs: [1] }, 'reference 2 is outside dictTagStr (1 entries)'],
    ['splice of a tagset not yet defined', { ...oneGauge, dictTagsets: [1, -1], tagsetRefs: [1] }, 'reference 1 is outside dictTagsets (splice)'],
    ['tagset longer than the column', { ...oneGauge, dictTagsets: [5, 1], tagsetRefs: [1] }, 'dictTagsets[0] announces 5 tags, 1 entries left'],
    ['resource set past the type refs', { ...oneGauge, dictResourceStr: dict('host'), dictResourceLen: [2], dictResourceType: [1], dictResourceName: [1], resourcesRefs: [1] }, 'dictResourceLen[0] = 2 runs past'],
    ['resource string ref past the dictionary', { ...oneGauge, dictResourceStr: dict('host'), dictResourceLen: [1], dictResourceType: [1], dictResourceName: [4], resourcesRefs: [1] }, 'reference 4 is outside dictResourceStr'],
    ['more points than timestamps', { ...oneGauge, numPoints: [2] }, 'timestamps has only 1 entries'],
    ['an absurd point count', { ...oneGauge, numPoints: [2 ** 40] }, 'timestamps has only 1 entries'],
    ['fewer values than points', { ...oneGauge, valsSint64: [] }, 'valsSint64 has only 0 entries'],
    ['a series with no name ref', { ...oneGauge, types: [0x13, 0x13] }, 'nameRefs has only 1 entries'],
    ['sketch bins past the keys', { ...oneGauge, types: [0x04], valsSint64: [1], sketchNumBins: [3], sketchBinKeys: [1338], sketchBinCnts: [1] }, 'sketchBinKeys has only 1 entries left, a sketch point needs 3'],
    ['unknown value type', { ...oneGauge, types: [0x43] }, 'unknown value type 0x40'],
    ['empty metric name', { ...oneGauge, nameRefs: [0] }, 'empty metric name'],
  ])('%s', (_case, data, message) => {
    expect(badRequestMessage(() => decodeV3Payload(columns(data)))).toContain(message);
  });

  it('refuses odd metadata resources', () => {
    expect(badRequestMessage(() => decodeV3Payload(columns(oneGauge, { resources: ['host'] })))).toContain('metadata.resources must be [type, name] pairs');
  });

  it('refuses tagsets that splice themselves into a tag bomb', () => {
    // each tagset splices the previous one twice: 2^n tags from 3n numbers
    const packed = [1, 1];
    for (let i = 1; i < 40; i++) packed.push(2, -i, 0);
    expect(badRequestMessage(() => decodeV3Payload(columns({ ...oneGauge, dictTagStr: dict('t'), dictTagsets: packed })))).toContain(`tagsets expand to more than ${MAX_EXPANDED_TAGS} tags`);
  });

  it('refuses metadata tags that would be copied into too many tagsets', () => {
    const packed = Array.from({ length: 10_000 }, () => [1, 1]).flat();
    const metadata = { tags: Array.from({ length: 500 }, (_, i) => `m:${i}`) };
    expect(badRequestMessage(() => decodeV3Payload(columns({ ...oneGauge, dictTagStr: dict('t'), dictTagsets: packed }, metadata)))).toContain('tagsets with metadata tags expand to more than');
  });

  it('refuses a truncated body with the protobuf path', () => {
    const body = v3Body([{ name: 'a', type: 'gauge', points: [{ ts: T, value: 1.5 }] }]);
    expect(badRequestMessage(() => decodeV3Payload(body.subarray(0, body.length - 2)))).toMatch(/^v3 metrics: invalid protobuf: Payload: needs/);
  });
});
