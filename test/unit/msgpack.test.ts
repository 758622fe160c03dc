/**
 * The msgpack decoder on its own: every type, exact 64-bit integers, the leniencies the trace
 * parsers rely on, and hostile input — lengths checked before allocation, depth capped.
 */
import { decodeMsgpack, MAX_MSGPACK_DEPTH, MsgpackError } from '../../src/core/wire/msgpack';
import { encodeMsgpack } from '../fixtures/traces/msgpack-writer';

const hex = (h: string): Buffer => Buffer.from(h.replace(/\s+/g, ''), 'hex');

describe('msgpack decoder', () => {
  it.each([
    ['positive fixint', '7f', 127],
    ['negative fixint', 'e0', -32],
    ['uint8', 'cc ff', 255],
    ['uint16', 'cd ffff', 65535],
    ['uint32', 'ce ffffffff', 4294967295],
    ['int8', 'd0 80', -128],
    ['int16', 'd1 8000', -32768],
    ['int32', 'd2 80000000', -2147483648],
    ['float32', 'ca 3fc00000', 1.5],
    ['float64', 'cb 400921fb54442d18', Math.PI],
    ['nil', 'c0', null],
    ['false', 'c2', false],
    ['true', 'c3', true],
    ['fixstr', 'a3 616263', 'abc'],
    ['str8', 'd9 03 616263', 'abc'],
    ['str16', 'da 0003 616263', 'abc'],
    ['str32', 'db 00000003 616263', 'abc'],
  ])('decodes %s', (_name, bytes, expected) => {
    expect(decodeMsgpack(hex(bytes))).toEqual(expected);
  });

  it('keeps 64-bit integers exact: numbers while safe, bigints beyond 2^53', () => {
    expect(decodeMsgpack(hex('cf ffffffffffffffff'))).toBe(18446744073709551615n);
    expect(decodeMsgpack(hex('cf 0020000000000001'))).toBe(9007199254740993n);
    expect(decodeMsgpack(hex('cf 001fffffffffffff'))).toBe(9007199254740991);
    expect(decodeMsgpack(hex('d3 8000000000000000'))).toBe(-9223372036854775808n);
    expect(decodeMsgpack(hex('d3 ffffffffffffffff'))).toBe(-1);
  });

  it('decodes bin, ext (as raw bytes), arrays and maps in wire order with non-string keys', () => {
    expect(decodeMsgpack(hex('c4 02 0102'))).toEqual(new Uint8Array([1, 2]));
    expect(decodeMsgpack(hex('d4 05 07'))).toEqual(new Uint8Array([7]));
    expect(decodeMsgpack(hex('c7 02 05 0809'))).toEqual(new Uint8Array([8, 9]));
    expect(decodeMsgpack(hex('dc 0002 01 02'))).toEqual([1, 2]);
    expect(decodeMsgpack(hex('dd 00000001 c0'))).toEqual([null]);
    const m = decodeMsgpack(hex('82 a1 62 01 05 a1 61'));
    expect(m).toEqual(
      new Map<unknown, unknown>([
        ['b', 1],
        [5, 'a'],
      ]),
    );
    expect([...(m as Map<unknown, unknown>).keys()]).toEqual(['b', 5]);
    expect(decodeMsgpack(hex('de 0001 01 02'))).toEqual(new Map([[1, 2]]));
    expect(decodeMsgpack(hex('df 00000001 01 02'))).toEqual(new Map([[1, 2]]));
  });

  it('round-trips what the test encoder writes', () => {
    const value = new Map<unknown, unknown>([
      ['ids', [1n << 63n, 42, -7]],
      ['s', 'x'.repeat(70_000)],
      ['f', 0.25],
    ]);
    expect(decodeMsgpack(encodeMsgpack(value as never))).toEqual(
      new Map<unknown, unknown>([
        ['ids', [1n << 63n, 42, -7]],
        ['s', 'x'.repeat(70_000)],
        ['f', 0.25],
      ]),
    );
  });

  it('repairs invalid UTF-8 instead of failing', () => {
    expect(decodeMsgpack(hex('a3 61 ff 62'))).toBe('a\ufffdb');
  });

  describe('hostile input', () => {
    it.each([
      ['array32 claiming 4 GB of elements', 'dd ffffffff 01', /array header claims 4294967295 elements, only 1 bytes left/],
      ['map32 claiming 4 G entries', 'df ffffffff 01 02', /map header claims 4294967295 entries, only 2 bytes left/],
      ['str32 claiming 4 GB', 'db ffffffff 61', /needs 4294967295 bytes, 1 left/],
      ['bin32 claiming 4 GB', 'c6 ffffffff 61', /needs 4294967295 bytes, 1 left/],
      ['array16 longer than the body', 'dc 0003 01 02', /array header claims 3 elements, only 2 bytes left/],
      ['a map whose entries cannot fit', '83 01 02 03 04', /map header claims 3 entries, only 4 bytes left/],
      ['a truncated uint64', 'cf 0102', /needs 8 bytes, 2 left/],
      ['an empty body', '', /needs 1 bytes, 0 left/],
      ['the never-used type byte 0xc1', 'c1', /invalid type byte 0xc1 \(at byte 0\)/],
      ['bytes after the value', '01 02', /1 unexpected bytes after the top-level value/],
    ])('refuses %s', (_name, bytes, message) => {
      expect(() => decodeMsgpack(hex(bytes))).toThrow(MsgpackError);
      expect(() => decodeMsgpack(hex(bytes))).toThrow(message);
    });

    it(`caps nesting at ${MAX_MSGPACK_DEPTH} levels`, () => {
      const nested = (depth: number): Buffer => Buffer.concat([Buffer.alloc(depth, 0x91), hex('c0')]);
      expect(() => decodeMsgpack(nested(MAX_MSGPACK_DEPTH))).not.toThrow();
      expect(() => decodeMsgpack(nested(MAX_MSGPACK_DEPTH + 1))).toThrow(/nested deeper than 64 levels/);
      expect(() => decodeMsgpack(nested(100_000))).toThrow(MsgpackError);
    });
  });
});
