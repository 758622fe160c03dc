import { constants as bufferConstants } from 'node:buffer';
import zlib from 'node:zlib';
import { own } from '../../core/owned-buffers';
import type { Codec } from './content-encoding';
import { decodeWith, DECOMPRESSOR_OPTIONS, tooLarge, type DecodeLimits } from './output';

/** gzip and x-gzip; node's gunzip carries on across concatenated members. */
export const decodeGzip = (raw: Buffer, limits: DecodeLimits): Promise<Buffer> => inflateWithin('gzip', raw, limits, zlib.gunzipSync);

/**
 * `deflate` means zlib-wrapped (RFC 1950) and that is what the agent sends, but some clients
 * send raw RFC 1951 data under the same name, so the header decides.
 */
export const decodeDeflate = (raw: Buffer, limits: DecodeLimits): Promise<Buffer> => inflateWithin('deflate', raw, limits, hasZlibHeader(raw) ? zlib.inflateSync : zlib.inflateRawSync);

/** RFC 1950 2.2: CM = 8, CINFO <= 7 and the 16-bit header a multiple of 31. */
export function hasZlibHeader(raw: Uint8Array): boolean {
  if (raw.length < 2) return false;
  const cmf = raw[0]!;
  const flg = raw[1]!;
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && ((cmf << 8) | flg) % 31 === 0;
}

type SyncInflate = (raw: Buffer, options: zlib.ZlibOptions) => Buffer;

/** Node's default output chunk; smaller inputs get it, larger ones more, up to DECOMPRESSOR_OPTIONS'. */
const MIN_CHUNK_BYTES = 16 * 1024;

/**
 * Deflate rarely shrinks agent payloads more than 8×: one or two chunks of this size hold a
 * body's output, and a 500-byte body no longer allocates a 256 KiB chunk.
 */
const chunkSizeFor = (raw: Buffer): number => Math.min(DECOMPRESSOR_OPTIONS.chunkSize, Math.max(MIN_CHUNK_BYTES, raw.length * 8));

/**
 * One synchronous call, as for zstd: a node:zlib stream per body cost a stream pipeline and a
 * thread-pool round trip per chunk, ~100 µs for a 500-byte deflated series body against ~7 µs
 * in process. zlib stops as soon as its output passes maxOutputLength, so
 * a bomb costs at most the cap and one chunk.
 */
function inflateWithin(codec: Codec, raw: Buffer, limits: DecodeLimits, inflate: SyncInflate): Promise<Buffer> {
  return decodeWith(codec, limits, (out) => {
    let decoded: Buffer;
    try {
      decoded = inflate(raw, { chunkSize: chunkSizeFor(raw), maxOutputLength: Math.max(1, Math.min(out.remaining, bufferConstants.MAX_LENGTH)) });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(out.maxBytes);
      throw err;
    }
    // zlib's engine, unreachable once the call returns, allocated these bytes for this output alone
    out.push(own(decoded));
  });
}
