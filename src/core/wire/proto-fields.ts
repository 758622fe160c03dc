/**
 * Declarative field dispatch over the shared ProtoReader for the agent's metric payloads
 * (MetricPayload, SketchPayload, v3 Payload). A message is read as a table of field number →
 * reader; a field with no reader, or with a wire type its reader does not take, is skipped as
 * unknown, the way Go's protobuf runtime treats it, so newer agents' additions never fail a body.
 */
import { ProtoDecodeError, ProtoReader, WireType } from './proto-reader';
import { MalformedInputError } from '../errors';

/**
 * How one field is read. `into` is the object being filled: a table written against it is built
 * once per message type (see readInto), while one written with closures over the object is built
 * for every message read.
 */
export interface FieldReader<T = void> {
  /** The wire types it takes, one bit each (see wireSet). */
  wires: number;
  read(r: ProtoReader, wire: WireType, into: T): void;
}

export type FieldReaders<T = void> = Readonly<Record<number, FieldReader<T>>>;

export function readFields(r: ProtoReader, readers: FieldReaders): void {
  readInto(r, readers, undefined);
}

/**
 * Reads a message into `into` through a table made once: making the table (a closure and a
 * reader per field) for every series, point and resource was most of the cost of decoding them.
 */
export function readInto<T>(r: ProtoReader, readers: FieldReaders<T>, into: T): void {
  while (!r.done) {
    const key = r.key();
    const wire = (key & 7) as WireType;
    const reader = readers[key >>> 3];
    if (reader && (reader.wires >>> wire) & 1) reader.read(r, wire, into);
    else r.skip(wire);
  }
}

/** A set of wire types as bits: testing a bit was cheaper than Array#includes once per field read. */
const wireSet = (...wires: WireType[]): number => wires.reduce((set, wire) => set | (1 << wire), 0);

const LEN = wireSet(WireType.Len);
const VARINT = wireSet(WireType.Varint);
const FIXED64 = wireSet(WireType.Fixed64);
const PACKED_OR_VARINT = wireSet(WireType.Len, WireType.Varint);

export const text = <T = void>(set: (value: string, into: T) => void): FieldReader<T> => ({ wires: LEN, read: (r, _wire, into) => set(r.string(), into) });

export const bytes = (set: (value: Uint8Array) => void): FieldReader => ({ wires: LEN, read: (r) => set(r.bytesView()) });

/** An embedded message; `name` (called when the field is met) extends error paths, e.g. `series[3]`. */
export const message = (name: () => string, read: (m: ProtoReader) => void): FieldReader => ({ wires: LEN, read: (r) => read(r.message(name())) });

/**
 * One of a repeated embedded message, at `index(into)` in error paths, e.g. `series[3]`: no path
 * string is built unless an error needs it.
 */
export const messageAt = <T>(name: string, index: (into: T) => number, read: (m: ProtoReader, into: T) => void): FieldReader<T> => ({
  wires: LEN,
  read: (r, _wire, into) => read(r.message(name, index(into)), into),
});

export const varint = <T = void>(set: (r: ProtoReader, into: T) => void): FieldReader<T> => ({ wires: VARINT, read: (r, _wire, into) => set(r, into) });

export const fixed64 = <T = void>(set: (r: ProtoReader, into: T) => void): FieldReader<T> => ({ wires: FIXED64, read: (r, _wire, into) => set(r, into) });

/** A repeated scalar, packed or one value per occurrence. */
export const repeated = <V>(wire: WireType, readOne: (r: ProtoReader) => V, into: V[]): FieldReader => repeatedIn(wire, readOne, () => into);

/** A repeated scalar into the list `list(into)` of the object being filled. */
export const repeatedIn = <V, T>(wire: WireType, readOne: (r: ProtoReader) => V, list: (into: T) => V[]): FieldReader<T> => ({
  wires: wireSet(WireType.Len, wire),
  read: (r, w, into) => r.repeated(w, readOne, list(into)),
});

/** A repeated uint32 (sint32 when `zigzag`) into the list `list(into)`, packed runs read inline (see ProtoReader.repeatedUint32). */
export const uint32sIn = <T>(zigzag: boolean, list: (into: T) => number[]): FieldReader<T> => ({
  wires: PACKED_OR_VARINT,
  read: (r, w, into) => r.repeatedUint32(w, zigzag, list(into)),
});

/** 64-bit integers as numbers: timestamps, counts and dictionary refs never approach 2^53. */
function safe(r: ProtoReader, value: bigint): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) r.fail(`integer ${value} is out of range`);
  return n;
}

export const int64Number = (r: ProtoReader): number => r.smallVarint() ?? safe(r, r.int64());
export const uint64Number = (r: ProtoReader): number => r.smallVarint() ?? safe(r, r.uint64());

/** zigzag: 0, -1, 1, -2, … are 0, 1, 2, 3, … */
export function sint64Number(r: ProtoReader): number {
  const small = r.smallVarint();
  if (small === undefined) return safe(r, r.sint64());
  return small % 2 === 0 ? small / 2 : -(small + 1) / 2;
}

/** Decodes a body, turning wire-format errors into a 400 that names the field path. */
export function decodeProtobuf<T>(what: string, body: Uint8Array, root: string, decode: (r: ProtoReader) => T, start = 0): T {
  try {
    return decode(new ProtoReader(body, start, body.length, root));
  } catch (err) {
    if (err instanceof ProtoDecodeError) throw protobufError(what, err);
    throw err;
  }
}

const protobufError = (what: string, err: ProtoDecodeError): MalformedInputError => new MalformedInputError(`${what}: invalid protobuf: ${err.message}`);
