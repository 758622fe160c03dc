/**
 * A protobuf wire-format reader for the payloads we decode (Datadog AgentPayload, MetricPayload,
 * SketchPayload, v3 metrics; OTLP export responses). Every length is checked against the bytes
 * that remain before anything is sliced or allocated, so a hostile length prefix is a clear error,
 * not an allocation. Errors carry the field path of the message being read.
 */

import { shortAscii } from './short-strings';

// a plain enum: swc compiles files one at a time and cannot inline a const enum across files
export enum WireType {
  Varint = 0,
  Fixed64 = 1,
  Len = 2,
  StartGroup = 3,
  EndGroup = 4,
  Fixed32 = 5,
}

export class ProtoDecodeError extends Error {
  override name = 'ProtoDecodeError';
}

const textDecoder = new TextDecoder('utf-8', { fatal: false });

/**
 * The string field of `length` bytes at `at`, invalid UTF-8 as U+FFFD. No subarray for the common
 * short string: a Buffer view per field was a visible share of decoding.
 */
export const stringAt = (bytes: Uint8Array, at: number, length: number): string => shortAscii(bytes, at, length) ?? textDecoder.decode(bytes.subarray(at, at + length));

export class ProtoReader {
  private pos: number;
  private dataView: DataView | undefined;

  /**
   * `name` is the whole path of a root reader, or this message's field name under `parent`, with
   * `index` (≥ 0) when it is one of a repeated field. The path is joined only when an error needs
   * it, and the DataView made only when a fixed-width field is read and then shared with the
   * embedded messages: a payload has a reader per series, point and resource.
   */
  constructor(
    private readonly bytes: Uint8Array,
    start = 0,
    private readonly end = bytes.length,
    private readonly name = '',
    private readonly parent: ProtoReader | undefined = undefined,
    private readonly index = -1,
  ) {
    this.pos = start;
  }

  /** Field path of this message from the root, e.g. `MetricPayload.series[3].points[0]`. */
  get path(): string {
    const own = this.index >= 0 ? `${this.name}[${this.index}]` : this.name;
    const above = this.parent?.path ?? '';
    return above ? `${above}.${own}` : own;
  }

  private get view(): DataView {
    this.dataView ??= this.parent ? this.parent.view : new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
    return this.dataView;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  fail(message: string): never {
    throw new ProtoDecodeError(`${this.path || '<root>'}: ${message} (at byte ${this.pos})`);
  }

  /** Field number and wire type of the next field. */
  tag(): [field: number, wireType: WireType] {
    const key = this.key();
    return [key >>> 3, (key & 7) as WireType];
  }

  /** The next field's key, field number << 3 | wire type: no tuple, for loops that run per field. */
  key(): number {
    const key = this.uint32();
    if (key >>> 3 === 0) this.fail('invalid field number 0');
    return key;
  }

  /** A varint that must fit 32 bits unsigned (tags, lengths, enums, string refs). */
  uint32(): number {
    let value = 0;
    // a running power of 128, not 2 ** shift: the power was a third of decoding packed sketch bins
    for (let scale = 1; scale < 2 ** 35; scale *= 128) {
      if (this.pos >= this.end) this.fail('truncated varint');
      const byte = this.bytes[this.pos++] as number;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) {
        if (value > 0xffff_ffff) this.fail('varint exceeds 32 bits');
        return value;
      }
    }
    // a negative int32 is sign-extended to 10 bytes; keep its low 32 bits
    return Number(BigInt.asUintN(32, this.finishVarint(BigInt(value))));
  }

  private finishVarint(low35: bigint): bigint {
    let value = low35;
    for (let shift = 35n; shift < 70n; shift += 7n) {
      if (this.pos >= this.end) this.fail('truncated varint');
      const byte = this.bytes[this.pos++] as number;
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return BigInt.asUintN(64, value);
    }
    return this.fail('varint longer than 10 bytes');
  }

  /** Full 64-bit unsigned varint. */
  uint64(): bigint {
    let value = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.pos >= this.end) this.fail('truncated varint');
      const byte = this.bytes[this.pos++] as number;
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return BigInt.asUintN(64, value);
    }
    return this.fail('varint longer than 10 bytes');
  }

  /**
   * A varint below 2^49 as a number, or undefined with nothing consumed when it is longer. Most
   * varints are small (timestamps, counts, enums, keys), and a BigInt for each of them was a large
   * share of decoding a metric payload.
   */
  smallVarint(): number | undefined {
    const start = this.pos;
    let value = 0;
    for (let scale = 1; scale < 2 ** 49; scale *= 128) {
      if (this.pos >= this.end) this.fail('truncated varint');
      const byte = this.bytes[this.pos++] as number;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
    }
    this.pos = start;
    return undefined;
  }

  int64(): bigint {
    return BigInt.asIntN(64, this.uint64());
  }

  /** int64 as a JS number (exact up to 2^53; timestamps, counts). */
  int64Number(): number {
    return this.smallVarint() ?? Number(this.int64());
  }

  int32(): number {
    const small = this.smallVarint();
    // int32 keeps the low 32 bits, two's complement
    return small !== undefined ? small | 0 : Number(BigInt.asIntN(32, this.uint64()));
  }

  sint32(): number {
    return fromUint32(this.uint32(), true);
  }

  sint64(): bigint {
    const n = this.uint64();
    return (n >> 1n) ^ -(n & 1n);
  }

  bool(): boolean {
    const small = this.smallVarint();
    return small !== undefined ? small !== 0 : this.uint64() !== 0n;
  }

  private need(n: number): void {
    if (n < 0 || this.pos + n > this.end) this.fail(`needs ${n} bytes, ${this.end - this.pos} left`);
  }

  fixed64(): bigint {
    this.need(8);
    const v = this.view.getBigUint64(this.pos, true);
    this.pos += 8;
    return v;
  }

  double(): number {
    this.need(8);
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  float(): number {
    this.need(4);
    const v = this.view.getFloat32(this.pos, true);
    this.pos += 4;
    return v;
  }

  fixed32(): number {
    this.need(4);
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }

  /** Bytes of a length-delimited field, without copying. */
  bytesView(): Uint8Array {
    const length = this.uint32();
    this.need(length);
    const out = this.bytes.subarray(this.pos, this.pos + length);
    this.pos += length;
    return out;
  }

  string(): string {
    const length = this.uint32();
    this.need(length);
    const at = this.pos;
    this.pos += length;
    return stringAt(this.bytes, at, length);
  }

  /** A reader over an embedded message; `name` (and `index`, for one of a repeated field) extends the error path. */
  message(name: string, index = -1): ProtoReader {
    const length = this.uint32();
    this.need(length);
    const child = new ProtoReader(this.bytes, this.pos, this.pos + length, name, this, index);
    this.pos += length;
    return child;
  }

  /** Repeated scalars, packed (one Len field) or not (one value per field occurrence). */
  repeated<T>(wireType: WireType, read: (r: ProtoReader) => T, into: T[]): void {
    if (wireType !== WireType.Len) {
      into.push(read(this));
      return;
    }
    const packed = this.message('packed');
    while (!packed.done) into.push(read(packed));
  }

  /** Repeated uint32 (sint32 when `zigzag`), packed or not. */
  repeatedUint32(wireType: WireType, zigzag: boolean, into: number[]): void {
    if (wireType !== WireType.Len) {
      into.push(fromUint32(this.uint32(), zigzag));
      return;
    }
    this.message('packed').uint32sToEnd(zigzag, into);
  }

  /**
   * Packed uint32 varints up to the end of this message. Sketch bin counts and keys are one or two
   * bytes: reading those inline rather than through the general varint loop was most of decoding
   * sketch bins; anything longer or truncated goes through uint32(), with its checks and errors.
   */
  private uint32sToEnd(zigzag: boolean, into: number[]): void {
    const bytes = this.bytes;
    const end = this.end;
    while (this.pos < end) {
      const first = bytes[this.pos] as number;
      const second = this.pos + 1 < end ? (bytes[this.pos + 1] as number) : 0x80;
      let value: number;
      if (first < 0x80) {
        value = first;
        this.pos += 1;
      } else if (second < 0x80) {
        value = (first & 0x7f) | (second << 7);
        this.pos += 2;
      } else value = this.uint32();
      into.push(fromUint32(value, zigzag));
    }
  }

  skip(wireType: WireType): void {
    switch (wireType) {
      case WireType.Varint:
        this.uint64();
        return;
      case WireType.Fixed64:
        this.need(8);
        this.pos += 8;
        return;
      case WireType.Len:
        this.bytesView();
        return;
      case WireType.Fixed32:
        this.need(4);
        this.pos += 4;
        return;
      default:
        this.fail(`unsupported wire type ${wireType}`);
    }
  }
}

/** A uint32 varint's value as uint32, or as sint32 (zigzag: 0, -1, 1, -2, … are 0, 1, 2, 3, …). */
const fromUint32 = (n: number, zigzag: boolean): number => (zigzag ? (n >>> 1) ^ -(n & 1) : n);
