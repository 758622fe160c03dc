/**
 * A small protobuf writer for the OTLP encoder.
 *
 * Hand-written rather than protobufjs-generated because exporting is on the hot path of every
 * intake request: writing straight from the model into one growable Buffer avoids building a
 * second object tree and was measured at less than half the time of generated code.
 *
 * Field methods always write; leaving proto3 defaults out is the caller's decision, because which
 * zeros matter (oneof members, optional fields) depends on the schema, not on the value.
 */

export enum WireType {
  Varint = 0,
  Fixed64 = 1,
  Len = 2,
  Fixed32 = 5,
}

const UINT32_LIMIT = 0x1_0000_0000;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const U64_MAX = (1n << 64n) - 1n;

// BigInt arithmetic (as in Buffer#writeBigUInt64LE) allocates; storing into a typed array does not
const scratch64 = new BigUint64Array(1);
const scratch64Bytes = new Uint8Array(scratch64.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Bytes a non-negative integer below 2^53 takes as a varint. */
export function varintSize(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x20_0000) return 3;
  if (value < 0x1000_0000) return 4;
  let size = 5;
  for (let rest = Math.floor(value / 0x8_0000_0000); rest > 0; rest = Math.floor(rest / 0x80)) size++;
  return size;
}

/** Bytes a length-delimited field takes in total: tag, length prefix and payload. */
export function lenFieldSize(field: number, payloadSize: number): number {
  return varintSize(field * 8 + WireType.Len) + varintSize(payloadSize) + payloadSize;
}

/**
 * The scratch buffer of the last finished encode, for the next one to write into. Encoding a
 * request grows its scratch by doubling and then copies the bodies out, so without this each
 * request left about twice its encoded size in dead Buffers: external memory that V8 frees only
 * after a later GC, and on traces the largest part of the sidecar's peak RSS
 * (docs/decisions/003-own-otlp-encoder.md).
 */
let spare: Buffer | undefined;
/** Where a scratch (or any writer not told its size) starts; it doubles as needed. */
const INITIAL_BYTES = 64 * 1024;
/** A scratch grown past this (one huge request) is not kept for the life of the process. */
const SPARE_MAX_BYTES = 4 * 1024 * 1024;

export class ProtoWriter {
  private buf: Buffer;
  private pos = 0;

  constructor(initialCapacity = INITIAL_BYTES, buffer?: Buffer) {
    this.buf = buffer ?? Buffer.allocUnsafe(Math.max(16, initialCapacity));
  }

  /** A writer on the spare scratch buffer if no other encode holds it; hand it back with {@link recycle}. */
  static scratch(): ProtoWriter {
    const writer = new ProtoWriter(INITIAL_BYTES, spare);
    spare = undefined;
    return writer;
  }

  /** Gives the buffer to the next {@link scratch} writer: nothing may still view this writer's bytes. */
  recycle(): void {
    if (this.buf.length <= SPARE_MAX_BYTES) spare = this.buf;
    this.buf = Buffer.alloc(0);
    this.pos = 0;
  }

  /** Current write offset; with {@link bytes} it lets callers remember slices of the output. */
  get length(): number {
    return this.pos;
  }

  /** The written bytes so far, as a view (no copy): valid until the next write grows the buffer. */
  bytes(): Buffer {
    return this.buf.subarray(0, this.pos);
  }

  // ------------------------------------------------------------------ fields

  varintField(field: number, value: number): void {
    this.tag(field, WireType.Varint);
    this.varint(value);
  }

  /** int32/enum: negative values are sign-extended to 64 bits, as the spec requires. */
  int32Field(field: number, value: number): void {
    this.tag(field, WireType.Varint);
    if (value < 0) this.varint64(BigInt(value));
    else this.varint(value);
  }

  /** int64 and uint64: two's complement, so negatives take the full ten bytes. */
  int64Field(field: number, value: bigint): void {
    this.tag(field, WireType.Varint);
    this.varint64(value);
  }

  sint32Field(field: number, value: number): void {
    this.tag(field, WireType.Varint);
    this.varint(((value << 1) ^ (value >> 31)) >>> 0);
  }

  boolField(field: number, value: boolean): void {
    this.tag(field, WireType.Varint);
    this.byte(value ? 1 : 0);
  }

  fixed32Field(field: number, value: number): void {
    this.tag(field, WireType.Fixed32);
    this.ensure(4);
    this.buf.writeUInt32LE(value >>> 0, this.pos);
    this.pos += 4;
  }

  fixed64Field(field: number, value: bigint): void {
    this.tag(field, WireType.Fixed64);
    this.fixed64(value);
  }

  sfixed64Field(field: number, value: bigint): void {
    this.tag(field, WireType.Fixed64);
    this.ensure(8);
    this.buf.writeBigInt64LE(value, this.pos);
    this.pos += 8;
  }

  doubleField(field: number, value: number): void {
    this.tag(field, WireType.Fixed64);
    this.double(value);
  }

  stringField(field: number, value: string): void {
    this.tag(field, WireType.Len);
    this.string(value);
  }

  bytesField(field: number, value: Uint8Array): void {
    this.tag(field, WireType.Len);
    this.varint(value.length);
    this.raw(value);
  }

  packedFixed64Field(field: number, values: readonly bigint[]): void {
    this.tag(field, WireType.Len);
    this.varint(values.length * 8);
    for (const value of values) this.fixed64(value);
  }

  packedDoubleField(field: number, values: readonly number[]): void {
    this.tag(field, WireType.Len);
    this.varint(values.length * 8);
    for (const value of values) this.double(value);
  }

  /** Packed uint64s held as numbers (non-negative integers below 2^53). */
  packedUint64Field(field: number, values: readonly number[]): void {
    const start = this.beginLen(field);
    // room for all of them at once: a bounds check per value was most of writing sketch buckets
    this.ensure(10 * values.length);
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < values.length; i++) {
      const value = values[i]!;
      if (value < 0x80) buf[pos++] = value;
      else pos = this.writeVarintAt(pos, value);
    }
    this.pos = pos;
    this.endLen(start);
  }

  /**
   * Opens a length-delimited field whose size is not known yet; close it with {@link endLen}.
   * One length byte is reserved because almost every nested OTLP message (attributes, any-values)
   * is under 128 bytes; larger ones pay a shift of their payload instead of a sizing pass.
   */
  beginLen(field: number): number {
    this.tag(field, WireType.Len);
    this.ensure(1);
    return this.pos++;
  }

  endLen(lengthAt: number): void {
    const size = this.pos - lengthAt - 1;
    if (size < 0x80) {
      this.buf[lengthAt] = size;
      return;
    }
    const extra = varintSize(size) - 1;
    this.ensure(extra);
    this.buf.copyWithin(lengthAt + 1 + extra, lengthAt + 1, this.pos);
    this.pos += extra;
    this.writeVarintAt(lengthAt, size);
  }

  /** Tag and length of a length-delimited field whose payload the caller copies in next. */
  lenPrefix(field: number, size: number): void {
    this.tag(field, WireType.Len);
    this.varint(size);
  }

  /**
   * KeyValue{key = 1, value = 2: AnyValue{string_value = 1}} as field `field`, the commonest
   * attribute, in one pass behind one-byte lengths. Returns false, having written nothing, when
   * the message would need a longer length prefix; the caller then writes it field by field.
   */
  shortStringKeyValueField(field: number, key: string, value: string): boolean {
    // UTF-8 takes at least one byte per UTF-16 unit, so this rules out long strings before encoding
    if (key.length + value.length + 6 >= 0x80) return false;
    const start = this.pos;
    this.tag(field, WireType.Len);
    this.ensure(7 + 3 * (key.length + value.length));
    const buf = this.buf;
    const sizeAt = this.pos;
    let pos = sizeAt + 1;
    if (key) {
      buf[pos] = 1 * 8 + WireType.Len;
      const keySizeAt = pos + 1;
      pos = writeUtf8(buf, keySizeAt + 1, key);
      buf[keySizeAt] = pos - keySizeAt - 1;
    }
    buf[pos] = 2 * 8 + WireType.Len;
    const anySizeAt = pos + 1;
    buf[anySizeAt + 1] = 1 * 8 + WireType.Len;
    const valueSizeAt = anySizeAt + 2;
    pos = writeUtf8(buf, valueSizeAt + 1, value);
    const size = pos - sizeAt - 1;
    if (size >= 0x80) {
      this.pos = start;
      return false;
    }
    buf[valueSizeAt] = pos - valueSizeAt - 1;
    buf[anySizeAt] = pos - anySizeAt - 1;
    buf[sizeAt] = size;
    this.pos = pos;
    return true;
  }

  // ------------------------------------------------------------------ primitives

  tag(field: number, wireType: WireType): void {
    this.varint(field * 8 + wireType);
  }

  /** A non-negative integer below 2^53 (lengths, counts, uint32 values). */
  varint(value: number): void {
    this.ensure(10);
    this.pos = this.writeVarintAt(this.pos, value);
  }

  varint64(value: bigint): void {
    // counts and most ids fit a number: comparing bigints allocates nothing, BigInt arithmetic does
    if (value >= 0n && value <= MAX_SAFE) {
      this.varint(Number(value));
      return;
    }
    const unsigned = BigInt.asUintN(64, value);
    let lo = Number(unsigned & 0xffff_ffffn);
    let hi = Number(unsigned >> 32n);
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    while (hi > 0 || lo >= 0x80) {
      buf[pos++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    buf[pos++] = lo;
    this.pos = pos;
  }

  fixed64(value: bigint): void {
    this.ensure(8);
    // out-of-range values go to Buffer, which rejects them
    if (!LITTLE_ENDIAN || value < 0n || value > U64_MAX) {
      this.buf.writeBigUInt64LE(value, this.pos);
      this.pos += 8;
      return;
    }
    scratch64[0] = value;
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < 8; i++) buf[pos++] = scratch64Bytes[i];
    this.pos = pos;
  }

  double(value: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(value, this.pos);
    this.pos += 8;
  }

  byte(value: number): void {
    this.ensure(1);
    this.buf[this.pos++] = value;
  }

  raw(bytes: Uint8Array, start = 0, end = bytes.length): void {
    const size = end - start;
    this.ensure(size);
    if (size < 32) {
      for (let i = start; i < end; i++) this.buf[this.pos++] = bytes[i];
      return;
    }
    this.buf.set(bytes.subarray(start, end), this.pos);
    this.pos += size;
  }

  /**
   * Length-prefixed UTF-8. Short strings (the vast majority: keys, names, ids) are encoded inline
   * behind a one-byte length, skipping Buffer.byteLength and the native write call.
   */
  string(value: string): void {
    if (value.length * 3 < 0x80) {
      this.ensure(1 + value.length * 3);
      const lengthAt = this.pos++;
      this.pos = writeUtf8(this.buf, this.pos, value);
      this.buf[lengthAt] = this.pos - lengthAt - 1;
      return;
    }
    const size = Buffer.byteLength(value, 'utf8');
    this.varint(size);
    this.ensure(size);
    this.pos += this.buf.write(value, this.pos, size, 'utf8');
  }

  // ------------------------------------------------------------------ internals

  private writeVarintAt(pos: number, value: number): number {
    const buf = this.buf;
    while (value >= UINT32_LIMIT) {
      buf[pos++] = (value % 0x80) | 0x80;
      value = Math.floor(value / 0x80);
    }
    while (value >= 0x80) {
      buf[pos++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    buf[pos++] = value;
    return pos;
  }

  private ensure(extra: number): void {
    const needed = this.pos + extra;
    if (needed <= this.buf.length) return;
    let capacity = Math.max(16, this.buf.length * 2);
    while (capacity < needed) capacity *= 2;
    const grown = Buffer.allocUnsafe(capacity);
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }
}

/**
 * Encodes like Buffer#write('utf8'), including U+FFFD for lone surrogates, so the inline and the
 * native path produce identical bytes. The caller guarantees 3 bytes per UTF-16 unit of room.
 */
function writeUtf8(buf: Buffer, pos: number, value: string): number {
  for (let i = 0; i < value.length; i++) {
    let code = value.charCodeAt(i);
    if (code < 0x80) {
      buf[pos++] = code;
    } else if (code < 0x800) {
      buf[pos++] = 0xc0 | (code >> 6);
      buf[pos++] = 0x80 | (code & 0x3f);
    } else {
      if (code >= 0xd800 && code <= 0xdfff) {
        const next = value.charCodeAt(i + 1);
        if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
          i++;
          buf[pos++] = 0xf0 | (code >> 18);
          buf[pos++] = 0x80 | ((code >> 12) & 0x3f);
          buf[pos++] = 0x80 | ((code >> 6) & 0x3f);
          buf[pos++] = 0x80 | (code & 0x3f);
          continue;
        }
        code = 0xfffd;
      }
      buf[pos++] = 0xe0 | (code >> 12);
      buf[pos++] = 0x80 | ((code >> 6) & 0x3f);
      buf[pos++] = 0x80 | (code & 0x3f);
    }
  }
  return pos;
}
