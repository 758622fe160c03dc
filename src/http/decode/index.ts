/**
 * Request-body decompression: undo each Content-Encoding, right to left,
 * never producing more than the cap, and fail with the domain error the body deserves
 * (unsupported encoding, too large over the cap, malformed for corrupt data).
 */
import { parseContentEncoding, type Codec } from './content-encoding';
import { tooLarge, type DecodeLimits } from './output';
import { decodeZstd } from './zstd';
import { decodeDeflate, decodeGzip } from './zlib';

export { MAX_CONTENT_CODINGS, parseContentEncoding, SUPPORTED_CONTENT_ENCODINGS, type Codec } from './content-encoding';
export type { DecodeLimits } from './output';
export { isZstdNative, zstdImplementation, type ZstdImplementation } from './zstd';

const DECODERS: Readonly<Record<Codec, (raw: Buffer, limits: DecodeLimits) => Promise<Buffer>>> = {
  gzip: decodeGzip,
  deflate: decodeDeflate,
  zstd: (raw, limits) => decodeZstd(raw, limits),
};

/** Reads the Content-Encoding header and undoes it; a refused header is a rejection, like a corrupt body. */
export async function decodeBody(raw: Buffer, contentEncoding: string | undefined, limits: DecodeLimits): Promise<Buffer> {
  return undoCodings(raw, parseContentEncoding(contentEncoding), limits);
}

/**
 * Undoes codecs already read from the header (parseContentEncoding): the intake reads the header
 * before the body, so a header it refuses costs no upload and no decoding.
 */
export async function undoCodings(raw: Buffer, codecs: readonly Codec[], limits: DecodeLimits): Promise<Buffer> {
  let body = raw;
  for (const codec of [...codecs].reverse()) {
    // Some clients label an empty body with a coding; there is nothing to undo.
    if (body.length === 0) break;
    body = await DECODERS[codec](body, limits);
  }
  // Decoders enforce the cap themselves; this catches identity bodies.
  if (body.length > limits.maxDecodedBytes) throw tooLarge(limits.maxDecodedBytes);
  return body;
}
