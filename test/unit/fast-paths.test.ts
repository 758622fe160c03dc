/**
 * The shortcuts taken for speed (issue #7) must be invisible: each is checked against the general
 * path it bypasses — number varints against BigInt decoding, interned strings against plain
 * decoding, map views against copied maps, memoised origins and sketch spreads against fresh ones,
 * and resource keys for the collisions a cheaper key could introduce.
 */
import fc from 'fast-check';
import protobuf from 'protobufjs';
import type { MetricResource } from '../../src/signals/metrics/datadog';
import { ProtoWriter } from '../../src/core/wire/proto-writer';
import { int64Number, sint64Number, uint64Number } from '../../src/core/wire/proto-fields';
import { decodeMsgpack } from '../../src/core/wire/msgpack';
import { ProtoReader, WireType } from '../../src/core/wire/proto-reader';
import { memoizedOrigin, newInternedOrigins, newOriginMemo, originOf, promoteOrigin, type OriginsByInternedTags } from '../../src/signals/metrics/resource';
import { sketchBuckets } from '../../src/signals/metrics/sketch-buckets';
import { StreamStartTimes } from '../../src/signals/metrics/start-times';
import { resourceKey } from '../../src/signals/shared/resource-promotion';
import type { KeyValue } from '../../src/core/otlp/model';
import { encodeMsgpack } from '../fixtures/traces/msgpack-writer';

const varintBytes = (value: bigint): Uint8Array => protobuf.Writer.create().uint64(BigInt.asUintN(64, value).toString()).finish();
const reader = (bytes: Uint8Array): ProtoReader => new ProtoReader(bytes);
const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
const boundaries = [0n, 1n, 2n ** 49n - 1n, 2n ** 49n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 63n - 1n, 2n ** 63n, 2n ** 64n - 1n];

describe('ProtoReader: varints as numbers without BigInt', () => {
  it('int64Number, int32 and bool agree with the BigInt reading, across the 49-bit cut-over', () => {
    fc.assert(
      fc.property(fc.oneof(u64, fc.constantFrom(...boundaries)), (value) => {
        const signed = BigInt.asIntN(64, value);
        expect(reader(varintBytes(value)).int32()).toBe(Number(BigInt.asIntN(32, value)));
        expect(reader(varintBytes(value)).bool()).toBe(value !== 0n);
        if (Number.isSafeInteger(Number(signed))) expect(reader(varintBytes(value)).int64Number()).toBe(Number(signed));
      }),
    );
  });

  it('the metric readers give exact numbers or refuse, never a rounded value', () => {
    for (const value of boundaries) {
      const asSigned = BigInt.asIntN(64, value);
      const zigzag = (value >> 1n) ^ -(value & 1n);
      const expectExact = (read: (r: ProtoReader) => number, exact: bigint): void => {
        if (Number.isSafeInteger(Number(exact)) && BigInt(Number(exact)) === exact) expect(read(reader(varintBytes(value)))).toBe(Number(exact));
        else expect(() => read(reader(varintBytes(value)))).toThrow(/out of range/);
      };
      expectExact(uint64Number, value);
      expectExact(int64Number, asSigned);
      expectExact(sint64Number, zigzag);
    }
  });

  it('a long varint is not half-consumed by the fast path', () => {
    const r = reader(Buffer.concat([varintBytes(2n ** 60n), varintBytes(5n)]));
    expect(r.int64Number()).toBe(2 ** 60);
    expect(r.int64Number()).toBe(5);
    expect(r.done).toBe(true);
  });

  it('a truncated varint is still an error', () => {
    expect(() => reader(Buffer.from([0x80, 0x80])).int64Number()).toThrow(/truncated varint/);
  });
});

describe('ProtoReader.repeatedUint32: one- and two-byte packed values read inline', () => {
  const packed = (values: number[], zigzag: boolean): Uint8Array => {
    const w = protobuf.Writer.create().fork();
    for (const v of values)
      if (zigzag) w.sint32(v);
      else w.uint32(v);
    return w.ldelim().finish();
  };
  const readPacked = (bytes: Uint8Array, zigzag: boolean): number[] => {
    const into: number[] = [];
    reader(bytes).repeatedUint32(WireType.Len, zigzag, into);
    return into;
  };
  const uint32s = fc.array(fc.oneof(fc.nat({ max: 0x4000 }), fc.constantFrom(127, 128, 16_383, 16_384, 2 ** 21, 2 ** 32 - 1)));
  const int32s = fc.array(fc.oneof(fc.integer({ min: -0x2000, max: 0x2000 }), fc.constantFrom(-64, -65, 63, 64, -8192, -8193, 8191, 8192, -(2 ** 31), 2 ** 31 - 1)));

  it('agree with protobuf, across the two-byte boundary', () => {
    fc.assert(fc.property(uint32s, (values) => expect(readPacked(packed(values, false), false)).toEqual(values)));
    fc.assert(fc.property(int32s, (values) => expect(readPacked(packed(values, true), true)).toEqual(values)));
  });

  it('a value cut after its first byte at the end of the packed field is a truncated varint, whatever follows', () => {
    expect(() => readPacked(Uint8Array.from([2, 0x05, 0x80, 0x01]), false)).toThrow('packed: truncated varint (at byte 3)');
  });
});

describe('ProtoWriter.varint64: numbers below 2^53 skip BigInt arithmetic', () => {
  it.each([2n ** 53n - 1n, 2n ** 53n, -1n, 2n ** 64n - 1n])('writes %s as protobuf does', (value) => {
    const w = new ProtoWriter();
    w.varint64(value);
    expect(w.bytes().toString('hex')).toBe(Buffer.from(varintBytes(value)).toString('hex'));
  });
});

describe('short-string interning', () => {
  const strings = fc.array(fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('env', 'service', 'a', '', 'é', 'x'.repeat(32), 'x'.repeat(33))), { maxLength: 30 });

  it('msgpack strings decode to the text that was encoded, repeats and collisions included', () => {
    fc.assert(fc.property(strings, (list) => expect(decodeMsgpack(encodeMsgpack([...list, ...list]))).toEqual([...list, ...list])));
  });

  it('protobuf strings decode to the text that was encoded', () => {
    fc.assert(
      fc.property(strings, (list) => {
        const w = protobuf.Writer.create();
        for (const s of list) w.string(s);
        const r = reader(w.finish());
        expect(list.map(() => r.string())).toEqual(list.map((s) => Buffer.from(s, 'utf8').toString('utf8')));
      }),
    );
  });

  it('returns the same string object for a repeated short string', () => {
    const [a, b] = decodeMsgpack(encodeMsgpack(['service.name', 'service.name'])) as string[];
    expect(Object.is(a, b)).toBe(true);
  });
});

describe('resource keys', () => {
  const kv = (key: string, value: KeyValue['value']): KeyValue => ({ key, value });

  it('do not depend on attribute order', () => {
    expect(resourceKey([kv('a', { string: '1' }), kv('b', { int: 2n })])).toBe(resourceKey([kv('b', { int: 2n }), kv('a', { string: '1' })]));
  });

  it.each([
    ['a separator inside a value', [kv('a', { string: 'x' }), kv('b', { string: 'y' })], [kv('a', { string: 'x", "b' }), kv('b', { string: 'y' })]],
    ['a value that holds the next attribute', [kv('a', { string: 'x' }), kv('b', { string: 'ykcsz' })], [kv('a', { string: 'xkbsy' }), kv('c', { string: 'z' })]],
    ['a key that looks like key and value', [kv('ab', { string: '' })], [kv('a', { string: 'b' })]],
    ['a string and an int of the same text', [kv('a', { string: '1' })], [kv('a', { int: 1n })]],
    ['an int and a double of the same value', [kv('a', { int: 1n })], [kv('a', { double: 1 })]],
    ['an array and its elements', [kv('a', { array: [{ string: 'x' }, { string: 'y' }] })], [kv('a', { array: [{ string: 'x,y' }] })]],
    ['one attribute more', [kv('a', { string: '' })], [kv('a', { string: '' }), kv('b', { string: '' })]],
  ])('tell apart %s', (_name, left, right) => {
    expect(resourceKey(left)).not.toBe(resourceKey(right));
  });
});

describe('memoised metric origins', () => {
  /** the process's origins of interned tag lists (caches.ts), shared by every request of a test */
  let interned: OriginsByInternedTags;
  beforeEach(() => {
    interned = newInternedOrigins();
  });
  const host = (name: string): MetricResource[] => [{ type: 'host', name }];

  it('give what a fresh promotion gives, shared between equal tag sets', () => {
    const memo = newOriginMemo();
    const tags = ['service:web', 'env:prod', 'endpoint:/cart'];
    const first = memoizedOrigin(memo, interned, tags, host('h1'), 'nginx');
    expect(first).toEqual(originOf(promoteOrigin(tags, host('h1'), 'nginx')));
    expect(memoizedOrigin(memo, interned, [...tags], host('h1'), 'nginx')).toBe(first);
  });

  it('give what a fresh promotion gives for any tag sets sharing one memo (resource and attribute halves memoised apart)', () => {
    const tag = fc.constantFrom('service:a', 'service:b', 'env:prod', 'image_tag:1', 'image_tag:2', 'host:h', 'endpoint:/x', 'endpoint:/y', 'http.method:GET', 'bare', ' ', '', 'team:t');
    const resource = fc.record({ type: fc.constantFrom('host', 'device', 'service', ''), name: fc.constantFrom('h1', 'h2', '') });
    const input = fc.tuple(fc.array(tag, { maxLength: 6 }), fc.array(resource, { maxLength: 2 }), fc.constantFrom('', 'nginx'));
    fc.assert(
      fc.property(fc.array(input, { minLength: 1, maxLength: 20 }), (inputs) => {
        const memo = newOriginMemo();
        for (const [tags, resources, source] of inputs) expect(memoizedOrigin(memo, interned, tags, resources, source)).toEqual(originOf(promoteOrigin(tags, resources, source)));
      }),
    );
  });

  it('give a frozen (interned) tag list one origin across requests, still per resources and source type', () => {
    const tags = Object.freeze(['service:web', 'env:prod', 'endpoint:/cart']);
    const first = memoizedOrigin(newOriginMemo(), interned, tags, host('h1'), 'nginx');
    expect(memoizedOrigin(newOriginMemo(), interned, tags, host('h1'), 'nginx')).toBe(first);
    expect(memoizedOrigin(newOriginMemo(), interned, [...tags], host('h1'), 'nginx')).not.toBe(first); // not frozen: per request
    const other = memoizedOrigin(newOriginMemo(), interned, tags, host('h2'), 'nginx');
    expect(other).toEqual(originOf(promoteOrigin(tags, host('h2'), 'nginx')));
    expect(memoizedOrigin(newOriginMemo(), interned, tags, host('h1'), '')).toEqual(originOf(promoteOrigin(tags, host('h1'), '')));
  });

  it('give a frozen tag list sent from many hosts the right origin for each, keeping a bounded few', () => {
    const tags = Object.freeze(['env:prod', 'endpoint:/x']);
    const hosts = Array.from({ length: 30 }, (_, i) => host(`h${i}`));
    for (let round = 0; round < 2; round++) {
      for (const resources of hosts) expect(memoizedOrigin(newOriginMemo(), interned, tags, resources)).toEqual(originOf(promoteOrigin(tags, resources)));
    }
  });

  it.each([
    ['tags split differently', [['a:1,b:2'], [], ''], [['a:1', 'b:2'], [], '']],
    ['a tag or a resource', [['host:h'], [], ''], [[], [{ type: 'host', name: 'h' }], '']],
    ['the source type', [['a:1'], [], 'x'], [['a:1'], [], '']],
    ['resource type and name', [[], [{ type: 'a', name: 'bc' }], ''], [[], [{ type: 'ab', name: 'c' }], '']],
  ] as const)('keep apart %s', (_name, left, right) => {
    const memo = newOriginMemo();
    const a = memoizedOrigin(memo, interned, left[0], left[1], left[2]);
    const b = memoizedOrigin(memo, interned, right[0], right[1], right[2]);
    expect(a).toEqual(originOf(promoteOrigin(left[0], left[1], left[2])));
    expect(b).toEqual(originOf(promoteOrigin(right[0], right[1], right[2])));
    // distinct entries even where the promotions happen to agree (host tag vs host resource)
    expect(a).not.toBe(b);
  });
});

describe('sketch bin spreads', () => {
  it('are the same whether a key is met for the first time or again', () => {
    const keys = [1338, 1400, 1401, -1500, 0, 1400];
    const counts = [3, 17, 1, 8, 2, 5];
    const first = sketchBuckets(keys, counts);
    expect(sketchBuckets(keys, counts)).toEqual(first);
    expect(sketchBuckets([1400], [17])?.positive).toEqual(sketchBuckets([1400], [17])?.positive);
  });
});

describe('stream start times', () => {
  /** The plain algorithm: expire from the front at every call. */
  class Reference {
    private readonly streams = new Map<string, { lastNs: bigint; startNs: bigint; idleUntil: number }>();
    constructor(
      private readonly maxEntries: number,
      private readonly idleMs: number,
    ) {}
    startFor(key: string, timeNs: bigint, now: number): bigint {
      for (const [k, e] of this.streams) {
        if (e.idleUntil > now) break;
        this.streams.delete(k);
      }
      const seen = this.streams.get(key);
      if (seen && timeNs < seen.lastNs) return timeNs;
      const startNs = !seen ? timeNs : timeNs === seen.lastNs ? seen.startNs : seen.lastNs;
      this.streams.delete(key);
      this.streams.set(key, { lastNs: timeNs, startNs, idleUntil: now + this.idleMs });
      if (this.streams.size > this.maxEntries) this.streams.delete(this.streams.keys().next().value as string);
      return startNs;
    }
  }

  it('skip the idle scan only when nothing can have expired, also when the clock steps back', () => {
    const step = fc.record({ id: fc.constantFrom('a', 'b', 'c', 'd', 'e'), time: fc.integer({ min: 0, max: 50 }), clock: fc.integer({ min: -5, max: 20 }) });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 4 }), fc.array(step, { maxLength: 60 }), (idleMs, maxEntries, steps) => {
        let now = 1000;
        const t = new StreamStartTimes({ maxEntries, idleMs }, () => now);
        const reference = new Reference(maxEntries, idleMs);
        for (const { id, time, clock } of steps) {
          now += clock;
          expect(t.startFor(id, BigInt(time))).toBe(reference.startFor(id, BigInt(time), now));
        }
      }),
      { numRuns: 3000 },
    );
  });
});
