/**
 * The piece tree the encoder builds in its scratch buffer: every record is encoded once into a
 * {@link Slice}, and the messages around records are {@link Frame}s whose payload sizes are known,
 * so src/core/otlp/packer.ts can split a request by arithmetic and copy bytes instead of re-encoding.
 */
import { lenFieldSize, type ProtoWriter } from '../wire/proto-writer';

/** A byte range of the scratch buffer holding encoded fields. */
export interface Slice {
  start: number;
  end: number;
}

/**
 * A message with one repeated (or single) message field, `childField`, that may be spread over
 * several bodies; each body then carries a copy of `head` and `tail` around its share.
 */
export interface Frame {
  head: Slice;
  childField: number;
  children: Piece[];
  tail: Slice;
  /** Encoded size of the message's payload (without its own tag and length). */
  size: number;
  records: number;
}

/** A Frame, or a Slice holding one encoded record. */
export type Piece = Frame | Slice;

export const NOTHING: Slice = { start: 0, end: 0 };

export const isFrame = (piece: Piece): piece is Frame => 'children' in piece;
const sliceSize = (slice: Slice): number => slice.end - slice.start;
export const pieceSize = (piece: Piece): number => (isFrame(piece) ? piece.size : sliceSize(piece));
export const pieceRecords = (piece: Piece): number => (isFrame(piece) ? piece.records : 1);
export const bareSize = (frame: Frame): number => sliceSize(frame.head) + sliceSize(frame.tail);

/** Containers without a single record are dropped: an empty resource or metric exports nothing. */
export function makeFrame(head: Slice, childField: number, pieces: Piece[], tail: Slice): Frame {
  const children = pieces.filter((piece) => pieceRecords(piece) > 0);
  let size = sliceSize(head) + sliceSize(tail);
  let records = 0;
  for (const child of children) {
    size += lenFieldSize(childField, pieceSize(child));
    records += pieceRecords(child);
  }
  return { head, childField, children, tail, size, records };
}

export function emptyCopy(frame: Frame): Frame {
  return { ...frame, children: [], size: bareSize(frame), records: 0 };
}

/** Runs `write` against the scratch writer and remembers where its bytes landed. */
export function encodeSlice<T>(w: ProtoWriter, write: (w: ProtoWriter, value: T) => void, value: T): Slice {
  const start = w.length;
  write(w, value);
  return { start, end: w.length };
}
