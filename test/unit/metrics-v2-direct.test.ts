/**
 * The direct MetricPayload reader against the generic field-table path: whatever the direct reader
 * accepts must be exactly what the generic path makes of the same bytes, and it must give up on
 * every body the generic path refuses, so that error (with its field path) stays the only answer.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { addDrops, emptyPayload, type MetricsPayload } from '../../src/signals/metrics/datadog';
import { BODY_START, readMetricPayloadPieces, type FieldAt } from '../../src/signals/metrics/parse-v2-proto-direct';
import { fastElseGeneral } from '../../src/signals/shared/fast-path';
import { decodeMetricPayload, decodeMetricPayloadGeneric, decodeMetricPayloadInPieces } from '../../src/signals/metrics/parse-v2-proto';
import { expectFastPathAgrees } from '../helpers/fuzz';
import { encodeMetricPayload } from '../fixtures/metrics/agent-payloads';

const CHAIN = join(__dirname, '..', 'fixtures', 'metrics', 'chain');
const goldenSeeds = readdirSync(CHAIN)
  .map((f) => JSON.parse(readFileSync(join(CHAIN, f), 'utf8')) as { format: string; input: Record<string, unknown> })
  .filter((g) => g.format === 'v2-proto')
  .map((g) => encodeMetricPayload(g.input));

const T = 1_700_000_000;
const series = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  resources: [{ type: 'host', name: 'h' }],
  metric: 'm',
  tags: ['env:prod', 'é'.repeat(20), 'x'.repeat(80), ''],
  points: [{ value: 1.5, timestamp: T }],
  type: 3,
  interval: 10,
  ...extra,
});

/** A hand-written body, for what encodeMetricPayload will not write. */
function written(write: (w: protobuf.Writer) => void): Buffer {
  const w = protobuf.Writer.create();
  write(w);
  return Buffer.from(w.finish());
}

const edgeSeeds: Buffer[] = [
  encodeMetricPayload({ series: [series(), series({ type: 1, unit: 'ms', sourceTypeName: 'src' }), series({ type: 7 }), series({ type: 2, points: [] })] }),
  encodeMetricPayload({
    series: [
      series({
        points: [
          { value: -0, timestamp: 2 ** 48 },
          { value: Number.NaN, timestamp: 0 },
        ],
      }),
    ],
  }),
  encodeMetricPayload({ series: [series({ type: -1 })] }), // a sign-extended ten-byte int32
  encodeMetricPayload({ series: [series({ points: [{ value: 1, timestamp: 2 ** 52 }] })] }), // past 2^49
  encodeMetricPayload({ series: [series({ metric: '' })] }),
  encodeMetricPayload({}),
  // unknown fields, known fields with another wire type, repeated scalars (last wins), groups
  written((w) => {
    w.uint32((1 << 3) | 2).fork();
    w.uint32((2 << 3) | 2).string('first');
    w.uint32((99 << 3) | 0).uint64(7);
    w.uint32((98 << 3) | 2).bytes(Buffer.from('xx'));
    w.uint32((97 << 3) | 5).fixed32(1);
    w.uint32((5 << 3) | 1).fixed64(3);
    w.uint32((5 << 3) | 0).int32(1);
    w.uint32((5 << 3) | 0).int32(2);
    w.uint32((2 << 3) | 2).string('last');
    w.uint32((3 << 3) | 0).uint32(5);
    w.uint32((4 << 3) | 2)
      .fork()
      .uint32((1 << 3) | 1)
      .double(2)
      .uint32((2 << 3) | 0)
      .int64(9)
      .uint32((2 << 3) | 0)
      .int64(11)
      .uint32((3 << 3) | 2)
      .string('?')
      .ldelim();
    w.uint32((1 << 3) | 2)
      .fork()
      .uint32((2 << 3) | 2)
      .string('n')
      .uint32((1 << 3) | 2)
      .string('t')
      .uint32((3 << 3) | 0)
      .uint32(1)
      .ldelim();
    w.ldelim();
    w.uint32((2 << 3) | 2).string('payload-level unknown');
  }),
  written((w) =>
    w
      .uint32((1 << 3) | 2)
      .fork()
      .uint32((2 << 3) | 2)
      .string('m')
      .uint32((9 << 3) | 3)
      .uint32((9 << 3) | 4)
      .ldelim(),
  ),
  // tags split around other fields: appended in order
  written((w) =>
    w
      .uint32((1 << 3) | 2)
      .fork()
      .uint32((3 << 3) | 2)
      .string('a:1')
      .uint32((2 << 3) | 2)
      .string('m')
      .uint32((3 << 3) | 2)
      .string('b:2')
      .uint32((3 << 3) | 2)
      .string('c:3')
      .ldelim(),
  ),
  // a tag key written in two bytes (0x9a 0x00), then a one-byte one
  Buffer.from([0x0a, 14, 0x12, 1, 0x6d, 0x9a, 0x00, 3, 0x61, 0x3a, 0x31, 0x1a, 3, 0x62, 0x3a, 0x32]),
  written((w) => w.uint32(0).uint32(1)), // field number 0
  written((w) =>
    w
      .uint32((1 << 3) | 2)
      .fork()
      .uint32((2 << 3) | 2)
      .string('m')
      .uint32((99 << 3) | 0)
      .uint64('18446744073709551615')
      .ldelim(),
  ),
];

/** Where the direct reader alone gives up, or undefined when it read the whole body. */
const gaveUpAt = (body: Buffer, pieceSize: number, take: (piece: MetricsPayload) => void): FieldAt | undefined =>
  fastElseGeneral(
    (progress): FieldAt | undefined => {
      readMetricPayloadPieces(body, pieceSize, take, progress);
      return undefined;
    },
    (from) => from,
    BODY_START,
  );

/** The direct reader alone: the whole payload in one piece, or undefined where it gives up. */
function readMetricPayload(body: Buffer): MetricsPayload | undefined {
  let whole: MetricsPayload | undefined;
  return gaveUpAt(body, Infinity, (piece) => (whole = piece)) ? undefined : whole;
}

/** What `read` returns, or the error it throws. */
function attempt<T>(read: () => T): T | Error {
  try {
    return read();
  } catch (err) {
    return err as Error;
  }
}

/** The generic path's answer, or its error. */
const generic = (input: Buffer): MetricsPayload | Error => attempt(() => decodeMetricPayloadGeneric(input));

/** The direct reader's answer checked against the generic path's. */
function compare(input: Buffer): 'direct' | 'generic' {
  const direct = readMetricPayload(input);
  const expected = generic(input);
  if (direct === undefined) return 'generic';
  expect(expected).not.toBeInstanceOf(Error);
  expect(direct).toEqual(expected);
  return 'direct';
}

describe('MetricPayload direct reader', () => {
  it('reads every golden agent payload exactly as the generic path does', () => {
    expect(goldenSeeds.length).toBeGreaterThan(0);
    for (const seed of goldenSeeds) expect(compare(seed)).toBe('direct');
  });

  it.each(edgeSeeds.map((b, i) => [i, b] as const))('edge case %i: the same answer, or the generic path answers', (_i, input) => {
    compare(input);
    const expected = generic(input);
    let routed: MetricsPayload | Error;
    try {
      routed = decodeMetricPayload(input);
    } catch (err) {
      routed = err as Error;
    }
    if (expected instanceof Error) expect((routed as Error).message).toBe(expected.message);
    else expect(routed).toEqual(expected);
  });

  it('reads unknown fields, other wire types and repeated scalars the generic way, and drops unknown types', () => {
    expect(compare(edgeSeeds[0]!)).toBe('direct');
    expect(readMetricPayload(edgeSeeds[0]!)?.dropped).toEqual({ unknown_type: 1 });
    expect(compare(edgeSeeds[6]!)).toBe('direct');
    expect(readMetricPayload(edgeSeeds[6]!)?.series[0]).toMatchObject({ metric: 'last', type: 'rate', points: [{ value: 2, timestamp: 11 }], resources: [{ type: 't', name: 'n' }] });
  });

  it('gives up on what the generic path refuses or reads with BigInt', () => {
    for (const i of [2, 3, 4, 7, 10]) expect(readMetricPayload(edgeSeeds[i]!)).toBeUndefined();
    const body = encodeMetricPayload({ series: [series()] });
    expect(readMetricPayload(body.subarray(0, body.length - 3))).toBeUndefined();
  });

  it('reads tags split around other fields, and a tag key written in two bytes, in order', () => {
    const [split, wideKey] = edgeSeeds.slice(8, 10) as [Buffer, Buffer];
    expect(compare(split)).toBe('direct');
    expect(readMetricPayload(split)?.series[0]?.tags).toEqual(['a:1', 'b:2', 'c:3']);
    expect(compare(wideKey)).toBe('direct');
    expect(readMetricPayload(wideKey)?.series[0]?.tags).toEqual(['a:1', 'b:2']);
  });

  it('interns a run of tags: the same bytes in another payload give the same frozen list', () => {
    const tags = ['service:web', 'env:prod', `pod:${'p'.repeat(40)}`];
    const one = readMetricPayload(encodeMetricPayload({ series: [series({ tags }), series({ metric: 'n', tags })] }))!;
    const two = readMetricPayload(encodeMetricPayload({ series: [series({ metric: 'o', tags })] }))!;
    const lists = [...one.series, ...two.series].map((s) => s.tags);
    expect(lists[0]).toEqual(tags);
    expect(Object.isFrozen(lists[0])).toBe(true);
    expect(lists.every((l) => l === lists[0])).toBe(true);
    expect(readMetricPayload(encodeMetricPayload({ series: [series({ tags: [...tags, 'x:1'] })] }))!.series[0]!.tags).toEqual([...tags, 'x:1']);
  });

  it('keeps every run of a payload interned when runs share a slot (a run has two places)', () => {
    // 128 runs in 2,048 slots: one place each would leave a few pairs evicting each other, and each
    // eviction is a new list, so a new origin for every series of it (resource.ts memoizes by list)
    const runs = Array.from({ length: 128 }, (_, i) => ['service:web', `pod_name:web-${(i * 7919).toString(36)}`, `status_code:${200 + i}`]);
    const body = encodeMetricPayload({ series: runs.map((tags, i) => series({ metric: `shared.${i}`, tags })) });
    const first = readMetricPayload(body)!.series.map((s) => s.tags);
    const again = readMetricPayload(body)!.series.map((s) => s.tags);
    expect(again).toEqual(runs);
    expect(again.filter((tags, i) => tags !== first[i])).toEqual([]);
  });

  it('never hands one run another’s tags, with more distinct runs than the cache has slots', () => {
    const runs = Array.from({ length: 5000 }, (_, i) => [`id:${i}`, `half:${i >> 1}`]);
    for (let round = 0; round < 2; round++) {
      const payload = readMetricPayload(encodeMetricPayload({ series: runs.map((tags, i) => series({ metric: `m${i}`, tags })) }))!;
      expect(payload.series.map((s) => s.tags)).toEqual(runs);
    }
  });

  it('agrees with the generic path on mutated bodies', () => expectFastPathAgrees([...goldenSeeds, ...edgeSeeds], compare));
});

/** What decodeMetricPayloadInPieces hands over, joined, with the size of each piece. */
function inPieces(input: Buffer, pieceSize: number): { joined: MetricsPayload; sizes: number[] } {
  const joined = emptyPayload();
  const sizes: number[] = [];
  decodeMetricPayloadInPieces(input, pieceSize, (piece) => {
    sizes.push(piece.series.length);
    joined.series.push(...piece.series);
    addDrops(joined.dropped, piece.dropped);
  });
  return { joined, sizes };
}

/** What `read` returns, or its error's message. */
const answerOf = (read: () => MetricsPayload): MetricsPayload | string => {
  const answer = attempt(read);
  return answer instanceof Error ? answer.message : answer;
};

describe('MetricPayload in pieces', () => {
  const good = encodeMetricPayload({ series: Array.from({ length: 5 }, (_, i) => series({ metric: `g${i}`, type: i === 3 ? 9 : 3 })) });

  it('hands over the whole payload in order, in pieces of at most the size asked', () => {
    const { joined, sizes } = inPieces(good, 2);
    expect(sizes).toEqual([2, 2, 0]); // the unknown type is not kept, but counted
    expect(joined).toEqual(decodeMetricPayloadGeneric(good));
    expect(joined.dropped).toEqual({ unknown_type: 1 });
  });

  it.each(edgeSeeds.map((b, i) => [i, b] as const))('edge case %i after five good series: the same answer, or error, as the whole body read at once', (_i, edge) => {
    const input = Buffer.concat([good, edge]);
    const expected = answerOf(() => decodeMetricPayloadGeneric(input));
    expect(answerOf(() => inPieces(input, 2).joined)).toEqual(expected);
    expect(answerOf(() => inPieces(input, Infinity).joined)).toEqual(expected);
  });

  it('lets the generic path read only the rest, numbering its series from the whole body', () => {
    const tail = encodeMetricPayload({ series: [series({ points: [{ value: 1, timestamp: 2 ** 52 }] })] }); // the direct reader gives up here
    const handed: number[] = [];
    expect(gaveUpAt(Buffer.concat([good, tail]), 2, (p) => handed.push(p.series.length))).toEqual({ at: good.length, met: 5 });
    expect(handed).toEqual([2, 2, 0]);
    const truncated = Buffer.concat([good, Buffer.from([0x0a, 0x04, 0x22, 0x02, 0x10, 0x80])]);
    expect(answerOf(() => inPieces(truncated, 2).joined)).toContain('MetricPayload.series[5].points[0]: truncated varint');
  });
});
