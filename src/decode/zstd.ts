import zlib from 'node:zlib';
import type { Transform } from 'node:stream';
import { Decompress } from 'fzstd';
import { payloadTooLarge } from '../server/errors';
import {
  corrupt,
  decodeWith,
  DECOMPRESSOR_OPTIONS,
  drainThrough,
  type CappedOutput,
  type DecodeLimits,
} from './output';
import { assertFrameFits, zstdFrames, type ZstdFrame } from './zstd-frames';

/** `native`: node:zlib; `addon`: the optional @mongodb-js/zstd module (libzstd); `fzstd`: pure JS. */
export type ZstdImplementation = 'native' | 'addon' | 'fzstd';

/** The part of node:zlib's zstd support (Node 22.15 / 23.8+) we use; @types/node 20 lacks it. */
interface NativeZstd {
  createZstdDecompress(options?: { chunkSize?: number }): Transform;
}

interface ZstdAddon {
  decompress(data: Buffer): Promise<Buffer>;
}

// Feature test, not a version test: backports and flags make version numbers unreliable.
const nativeZstd: NativeZstd | undefined =
  typeof (zlib as unknown as Partial<NativeZstd>).createZstdDecompress === 'function'
    ? (zlib as unknown as NativeZstd)
    : undefined;

/** An optional dependency: absent (no prebuilt binary for the platform) means fzstd. */
function loadAddon(): ZstdAddon | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('@mongodb-js/zstd') as ZstdAddon;
  } catch {
    return undefined;
  }
}

const zstdAddon = loadAddon();

/** node:zlib first (streams under our cap), then libzstd through the addon (3–5× fzstd here: README). */
export const zstdImplementation: ZstdImplementation = nativeZstd !== undefined ? 'native' : zstdAddon !== undefined ? 'addon' : 'fzstd';

export const isZstdNative = (): boolean => zstdImplementation === 'native';

/** Every implementation this runtime can run, preferred first (tests run them all). */
export const availableZstdImplementations = (): ZstdImplementation[] => [
  ...(nativeZstd !== undefined ? (['native'] as const) : []),
  ...(zstdAddon !== undefined ? (['addon'] as const) : []),
  'fzstd',
];

/**
 * Each native write costs ~40 µs (a thread-pool round trip), so without a limit a 25 MiB body of
 * 10-byte frames would keep a decoder busy for about 100 s. Real senders send one frame.
 */
export const MAX_ZSTD_FRAMES = 10_000;

/**
 * Decodes every frame of a zstd body, skipping skippable frames. `implementation` exists so
 * tests can run both paths on any runtime.
 */
export async function decodeZstd(
  raw: Buffer,
  limits: DecodeLimits,
  implementation: ZstdImplementation = zstdImplementation,
): Promise<Buffer> {
  const decodeFrames = frameDecoder(implementation);
  return decodeWith('zstd', limits, (out) => decodeFrames(admittedFrames(raw, out), out));
}

type FrameDecoder = (frames: Iterable<ZstdFrame>, out: CappedOutput) => void | Promise<void>;

// Outside decodeWith on purpose: asking for a missing implementation is our bug, not a 400.
function frameDecoder(implementation: ZstdImplementation): FrameDecoder {
  if (implementation === 'fzstd') return decodeFramesWithFzstd;
  if (implementation === 'addon') {
    const addon = zstdAddon;
    if (addon === undefined) throw new Error('the @mongodb-js/zstd module is not installed');
    return (frames, out) => decodeFramesWithAddon(addon, frames, out);
  }
  const native = nativeZstd;
  if (native === undefined) throw new Error('this Node.js runtime has no native zstd');
  return (frames, out) => drainThrough(frameBytes(frames), native.createZstdDecompress(DECOMPRESSOR_OPTIONS), out);
}

/**
 * The addon has no output cap: it only ever sees frames whose block headers bound their output
 * (ZstdFrame.maxOutput, the bound libzstd's own ZSTD_decompressBound uses) within what is left.
 * A body that could pass the cap goes to fzstd, which stops at the cap, so a bomb still costs at
 * most the cap. libzstd checks declared sizes and checksums itself.
 */
async function decodeFramesWithAddon(addon: ZstdAddon, frames: Iterable<ZstdFrame>, out: CappedOutput): Promise<void> {
  const admitted = [...frames];
  const bound = admitted.reduce((sum, frame) => sum + frame.maxOutput, 0);
  if (bound > out.remaining) return decodeFramesWithFzstd(admitted, out);
  // one call for the whole body: each call is a thread-pool round trip
  if (admitted.length > 0) out.push(await addon.decompress(joined(admitted.map((frame) => frame.bytes))));
}

const joined = (parts: Buffer[]): Buffer => (parts.length === 1 ? parts[0]! : Buffer.concat(parts));

/**
 * Checks each frame against what is left of the budget before a decoder sees it. Native output
 * lags behind the writes, so there `remaining` can only overstate what is left; the output cap
 * still holds.
 */
function* admittedFrames(raw: Buffer, out: CappedOutput): Generator<ZstdFrame, void, undefined> {
  let count = 0;
  for (const frame of zstdFrames(raw)) {
    if (++count > MAX_ZSTD_FRAMES) {
      throw payloadTooLarge(`zstd body has more than ${MAX_ZSTD_FRAMES} frames`);
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
