/**
 * A msgpack decoder for untrusted bodies (tracer traces and stats). Every array, map, str, bin and
 * ext length is checked against the bytes that remain BEFORE anything is allocated, so a header
 * claiming a 4 GB array is an error and not an allocation (the generated Go decoders trust those
 * prefixes). Nesting depth is capped so a hostile `[[[[…` cannot
 * exhaust the stack.
 *
 * The output is a loose tree that the trace parsers coerce field by field, as leniently as the
 * agent's decoder: integers are numbers while they are exact and bigints beyond 2^53 (ids and
 * ns timestamps must survive bit for bit), maps keep their wire order and non-string keys
 * (v0.5 uses string-table indexes), str is decoded with invalid UTF-8 replaced, and ext values
 * come back as their raw bytes.
 */

import { shortAscii } from './short-strings';

export type MsgValue = null | boolean | number | bigint | string | Uint8Array | MsgValue[] | MsgMap;
export type MsgMap = Map<MsgValue, MsgValue>;

export const MAX_MSGPACK_DEPTH = 64;

export class MsgpackError extends Error {
  override name = 'MsgpackError';
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A 64-bit integer as a number while exact, else as a bigint. */
const exact = (value: bigint): number | bigint => (value <= MAX_SAFE && value >= -MAX_SAFE ? Number(value) : value);

export function decodeMsgpack(bytes: Uint8Array, maxDepth = MAX_MSGPACK_DEPTH): MsgValue {
  const reader = new MsgpackReader(bytes, maxDepth);
  const value = reader.value(0);
  if (!reader.done) reader.fail(`${bytes.length - reader.pos} unexpected bytes after the top-level value`);
  return value;
}

/**
 * The decoder's cursor. Parsers that know their schema (the v0.4 span reader) walk it directly,
 * reading headers and scalars through the same checks as `value`, so a body they accept decodes
 * to the same values the tree would have held.
 */
export class MsgpackReader {
  pos = 0;
  private readonly view: DataView;
  readonly buffer: Buffer;

  constructor(
    bytes: Uint8Array,
    private readonly maxDepth: number,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get done(): boolean {
    return this.pos >= this.buffer.length;
  }

  fail(message: string): never {
    throw new MsgpackError(`msgpack: ${message} (at byte ${this.pos})`);
  }

  /** Claims `n` bytes, or fails when fewer remain. */
  private take(n: number): number {
    const at = this.pos;
    if (n > this.buffer.length - at) this.fail(`needs ${n} bytes, ${this.buffer.length - at} left`);
    this.pos += n;
    return at;
  }

  /** One byte, read straight from the buffer: every value starts with one. */
  u8(): number {
    const at = this.pos;
    if (at >= this.buffer.length) this.fail(`needs 1 bytes, ${this.buffer.length - at} left`);
    this.pos = at + 1;
    return this.buffer[at] as number;
  }

  /** The next type byte without claiming it; -1 at the end. */
  peek(): number {
    return this.pos < this.buffer.length ? (this.buffer[this.pos] as number) : -1;
  }

  bigUint64(): bigint {
    return this.view.getBigUint64(this.take(8));
  }

  bigInt64(): bigint {
    return this.view.getBigInt64(this.take(8));
  }
  u16(): number {
    return this.view.getUint16(this.take(2));
  }
  u32(): number {
    return this.view.getUint32(this.take(4));
  }

  value(depth: number): MsgValue {
    const b = this.u8();
    if (b <= 0x7f) return b;
    if (b >= 0xe0) return b - 0x100;
    if (b >= 0xa0 && b <= 0xbf) return this.str(b & 0x1f);
    if (b >= 0x90 && b <= 0x9f) return this.array(b & 0x0f, depth);
    if (b >= 0x80 && b <= 0x8f) return this.map(b & 0x0f, depth);
    switch (b) {
      case 0xc0:
        return null;
      case 0xc2:
        return false;
      case 0xc3:
        return true;
      case 0xc4:
        return this.bin(this.u8());
      case 0xc5:
        return this.bin(this.u16());
      case 0xc6:
        return this.bin(this.u32());
      case 0xc7:
        return this.ext(this.u8());
      case 0xc8:
        return this.ext(this.u16());
      case 0xc9:
        return this.ext(this.u32());
      case 0xca:
        return this.view.getFloat32(this.take(4));
      case 0xcb:
        return this.view.getFloat64(this.take(8));
      case 0xcc:
        return this.u8();
      case 0xcd:
        return this.u16();
      case 0xce:
        return this.u32();
      case 0xcf:
        return exact(this.view.getBigUint64(this.take(8)));
      case 0xd0:
        return this.view.getInt8(this.take(1));
      case 0xd1:
        return this.view.getInt16(this.take(2));
      case 0xd2:
        return this.view.getInt32(this.take(4));
      case 0xd3:
        return exact(this.view.getBigInt64(this.take(8)));
      case 0xd4:
        return this.ext(1);
      case 0xd5:
        return this.ext(2);
      case 0xd6:
        return this.ext(4);
      case 0xd7:
        return this.ext(8);
      case 0xd8:
        return this.ext(16);
      case 0xd9:
        return this.str(this.u8());
      case 0xda:
        return this.str(this.u16());
      case 0xdb:
        return this.str(this.u32());
      case 0xdc:
        return this.array(this.u16(), depth);
      case 0xdd:
        return this.array(this.u32(), depth);
      case 0xde:
        return this.map(this.u16(), depth);
      case 0xdf:
        return this.map(this.u32(), depth);
      default:
        this.pos--;
        return this.fail(`invalid type byte 0x${b.toString(16)}`);
    }
  }

  str(length: number): string {
    const at = this.take(length);
    return shortAscii(this.buffer, at, length) ?? this.buffer.toString('utf8', at, at + length);
  }

  private bin(length: number): Uint8Array {
    const at = this.take(length);
    return this.buffer.subarray(at, at + length);
  }

  private ext(length: number): Uint8Array {
    this.take(1); // the ext type: no extension is meaningful in trace payloads
    return this.bin(length);
  }

  enter(depth: number): number {
    if (depth >= this.maxDepth) this.fail(`nested deeper than ${this.maxDepth} levels`);
    return depth + 1;
  }

  /** The checks an array header of `length` elements at `depth` passes before its elements are read. */
  arrayOf(length: number, depth: number): number {
    // every element takes at least one byte
    if (length > this.buffer.length - this.pos) this.fail(`array header claims ${length} elements, only ${this.buffer.length - this.pos} bytes left`);
    return this.enter(depth);
  }

  /** The checks a map header of `length` entries at `depth` passes before its entries are read. */
  mapOf(length: number, depth: number): number {
    // every entry takes at least two bytes
    if (length * 2 > this.buffer.length - this.pos) this.fail(`map header claims ${length} entries, only ${this.buffer.length - this.pos} bytes left`);
    return this.enter(depth);
  }

  private array(length: number, depth: number): MsgValue[] {
    const inner = this.arrayOf(length, depth);
    const out: MsgValue[] = [];
    for (let i = 0; i < length; i++) out.push(this.value(inner));
    return out;
  }

  private map(length: number, depth: number): MsgMap {
    const inner = this.mapOf(length, depth);
    const out: MsgMap = new Map();
    for (let i = 0; i < length; i++) {
      const key = this.value(inner);
      out.set(key, this.value(inner));
    }
    return out;
  }
}
