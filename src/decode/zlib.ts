import zlib from 'node:zlib';
import { decodeWith, DECOMPRESSOR_OPTIONS, drainThrough, type DecodeLimits } from './output';

/** gzip and x-gzip; node's Gunzip carries on across concatenated members. */
export const decodeGzip = (raw: Buffer, limits: DecodeLimits): Promise<Buffer> =>
  decodeWith('gzip', limits, (out) => drainThrough([raw], zlib.createGunzip(DECOMPRESSOR_OPTIONS), out));

/**
 * `deflate` means zlib-wrapped (RFC 1950) and that is what the agent sends, but some clients
 * send raw RFC 1951 data under the same name, so the header decides.
 */
export const decodeDeflate = (raw: Buffer, limits: DecodeLimits): Promise<Buffer> =>
  decodeWith('deflate', limits, (out) =>
    drainThrough(
      [raw],
      hasZlibHeader(raw) ? zlib.createInflate(DECOMPRESSOR_OPTIONS) : zlib.createInflateRaw(DECOMPRESSOR_OPTIONS),
      out,
    ),
  );

/** RFC 1950 2.2: CM = 8, CINFO <= 7 and the 16-bit header a multiple of 31. */
export function hasZlibHeader(raw: Uint8Array): boolean {
  if (raw.length < 2) return false;
  const cmf = raw[0]!;
  const flg = raw[1]!;
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && ((cmf << 8) | flg) % 31 === 0;
}
