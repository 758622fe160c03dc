import protobuf from 'protobufjs';

import { lenFieldSize, ProtoWriter, varintSize, WireType } from '../../src/core/wire/proto-writer';

/** protobufjs's Writer is the reference for every primitive; 64-bit values go in as decimal strings. */
const reference = (write: (w: protobuf.Writer) => protobuf.Writer): string => Buffer.from(write(protobuf.Writer.create()).finish()).toString('hex');

function ours(write: (w: ProtoWriter) => void, initialCapacity?: number): string {
  const w = new ProtoWriter(initialCapacity);
  write(w);
  return w.bytes().toString('hex');
}

const VARINTS = [0, 1, 127, 128, 300, 16383, 16384, 2 ** 21 - 1, 2 ** 21, 2 ** 28 - 1, 2 ** 28, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 35, 2 ** 42 + 3, 2 ** 49, Number.MAX_SAFE_INTEGER];

describe('ProtoWriter', () => {
  it.each(VARINTS)('writes varint %d and sizes it', (value) => {
    const expected = reference((w) => w.uint64(String(value)));
    expect(ours((w) => w.varint(value))).toBe(expected);
    expect(varintSize(value)).toBe(expected.length / 2);
  });

  it.each([0n, 1n, 127n, 128n, -1n, -128n, 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 64n - 1n])('writes int64/uint64 %s', (value) => {
    expect(ours((w) => w.int64Field(3, value))).toBe(reference((w) => w.uint32(24).uint64(BigInt.asUintN(64, value).toString())));
  });

  it.each([0, 1, -1, 63, -64, 64, 2 ** 31 - 1, -(2 ** 31)])('writes sint32 %d with zigzag', (value) => {
    expect(ours((w) => w.sint32Field(6, value))).toBe(reference((w) => w.uint32(48).sint32(value)));
  });

  it.each([0, 9, 24, -1, -(2 ** 31)])('writes int32 %d sign-extended', (value) => {
    expect(ours((w) => w.int32Field(2, value))).toBe(reference((w) => w.uint32(16).int32(value)));
  });

  it('writes fixed and double fields little-endian', () => {
    const u64 = '18446744073709551615';
    expect(ours((w) => w.fixed64Field(1, 2n ** 64n - 1n))).toBe(reference((w) => w.uint32(9).fixed64(u64)));
    expect(ours((w) => w.fixed64Field(1, 1_700_000_000_123_456_789n))).toBe(reference((w) => w.uint32(9).fixed64('1700000000123456789')));
    expect(ours((w) => w.sfixed64Field(6, -(2n ** 63n)))).toBe(reference((w) => w.uint32(49).sfixed64('-9223372036854775808')));
    expect(ours((w) => w.fixed32Field(16, 0xffffffff))).toBe(reference((w) => w.uint32(133).fixed32(0xffffffff)));
    expect(ours((w) => w.doubleField(4, -0.1))).toBe(reference((w) => w.uint32(33).double(-0.1)));
    expect(ours((w) => w.packedFixed64Field(6, [1n, 2n ** 64n - 1n]))).toBe(reference((w) => w.uint32(50).uint32(16).fixed64(1).fixed64(u64)));
    expect(ours((w) => w.packedDoubleField(7, [0.5, -2]))).toBe(reference((w) => w.uint32(58).uint32(16).double(0.5).double(-2)));
  });

  it.each(['', 'a', 'ascii only', 'é', '€uro', '😀 emoji', 'x'.repeat(42), 'é'.repeat(21), 'é'.repeat(64), '😀'.repeat(100), 'a'.repeat(20_000)])('writes string %j as UTF-8 with its length', (value) => {
    expect(ours((w) => w.stringField(1, value))).toBe(reference((w) => w.uint32(10).string(value)));
  });

  it.each([0, 1, 127, 128, 16383, 16384, 2_100_000])('prefixes a nested message of %d bytes with a minimal length', (size) => {
    const payload = Buffer.alloc(size, 0xab);
    const nested = ours((w) => {
      w.varintField(1, 5);
      const at = w.beginLen(2);
      w.raw(payload);
      w.endLen(at);
      w.varintField(3, 6);
    }, 16);
    expect(nested).toBe(reference((w) => w.uint32(8).uint32(5).uint32(18).bytes(payload).uint32(24).uint32(6)));
    expect(lenFieldSize(2, size)).toBe(1 + varintSize(size) + size);
  });

  it('nests length-delimited fields inside each other and grows from a tiny buffer', () => {
    const inner = Buffer.alloc(200, 1);
    const result = ours((w) => {
      const outer = w.beginLen(1);
      const middle = w.beginLen(2);
      w.bytesField(3, inner);
      w.endLen(middle);
      w.endLen(outer);
    }, 1);
    const expected = reference((w) => w.uint32(10).fork().uint32(18).fork().uint32(26).bytes(inner).ldelim().ldelim());
    expect(result).toBe(expected);
  });

  it.each([
    ['every varint width', VARINTS],
    ['200 one-byte counts and some wider (a length of two bytes)', [...Array.from({ length: 200 }, (_, i) => i % 128), 128, 2 ** 35]],
  ])('writes packed uint64 of %s, growing from a tiny buffer', (_, values) => {
    const packed = (w: protobuf.Writer): protobuf.Writer => values.reduce((at, v) => at.uint64(String(v)), w.uint32(18).fork()).ldelim();
    expect(ours((w) => w.packedUint64Field(2, values), 1)).toBe(reference(packed));
  });

  it('encodes a tag from field number and wire type', () => {
    expect(ours((w) => w.tag(16, WireType.Fixed32))).toBe('8501');
  });
});
