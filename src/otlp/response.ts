/**
 * Reads the partial_success of an Export{Logs,Trace,Metrics}ServiceResponse. All three share one
 * shape on the wire (partial_success = 1 {rejected_* = 1 int64, error_message = 2 string}), so one
 * reader serves every signal without loading the .proto files at runtime.
 */

export interface PartialSuccess {
  rejected: number;
  errorMessage: string;
}

const enum WireType {
  Varint = 0,
  Fixed64 = 1,
  Len = 2,
  StartGroup = 3,
  EndGroup = 4,
  Fixed32 = 5,
}

const PARTIAL_SUCCESS = 1;
const REJECTED = 1;
const ERROR_MESSAGE = 2;

/** `{ rejected: 0, errorMessage: '' }` when the collector accepted everything. */
export function decodeExportResponse(bytes: Uint8Array): PartialSuccess {
  const result: PartialSuccess = { rejected: 0, errorMessage: '' };
  const reader = new Reader(bytes, 0, bytes.length);
  while (!reader.done) {
    const [field, wireType] = reader.tag();
    // A repeated occurrence of a message field merges into the earlier one, per the encoding spec.
    if (field === PARTIAL_SUCCESS && wireType === WireType.Len) readPartialSuccess(reader.message(), result);
    else reader.skip(wireType);
  }
  return result;
}

function readPartialSuccess(reader: Reader, into: PartialSuccess): void {
  while (!reader.done) {
    const [field, wireType] = reader.tag();
    if (field === REJECTED && wireType === WireType.Varint) {
      // A negative count is meaningless; counting it would inflate "accepted" downstream.
      const rejected = Number(BigInt.asIntN(64, reader.varint()));
      into.rejected = Math.max(0, rejected);
    } else if (field === ERROR_MESSAGE && wireType === WireType.Len) {
      into.errorMessage = reader.string();
    } else {
      reader.skip(wireType);
    }
  }
}

class Reader {
  constructor(
    private readonly bytes: Uint8Array,
    private pos: number,
    private readonly end: number,
  ) {}

  get done(): boolean {
    return this.pos >= this.end;
  }

  tag(): [field: number, wireType: number] {
    const key = this.varint();
    const field = Number(key >> 3n);
    if (field === 0 || key >> 3n > 0x1fff_ffffn) throw this.malformed(`invalid field number ${key >> 3n}`);
    return [field, Number(key & 7n)];
  }

  varint(): bigint {
    let value = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.pos >= this.end) throw this.malformed('truncated varint');
      const byte = this.bytes[this.pos++];
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
    throw this.malformed('varint longer than 10 bytes');
  }

  /** A sub-reader over the next length-delimited payload, which this reader then steps over. */
  message(): Reader {
    const length = this.length();
    const sub = new Reader(this.bytes, this.pos, this.pos + length);
    this.pos += length;
    return sub;
  }

  string(): string {
    const length = this.length();
    const text = Buffer.from(this.bytes.buffer, this.bytes.byteOffset + this.pos, length).toString('utf8');
    this.pos += length;
    return text;
  }

  skip(wireType: number): void {
    switch (wireType) {
      case WireType.Varint:
        this.varint();
        return;
      case WireType.Fixed64:
        this.advance(8);
        return;
      case WireType.Len:
        this.advance(this.length());
        return;
      case WireType.Fixed32:
        this.advance(4);
        return;
      case WireType.StartGroup:
      case WireType.EndGroup:
        throw this.malformed('groups are not used by OTLP');
      default:
        throw this.malformed(`invalid wire type ${wireType}`);
    }
  }

  private length(): number {
    const length = this.varint();
    if (length > BigInt(this.end - this.pos)) throw this.malformed(`length ${length} runs past the end`);
    return Number(length);
  }

  private advance(count: number): void {
    if (count > this.end - this.pos) throw this.malformed('truncated field');
    this.pos += count;
  }

  private malformed(reason: string): Error {
    return new Error(`malformed OTLP export response at byte ${this.pos}: ${reason}`);
  }
}
