import zlib from 'node:zlib';
import type { Transform } from 'node:stream';
import { Decompress } from 'fzstd';
import { TooLargeError } from '../../core/errors';
import { corrupt, decodeWith, DECOMPRESSOR_OPTIONS, drainThrough, type CappedOutput, type DecodeLimits } from './output';
import { own } from '../../core/owned-buffers';
import { assertFrameFits, zstdFrames, type ZstdFrame } from './zstd-frames';

/** `addon`: libzstd through the optional zstd-napi module; `native`: node:zlib; `fzstd`: pure JS. */
export type ZstdImplementation = 'addon' | 'native' | 'fzstd';

/** The part of node:zlib's zstd support (Node 22.15 / 23.8+) we use; @types/node 20 lacks it. */
interface NativeZstd {
  createZstdDecompress(options?: { chunkSize?: number }): Transform;
}

/** The part of zstd-napi's binding (libzstd's ZSTD_DCtx) we use. */
interface LibzstdBinding {
  DCtx: new () => DecompressionContext;
  ResetDirective: { sessionOnly: number };
}

interface DecompressionContext {
  /** ZSTD_decompressDCtx: one whole frame into `dst`; returns the bytes written. */
  decompress(dst: Uint8Array, src: Uint8Array): number;
  /** ZSTD_decompressStream: [bytes still expected (0 at a frame's end), bytes written, bytes read]. */
  decompressStream(dst: Uint8Array, src: Uint8Array): [number, number, number];
  reset(directive: number): void;
}

// Feature test, not a version test: backports and flags make version numbers unreliable.
const nativeZstd: NativeZstd | undefined = typeof (zlib as unknown as Partial<NativeZstd>).createZstdDecompress === 'function' ? (zlib as unknown as NativeZstd) : undefined;

/** An optional dependency: absent (it failed to build, or was left out) means the next choice. */
function loadLibzstd(): LibzstdBinding | undefined {
  try {
    return require('zstd-napi/binding') as LibzstdBinding;
  } catch {
    return undefined;
  }
}

const libzstd = loadLibzstd();

/**
 * libzstd first: its calls are synchronous and reuse one context, so a small body costs a few
 * µs where node:zlib's stream and the former async addon each paid a thread-pool round trip
 * (docs/decisions/004-zstd-addon.md); then node:zlib; then fzstd.
 */
export const zstdImplementation: ZstdImplementation = libzstd !== undefined ? 'addon' : nativeZstd !== undefined ? 'native' : 'fzstd';

export const isZstdNative = (): boolean => zstdImplementation === 'native';

/** Every implementation this runtime can run, preferred first (tests run them all). */
export const availableZstdImplementations = (): ZstdImplementation[] => [...(libzstd !== undefined ? (['addon'] as const) : []), ...(nativeZstd !== undefined ? (['native'] as const) : []), 'fzstd'];

/**
 * Each native write costs ~40 µs (a thread-pool round trip), so without a limit a 25 MiB body of
 * 10-byte frames would keep a decoder busy for about 100 s. Real senders send one frame.
 */
export const MAX_ZSTD_FRAMES = 10_000;

/**
 * Decodes every frame of a zstd body, skipping skippable frames. `implementation` exists so
 * tests can run both paths on any runtime.
 */
export async function decodeZstd(raw: Buffer, limits: DecodeLimits, implementation: ZstdImplementation = zstdImplementation): Promise<Buffer> {
  const decodeFrames = frameDecoder(implementation);
  return decodeWith('zstd', limits, (out) => decodeFrames(admittedFrames(raw, out), out));
}

type FrameDecoder = (frames: Iterable<ZstdFrame>, out: CappedOutput) => void | Promise<void>;

// Outside decodeWith on purpose: asking for a missing implementation is our bug, not a 400.
function frameDecoder(implementation: ZstdImplementation): FrameDecoder {
  if (implementation === 'fzstd') return decodeFramesWithFzstd;
  if (implementation === 'addon') {
    const binding = libzstd;
    if (binding === undefined) throw new Error('the zstd-napi module is not installed');
    return (frames, out) => decodeFramesWithLibzstd(binding, frames, out);
  }
  const native = nativeZstd;
  if (native === undefined) throw new Error('this Node.js runtime has no native zstd');
  return (frames, out) => decodeFramesNatively(native, frames, out);
}

/**
 * node:zlib's decoder calls an input that holds no frame truncated (Node 24), while a body of
 * only skippable frames is valid and decodes to nothing: such a body never reaches it.
 */
async function decodeFramesNatively(native: NativeZstd, frames: Iterable<ZstdFrame>, out: CappedOutput): Promise<void> {
  const bytes = frameBytes(frames);
  const first = bytes.next();
  if (first.done) return;
  await drainThrough(withFirst(first.value, bytes), native.createZstdDecompress(DECOMPRESSOR_OPTIONS), out);
}

function* withFirst<T>(first: T, rest: Iterator<T>): Generator<T, void, undefined> {
  yield first;
  for (let next = rest.next(); !next.done; next = rest.next()) yield next.value;
}

/**
 * Bigger frames are decoded in chunks: a one-call buffer is sized from the frame's bound, which
 * for compressed blocks is 128 KiB each whatever they hold.
 */
const ONE_CALL_MAX_BYTES = 8 * 1024 * 1024;

let context: DecompressionContext | undefined;

/**
 * One context for the process, reused by every body: decoding is synchronous, so no two bodies
 * ever share it at once, and a fresh context per body was most of a small body's cost.
 */
function decodeFramesWithLibzstd(binding: LibzstdBinding, frames: Iterable<ZstdFrame>, out: CappedOutput): void {
  context ??= new binding.DCtx();
  const dctx = context;
  try {
    for (const frame of frames) {
      const size = frame.contentSize ?? frame.maxOutput;
      if (size <= Math.min(out.remaining, ONE_CALL_MAX_BYTES)) decodeInOneCall(dctx, frame, size, out);
      else decodeInChunks(dctx, frame, out);
    }
  } catch (err) {
    // a failed streaming call leaves the context mid-frame
    dctx.reset(binding.ResetDirective.sessionOnly);
    throw err;
  }
}

/**
 * A frame without a declared size (the agent declares none) is decoded into a buffer sized from its
 * bound, 128 KiB per compressed block however little the block holds. A fresh one per body cost a
 * 10-series body 128 KiB for its ~3 KB, and the external memory made V8 run a scavenge every few
 * milliseconds (docs/decisions/004-zstd-addon.md). So output below this is copied out and the
 * buffer kept for the next frame; larger output keeps its buffer, as a copy would cost more than it
 * saves.
 */
const COPIED_OUTPUT_MAX_BYTES = 64 * 1024;
/** A buffer grown past this for one frame is not kept for the life of the process. */
const SPARE_OUTPUT_MAX_BYTES = 1024 * 1024;
let spareOutput: Buffer | undefined;

/** Into a buffer of the declared size or the bound; libzstd checks a declared size and the checksum. */
function decodeInOneCall(dctx: DecompressionContext, frame: ZstdFrame, size: number, out: CappedOutput): void {
  const target = spareOutput !== undefined && spareOutput.length >= size ? spareOutput : Buffer.allocUnsafe(size);
  const written = dctx.decompress(target, frame.bytes);
  if (written > COPIED_OUTPUT_MAX_BYTES) {
    if (target === spareOutput) spareOutput = undefined;
    out.push(own(target.subarray(0, written)));
    return;
  }
  if (target.length <= SPARE_OUTPUT_MAX_BYTES) spareOutput = target;
  out.push(Buffer.from(target.subarray(0, written)));
}

/**
 * Each chunk is at most one byte over what the cap leaves, so a bomb stops within a chunk of
 * the cap. Our frame walk already proved every block is present, so a call that makes no
 * progress means corrupt data, not a short read.
 */
function decodeInChunks(dctx: DecompressionContext, frame: ZstdFrame, out: CappedOutput): void {
  let input = frame.bytes;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(DECOMPRESSOR_OPTIONS.chunkSize, out.remaining + 1));
    const [expected, written, read] = dctx.decompressStream(chunk, input);
    out.push(own(chunk.subarray(0, written)));
    input = input.subarray(read);
    if (expected === 0) return;
    if (written === 0 && read === 0) throw corrupt('zstd', 'the decoder stopped before the end of a frame');
  }
}

/**
 * Checks each frame against what is left of the budget before a decoder sees it. Native output
 * lags behind the writes, so there `remaining` can only overstate what is left; the output cap
 * still holds.
 */
function* admittedFrames(raw: Buffer, out: CappedOutput): Generator<ZstdFrame, void, undefined> {
  let count = 0;
  for (const frame of zstdFrames(raw)) {
    if (++count > MAX_ZSTD_FRAMES) {
      throw new TooLargeError(`zstd body has more than ${MAX_ZSTD_FRAMES} frames`);
    }
    assertFrameFits(frame, out.remaining, out.maxBytes);
    yield frame;
  }
}

/** One write per frame: node's decoder drops whatever follows the end of a frame in a chunk. */
function* frameBytes(frames: Iterable<ZstdFrame>): Generator<Buffer, void, undefined> {
  for (const frame of frames) yield frame.bytes;
}

/**
 * A fresh streaming decoder per frame, so fzstd never reads (and sizes a buffer from) a header
 * we have not admitted. fzstd checks neither the declared size nor the checksum, so the size is
 * checked here; the checksum is not verified on this path.
 */
function decodeFramesWithFzstd(frames: Iterable<ZstdFrame>, out: CappedOutput): void {
  for (const frame of frames) {
    let produced = 0;
    const decoder = new Decompress((chunk) => {
      produced += chunk.length;
      if (frame.contentSize !== undefined && produced > frame.contentSize) {
        throw corrupt('zstd', `frame decodes to more than its declared ${frame.contentSize} bytes`);
      }
      out.push(chunk);
    });
    decoder.push(frame.bytes, true);
    if (frame.contentSize !== undefined && produced !== frame.contentSize) {
      throw corrupt('zstd', `frame decodes to ${produced} bytes but declares ${frame.contentSize}`);
    }
  }
}
