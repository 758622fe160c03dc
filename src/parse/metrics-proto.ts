/**
 * Declarative field dispatch over the shared ProtoReader for the agent's metric payloads
 * (MetricPayload, SketchPayload, v3 Payload). A message is read as a table of field number →
 * reader; a field with no reader, or with a wire type its reader does not take, is skipped as
 * unknown, the way Go's protobuf runtime treats it, so newer agents' additions never fail a body.
 */
import { ProtoDecodeError, ProtoReader, WireType } from './proto-reader';
import { badRequest, type HttpError } from '../server/errors';

export interface FieldReader {
  wires: readonly WireType[];
  read(r: ProtoReader, wire: WireType): void;
}

export type FieldReaders = Readonly<Record<number, FieldReader>>;

export function readFields(r: ProtoReader, readers: FieldReaders): void {
  while (!r.done) {
    const [field, wire] = r.tag();
    const reader = readers[field];
    if (reader && reader.wires.includes(wire)) reader.read(r, wire);
    else r.skip(wire);
  }
}

// shared: the tables below are built for every message read, and these arrays need not be
const LEN: readonly WireType[] = [WireType.Len];
const VARINT: readonly WireType[] = [WireType.Varint];
const FIXED64: readonly WireType[] = [WireType.Fixed64];
const PACKED_OR: Readonly<Partial<Record<WireType, readonly WireType[]>>> = {
  [WireType.Varint]: [WireType.Len, WireType.Varint],
  [WireType.Fixed64]: [WireType.Len, WireType.Fixed64],
  [WireType.Fixed32]: [WireType.Len, WireType.Fixed32],
};

export const text = (set: (value: string) => void): FieldReader => ({ wires: LEN, read: (r) => set(r.string()) });

export const bytes = (set: (value: Uint8Array) => void): FieldReader => ({ wires: LEN, read: (r) => set(r.bytesView()) });

/** An embedded message; `name` (called when the field is met) extends error paths, e.g. `series[3]`. */
export const message = (name: () => string, read: (m: ProtoReader) => void): FieldReader => ({ wires: LEN, read: (r) => read(r.message(name())) });

export const varint = (set: (r: ProtoReader) => void): FieldReader => ({ wires: VARINT, read: set });

export const fixed64 = (set: (r: ProtoReader) => void): FieldReader => ({ wires: FIXED64, read: set });

/** A repeated scalar, packed or one value per occurrence. */
export const repeated = <T>(wire: WireType, readOne: (r: ProtoReader) => T, into: T[]): FieldReader => ({
  wires: PACKED_OR[wire] ?? [WireType.Len, wire],
  read: (r, w) => r.repeated(w, readOne, into),
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
export function decodeProtobuf<T>(what: string, body: Uint8Array, root: string, decode: (r: ProtoReader) => T): T {
  try {
    return decode(new ProtoReader(body, 0, body.length, root));
  } catch (err) {
    if (err instanceof ProtoDecodeError) throw protobufError(what, err);
    throw err;
  }
}

const protobufError = (what: string, err: ProtoDecodeError): HttpError => badRequest(`${what}: invalid protobuf: ${err.message}`);
