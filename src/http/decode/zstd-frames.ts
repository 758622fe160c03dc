/**
 * Just enough of RFC 8878 to cut a zstd body into frames and learn, before any decoder sizes a
 * buffer, how much each frame may produce. Decoders allocate from these header fields (fzstd
 * allocates the declared content size or window up front; node's native decoder stops at the
 * first frame of a chunk and returns partial output for a truncated frame), so the checks here
 * are what keeps a bomb's cost at the cap and a truncated body a 400.
 */
import { corrupt, tooLarge } from './output';

const FRAME_MAGIC = 0xfd2fb528;
const SKIPPABLE_MAGIC = 0x184d2a50; // 0x184D2A50..0x184D2A5F
const BLOCK_SIZE_MAX = 128 * 1024;
const BLOCK_TYPE_RLE = 1;
const BLOCK_TYPE_COMPRESSED = 2;
const BLOCK_TYPE_RESERVED = 3;

export interface ZstdFrameHeader {
  /** Bytes from the magic number up to the first block. */
  headerSize: number;
  /** History the decoder must keep; equals the content size for single-segment frames. */
  windowSize: number;
  /** Declared decompressed size, when the encoder wrote one. */
  contentSize: number | undefined;
  hasChecksum: boolean;
  dictionaryId: number;
}

export interface ZstdFrame extends ZstdFrameHeader {
  /** The whole frame: header, blocks and checksum. */
  bytes: Buffer;
  /**
   * Most bytes the frame can decode to, from its block headers alone: a raw or RLE block yields
   * its stated size, a compressed block at most the block maximum (a conforming decoder refuses
   * more). Lets a decoder without an output cap run only on frames that cannot pass the budget.
   */
  maxOutput: number;
}

interface FrameExtent {
  length: number;
  maxOutput: number;
}

const invalid = (detail: string) => corrupt('zstd', detail);

/** Parses the frame header at `at`, which must start with the zstd magic number. */
export function parseZstdFrameHeader(buf: Buffer, at: number): ZstdFrameHeader {
  requireBytes(buf, at, 5, 'frame header');
  const descriptor = buf[at + 4]!;
  if (descriptor & 0x08) throw invalid(`reserved bit set in the frame header at byte ${at}`);
  const singleSegment = (descriptor & 0x20) !== 0;
  const contentSizeFlag = descriptor >> 6;
  const windowBytes = singleSegment ? 0 : 1;
  const dictionaryBytes = [0, 1, 2, 4][descriptor & 0x03]!;
  const contentSizeBytes = contentSizeFlag === 0 ? (singleSegment ? 1 : 0) : 1 << contentSizeFlag;
  const headerSize = 5 + windowBytes + dictionaryBytes + contentSizeBytes;
  requireBytes(buf, at, headerSize, 'frame header');

  let pos = at + 5;
  const windowSize = singleSegment ? undefined : decodeWindowDescriptor(buf[pos]!);
  pos += windowBytes;
  const dictionaryId = dictionaryBytes === 0 ? 0 : buf.readUIntLE(pos, dictionaryBytes);
  pos += dictionaryBytes;
  const contentSize = contentSizeBytes === 0 ? undefined : readContentSize(buf, pos, contentSizeBytes);
  return {
    headerSize,
    windowSize: windowSize ?? contentSize!,
    contentSize,
    hasChecksum: (descriptor & 0x04) !== 0,
    dictionaryId,
  };
}

/** RFC 8878 3.1.1.1.2: 2^(10 + exponent) plus eighths of that given by the mantissa. */
function decodeWindowDescriptor(descriptor: number): number {
  const base = 2 ** (10 + (descriptor >> 3));
  return base + (base / 8) * (descriptor & 0x07);
}

/**
 * Plain arithmetic, not 32-bit shifts: fzstd's own reader wraps 8-byte sizes (a declared 4 GiB
 * reads as 1). Sizes past 2^53 lose precision but are refused by any cap anyway.
 */
function readContentSize(buf: Buffer, pos: number, bytes: number): number {
  switch (bytes) {
    case 2:
      return buf.readUInt16LE(pos) + 256;
    case 8:
      return buf.readUInt32LE(pos) + buf.readUInt32LE(pos + 4) * 2 ** 32;
    default:
      return buf.readUIntLE(pos, bytes);
  }
}

/** Length and output bound of the frame at `at`, found by walking block headers; checks that every block is there. */
export function zstdFrameExtent(buf: Buffer, at: number, header: ZstdFrameHeader): FrameExtent {
  const blockMax = Math.min(header.windowSize, BLOCK_SIZE_MAX);
  let pos = at + header.headerSize;
  let maxOutput = 0;
  for (;;) {
    requireBytes(buf, pos, 3, 'block header');
    const blockHeader = buf.readUIntLE(pos, 3);
    const type = (blockHeader >> 1) & 0x03;
    const size = blockHeader >>> 3;
    if (type === BLOCK_TYPE_RESERVED) throw invalid(`reserved block type at byte ${pos}`);
    if (size > blockMax) throw invalid(`block of ${size} bytes at byte ${pos} exceeds the ${blockMax}-byte maximum`);
    const contentBytes = type === BLOCK_TYPE_RLE ? 1 : size;
    requireBytes(buf, pos + 3, contentBytes, 'block');
    maxOutput += type === BLOCK_TYPE_COMPRESSED ? blockMax : size;
    pos += 3 + contentBytes;
    if (blockHeader & 0x01) break;
  }
  const checksumBytes = header.hasChecksum ? 4 : 0;
  requireBytes(buf, pos, checksumBytes, 'checksum');
  return { length: pos + checksumBytes - at, maxOutput };
}

/** The data frames of a body, lazily so a body of many tiny frames is never held as a list. */
export function* zstdFrames(body: Buffer): Generator<ZstdFrame, void, undefined> {
  let at = 0;
  while (at < body.length) {
    requireBytes(body, at, 4, 'frame');
    const magic = body.readUInt32LE(at);
    if ((magic & 0xfffffff0) === SKIPPABLE_MAGIC) {
      requireBytes(body, at, 8, 'skippable frame header');
      const length = 8 + body.readUInt32LE(at + 4);
      requireBytes(body, at, length, 'skippable frame');
      at += length;
      continue;
    }
    if (magic !== FRAME_MAGIC) throw invalid(`no zstd frame at byte ${at}`);
    const header = parseZstdFrameHeader(body, at);
    if (header.dictionaryId !== 0) throw invalid(`frame at byte ${at} needs dictionary ${header.dictionaryId}, which is not available`);
    const { length, maxOutput } = zstdFrameExtent(body, at, header);
    yield { ...header, bytes: body.subarray(at, at + length), maxOutput };
    at += length;
  }
}

/**
 * Refuses a frame that declares more output than the budget has left, or whose window (what
 * decoders allocate when no size is declared) is bigger than that. A frame from a real encoder
 * with a declared size never has a window larger than that size.
 */
export function assertFrameFits(frame: ZstdFrameHeader, remaining: number, maxBytes: number): void {
  if (frame.contentSize !== undefined && frame.contentSize > remaining) {
    throw tooLarge(maxBytes, `a zstd frame declares ${frame.contentSize} bytes`);
  }
  if (frame.windowSize > remaining) {
    throw tooLarge(maxBytes, `a zstd frame needs a ${frame.windowSize}-byte window`);
  }
}

function requireBytes(buf: Buffer, at: number, count: number, what: string): void {
  if (at + count > buf.length) throw invalid(`${what} at byte ${at} is cut short`);
}
