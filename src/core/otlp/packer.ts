/**
 * Splits a request's piece tree (src/core/otlp/pieces.ts) into bodies no larger than a byte limit,
 * copying the encoded pieces out of the scratch buffer and writing the length prefixes around them.
 */
import { own } from '../owned-buffers';
import { bareSize, emptyCopy, type Frame, isFrame, type Piece, pieceRecords, pieceSize } from './pieces';
import { lenFieldSize, ProtoWriter } from '../wire/proto-writer';

/** One Export*ServiceRequest body and the number of records it carries. */
export interface PackedBody {
  body: Buffer;
  records: number;
}

/**
 * Copies the bodies out of the scratch, which then goes back for the next request. A record that
 * is bigger than `maxBytes` even alone cannot be split; `tooLarge` gives the error to throw, which
 * only the caller can word (it knows the signal).
 */
export function packBodies(scratch: ProtoWriter, request: Frame, maxBytes: number, tooLarge: (size: number) => Error): PackedBody[] {
  try {
    if (request.records === 0) return [];
    const packer = new Packer(scratch.bytes(), maxBytes, tooLarge, request);
    packer.placeChildren(request, [request]);
    packer.flush();
    return packer.bodies;
  } finally {
    scratch.recycle();
  }
}

/**
 * Fills bodies in record order. A container goes into the current body whole if it fits, else
 * into a fresh body whole if it fits there, and only otherwise is it opened and its children
 * placed one by one, so resources and metrics are split only when they must be.
 */
class Packer {
  readonly bodies: PackedBody[] = [];
  /** The body being filled: partial copies of the frames on the current path, request first. */
  private open: Frame[];
  /** The original frame each entry of `open` copies, to tell whether a path is still open. */
  private originals: Frame[];
  /** Payload sizes of each level of `open` computed by the last {@link project}. */
  private readonly projected: number[] = [];

  constructor(
    private readonly scratch: Buffer,
    private readonly maxBytes: number,
    private readonly tooLarge: (size: number) => Error,
    private readonly request: Frame,
  ) {
    this.open = [emptyCopy(request)];
    this.originals = [request];
  }

  placeChildren(frame: Frame, path: Frame[]): void {
    for (const child of frame.children) this.place(child, path);
  }

  flush(): void {
    const body = this.open[0];
    if (body.records > 0) this.bodies.push({ body: this.serialize(body), records: body.records });
    this.open = [emptyCopy(this.request)];
    this.originals = [this.request];
  }

  /** `path` lists the frames enclosing `piece`, from the request down to its parent. */
  private place(piece: Piece, path: Frame[]): void {
    if (this.tryAppend(piece, path)) return;
    const aloneSize = this.project(piece, path, 0);
    if (aloneSize <= this.maxBytes) {
      this.flush();
      this.tryAppend(piece, path);
      return;
    }
    if (!isFrame(piece)) throw this.tooLarge(aloneSize);
    path.push(piece);
    this.placeChildren(piece, path);
    path.pop();
  }

  private tryAppend(piece: Piece, path: Frame[]): boolean {
    const shared = this.sharedDepth(path);
    if (this.project(piece, path, shared) > this.maxBytes) return false;
    this.commit(piece, path, shared);
    return true;
  }

  /** How many leading frames of `path` are already open in the current body. */
  private sharedDepth(path: Frame[]): number {
    let depth = 0;
    while (depth < path.length && depth < this.originals.length && this.originals[depth] === path[depth]) depth++;
    return depth;
  }

  /**
   * Body size if `piece` were added under `path`, reusing the first `shared` open frames and
   * opening copies of the rest. Walks up level by level because a grown child can also grow
   * its parent's length prefix.
   */
  private project(piece: Piece, path: Frame[], shared: number): number {
    const last = path.length - 1;
    let added = lenFieldSize(path[last].childField, pieceSize(piece));
    for (let level = last; ; level--) {
      const reused = level < shared;
      const before = reused ? this.open[level].size : bareSize(path[level]);
      const after = before + added;
      this.projected[level] = after;
      if (level === 0) return after;
      const field = path[level - 1].childField;
      added = lenFieldSize(field, after) - (reused ? lenFieldSize(field, before) : 0);
    }
  }

  /** Applies the sizes of the {@link project} call made with the same arguments. */
  private commit(piece: Piece, path: Frame[], shared: number): void {
    this.open.length = shared;
    this.originals.length = shared;
    for (let level = shared; level < path.length; level++) {
      const copy = emptyCopy(path[level]);
      this.open[level - 1].children.push(copy);
      this.open.push(copy);
      this.originals.push(path[level]);
    }
    this.open[path.length - 1].children.push(piece);
    const records = pieceRecords(piece);
    for (let level = 0; level < path.length; level++) {
      this.open[level].size = this.projected[level];
      this.open[level].records += records;
    }
  }

  private serialize(body: Frame): Buffer {
    const out = new ProtoWriter(body.size);
    writePayload(out, this.scratch, body);
    if (out.length !== body.size) {
      throw new Error(`OTLP encoder bug: a body is ${out.length} bytes, computed ${body.size}`);
    }
    return own(out.bytes());
  }
}

function writePayload(out: ProtoWriter, scratch: Buffer, frame: Frame): void {
  out.raw(scratch, frame.head.start, frame.head.end);
  for (const child of frame.children) {
    out.lenPrefix(frame.childField, pieceSize(child));
    if (isFrame(child)) writePayload(out, scratch, child);
    else out.raw(scratch, child.start, child.end);
  }
  out.raw(scratch, frame.tail.start, frame.tail.end);
}
