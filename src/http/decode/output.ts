import { pipeline, Readable, type Transform } from 'node:stream';
import { isDomainError, MalformedInputError, TooLargeError } from '../../core/errors';
import { own } from '../../core/owned-buffers';
import type { Codec } from './content-encoding';

export interface DecodeLimits {
  /** Most bytes any decoding step may produce; more is a 413. */
  maxDecodedBytes: number;
}

export const tooLarge = (maxBytes: number, detail?: string): TooLargeError => new TooLargeError(`decompressed body exceeds ${maxBytes} bytes${detail === undefined ? '' : ` (${detail})`}`);

export const corrupt = (codec: Codec, detail: string): MalformedInputError => new MalformedInputError(`${codec} body is corrupt or truncated: ${detail}`);

/**
 * Output chunk size for node:zlib decompressors. Each chunk of a stream is a thread-pool round
 * trip: at the default 16 KiB a 6 MB gzip body took 40 ms against 5 ms at 256 KiB. gzip and
 * deflate now decode in one synchronous call (zlib.ts), with chunks up to this size; native zstd
 * still streams. The cap can be overshot in memory by about one chunk.
 */
export const DECOMPRESSOR_OPTIONS = { chunkSize: 256 * 1024 } as const;

/**
 * Chunks smaller than this are copied together: a crafted stream of one-byte blocks would
 * otherwise cost an object (and maybe a larger backing buffer) per output byte.
 */
const MIN_PART_BYTES = 16 * 1024;

/**
 * Collects decoder output and throws the 413 *before* storing the chunk that would pass the
 * cap, so the memory held never exceeds the cap by more than one decoder chunk.
 */
export class CappedOutput {
  private readonly parts: Buffer[] = [];
  private small: Uint8Array[] = [];
  private smallBytes = 0;
  private total = 0;

  constructor(readonly maxBytes: number) {}

  get remaining(): number {
    return this.maxBytes - this.total;
  }

  push(chunk: Uint8Array): void {
    if (chunk.length > this.remaining) throw tooLarge(this.maxBytes);
    if (chunk.length === 0) return;
    this.total += chunk.length;
    if (chunk.length >= MIN_PART_BYTES) {
      this.flushSmall();
      this.parts.push(asBuffer(chunk));
      return;
    }
    this.small.push(chunk);
    this.smallBytes += chunk.length;
    if (this.smallBytes >= MIN_PART_BYTES) this.flushSmall();
  }

  toBuffer(): Buffer {
    this.flushSmall();
    return this.parts.length === 1 ? this.parts[0]! : own(Buffer.concat(this.parts, this.total));
  }

  private flushSmall(): void {
    if (this.small.length === 0) return;
    this.parts.push(Buffer.concat(this.small, this.smallBytes));
    this.small = [];
    this.smallBytes = 0;
  }
}

const asBuffer = (chunk: Uint8Array): Buffer => (Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));

/**
 * The one place where every codec's failures become domain errors: our own (too large from the
 * cap, malformed from header checks) pass through, anything a decoder library throws is the
 * client's corrupt data.
 */
export async function decodeWith(codec: Codec, limits: DecodeLimits, run: (out: CappedOutput) => void | Promise<void>): Promise<Buffer> {
  const out = new CappedOutput(limits.maxDecodedBytes);
  try {
    await run(out);
  } catch (err) {
    if (isDomainError(err)) throw err;
    throw corrupt(codec, err instanceof Error ? err.message : String(err));
  }
  return out.toBuffer();
}

/**
 * Streams `inputs` (one write each) through a node:zlib decompressor into `out`. Streaming with
 * our own counter rather than a one-shot call keeps a bomb's cost at the cap: leaving the loop
 * when `out.push` throws destroys the decompressor. The pipeline callback is a no-op because
 * every failure also reaches the loop, as the error the decompressor is destroyed with; the
 * promise form of pipeline would instead report our 413 as an AbortError.
 */
export async function drainThrough(inputs: Iterable<Uint8Array>, decompressor: Transform, out: CappedOutput): Promise<void> {
  const decoded: AsyncIterable<Buffer> = pipeline(Readable.from(inputs), decompressor, () => {});
  for await (const chunk of decoded) out.push(chunk);
}
