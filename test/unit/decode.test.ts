import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, type Transform } from 'node:stream';
import zlib from 'node:zlib';
import { decodeBody, MAX_CONTENT_CODINGS, isZstdNative, parseContentEncoding, SUPPORTED_CONTENT_ENCODINGS, zstdImplementation } from '../../src/http/decode';
import { hasZlibHeader } from '../../src/http/decode/zlib';
import { availableZstdImplementations, decodeZstd, MAX_ZSTD_FRAMES, type ZstdImplementation } from '../../src/http/decode/zstd';
import { parseZstdFrameHeader, zstdFrames } from '../../src/http/decode/zstd-frames';
import { isDomainError } from '../../src/core/errors';
import { replyTo } from '../helpers/error-reply';

const KiB = 1024;
const MiB = 1024 * KiB;
const LIMITS = { maxDecodedBytes: 64 * MiB };
const ROOT = path.resolve(__dirname, '../..');
const FIXTURES = path.join(ROOT, 'test/fixtures/zstd');

const fixture = (name: string): Buffer => fs.readFileSync(path.join(FIXTURES, name));
const HELLO = fixture('hello.txt');
const TEXT = fixture('text.txt');

/** zstd paths this runtime can run; fzstd always, the addon where installed, native from Node 22.15 / 23.8. */
const ZSTD_IMPLEMENTATIONS: ZstdImplementation[] = availableZstdImplementations();
/** The optional zstd-napi addon installed (tools/bootstrap.js builds it where it can, and says when it cannot). */
const HAS_ADDON = ZSTD_IMPLEMENTATIONS.includes('addon');

/** node:zlib's zstd encoder when the runtime has one (not in @types/node 20). */
const zstdCompressSync = (zlib as unknown as { zstdCompressSync?: (data: Buffer, options?: object) => Buffer }).zstdCompressSync;

/** Byte equality without jest's element-by-element diff, which takes seconds on large buffers. */
function expectSameBytes(actual: Buffer, expected: Buffer): void {
  expect(actual.length).toBe(expected.length);
  expect(actual.equals(expected)).toBe(true);
}

/** A refusal: the status the sender would get, and the error's own message. */
interface Refusal {
  status: number;
  message: string;
}

const refusalOf = (err: unknown): Refusal => {
  if (!isDomainError(err)) throw err;
  return { status: replyTo(err).status, message: err.message };
};

async function refusal(promise: Promise<unknown>): Promise<Refusal> {
  try {
    await promise;
  } catch (err) {
    return refusalOf(err);
  }
  throw new Error('expected a refusal, but decoding succeeded');
}

function refusalSync(fn: () => unknown): Refusal {
  try {
    fn();
  } catch (err) {
    return refusalOf(err);
  }
  throw new Error('expected a refusal');
}

// --- hand-made zstd frames (RFC 8878), for headers and blocks no encoder writes -------------

const ZSTD_MAGIC = [0x28, 0xb5, 0x2f, 0xfd];

const blockHeader = (type: number, size: number, last: boolean): number[] => {
  const value = (size << 3) | (type << 1) | (last ? 1 : 0);
  return [value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff];
};
const rawBlock = (content: Buffer, last = true): Buffer => Buffer.concat([Buffer.from(blockHeader(0, content.length, last)), content]);
const rleBlock = (size: number, byte: number, last = true): Buffer => Buffer.from([...blockHeader(1, size, last), byte]);
/** `header` is everything after the magic number up to the first block. */
const zstdFrame = (header: number[], ...blocks: Buffer[]): Buffer => Buffer.concat([Buffer.from([...ZSTD_MAGIC, ...header]), ...blocks]);
/** Single segment, 1-byte content size: the smallest frame that carries data. */
const tinyFrame = (content: Buffer): Buffer => zstdFrame([0x20, content.length], rawBlock(content));

const CRAFTED = {
  /** Single segment, 8-byte content size of 4 GiB, one small RLE block. */
  declares4GiB: zstdFrame([0xe0, 0, 0, 0, 0, 1, 0, 0, 0], rleBlock(1000, 0x61)),
  /** Single segment, 4-byte content size of 1 GiB: fzstd alone would allocate 1 GiB for it. */
  declares1GiB: zstdFrame([0xa0, 0, 0, 0, 0x40], rleBlock(1000, 0x61)),
  /** No content size, 128 MiB window (exponent 17), one byte of data. */
  hugeWindow: zstdFrame([0x00, 17 << 3], rawBlock(Buffer.from('x'))),
  /** 1 MiB window, declares 1000 bytes (2-byte form: 1000 - 256), then 250 MiB of RLE blocks. */
  liesAboutSize: zstdFrame([0x40, 10 << 3, 0xe8, 0x02], ...Array.from({ length: 2000 }, (_, i) => rleBlock(128 * KiB, 0, i === 1999))),
};

// --- bombs, measured in a fresh process -------------------------------------------------------

/**
 * The bomb runs in a child so that the peak RSS it reports belongs to that one decode. The
 * child compiles the TypeScript sources with @swc/core (what jest uses here) through a require
 * hook. arrayBuffers is sampled every millisecond while async decoders run and read once at
 * the end without a GC in between, so a large allocation made and dropped inside a synchronous
 * decoder (fzstd) is still counted.
 */
const CHILD = `
const fs = require('node:fs');
const swc = require('@swc/core');
require.extensions['.ts'] = (module, filename) => {
  const { code } = swc.transformSync(fs.readFileSync(filename, 'utf8'), {
    filename, jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
(async () => {
  const job = JSON.parse(process.env.DECODE_JOB);
  const decode = require(job.module)[job.exportName];
  const { replyTo } = require(job.replyModule);
  const body = fs.readFileSync(job.bodyPath);
  global.gc();
  const before = process.memoryUsage().arrayBuffers;
  const rssBefore = process.memoryUsage().rss;
  // start-up may have peaked far above today's RSS: maxRSS tells of the decode only if it rose
  const maxRssBefore = process.resourceUsage().maxRSS * 1024;
  let peak = before;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    const usage = process.memoryUsage();
    peak = Math.max(peak, usage.arrayBuffers);
    rssPeak = Math.max(rssPeak, usage.rss);
  }, 1);
  let status = 200, message = '';
  try { await decode(body, ...job.args); } catch (err) { status = typeof err.kind === 'string' ? replyTo(err).status : 500; message = String(err.message); }
  clearInterval(sampler);
  const after = process.memoryUsage();
  peak = Math.max(peak, after.arrayBuffers);
  const maxRssAfter = process.resourceUsage().maxRSS * 1024;
  const maxRssGrowth = (maxRssAfter > maxRssBefore ? maxRssAfter : Math.max(rssPeak, after.rss)) - rssBefore;
  process.stdout.write(JSON.stringify({ status, message, arrayBuffersGrowth: peak - before, maxRssGrowth }));
})();
`;

interface BombResult {
  status: number;
  message: string;
  arrayBuffersGrowth: number;
  maxRssGrowth: number;
}

const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'decode-test-'));
afterAll(() => fs.rmSync(tmpDir, { recursive: true, force: true }));

function runBomb(body: Buffer, module: string, exportName: string, args: unknown[]): Promise<BombResult> {
  const bodyPath = path.join(tmpDir, `bomb-${process.hrtime.bigint()}.bin`);
  fs.writeFileSync(bodyPath, body);
  const job = { module: path.join(ROOT, module), exportName, bodyPath, args, replyModule: path.join(ROOT, 'test/helpers/error-reply.ts') };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--expose-gc', '-e', CHILD], { cwd: ROOT, env: { ...process.env, DECODE_JOB: JSON.stringify(job) } }, (err, stdout, stderr) => {
      if (err) reject(new Error(`bomb child failed: ${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as BombResult);
    });
  });
}

/** Compresses `total` zeros a MiB at a time, so building the bomb never holds it whole. */
async function compressZeros(compressor: Transform, total: number): Promise<Buffer> {
  const zeros = Buffer.alloc(MiB);
  const chunks: Buffer[] = [];
  const source = Readable.from(
    (function* () {
      for (let sent = 0; sent < total; sent += MiB) yield zeros;
    })(),
  );
  for await (const chunk of source.pipe(compressor)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const BOMB_CAP = 4 * MiB;
const BOMB_SIZE = 200 * MiB;

/** The decoder may hold the cap plus a chunk and the final copy; a bomb must stay well below it. */
function expectBounded(result: BombResult): void {
  expect(result.arrayBuffersGrowth).toBeLessThan(2 * BOMB_CAP);
  expect(result.maxRssGrowth).toBeLessThan(48 * MiB);
}

// -----------------------------------------------------------------------------------------------

describe('parseContentEncoding', () => {
  it.each([undefined, '', '  ', 'identity', 'IDENTITY', ' identity , identity '])('needs no decoding for %p', (header) => {
    expect(parseContentEncoding(header)).toEqual([]);
  });

  it.each([
    ['gzip', ['gzip']],
    ['x-gzip', ['gzip']],
    ['deflate', ['deflate']],
    ['x-deflate', ['deflate']],
    ['zstd', ['zstd']],
    ['zstd1', ['zstd']],
    [' GZip ', ['gzip']],
    ['X-Deflate', ['deflate']],
    ['ZSTD1', ['zstd']],
    ['gzip, zstd', ['gzip', 'zstd']],
    ['deflate,identity ,  GZIP', ['deflate', 'gzip']],
  ])('reads %p as %p (in the order applied)', (header, codecs) => {
    expect(parseContentEncoding(header)).toEqual(codecs);
  });

  it.each(['br', 'snappy', 'gzip, br', 'compress', 'constructor'])('refuses %p with 415', (header) => {
    const err = refusalSync(() => parseContentEncoding(header));
    expect(err.status).toBe(415);
    const unknown = header.split(',').pop()!.trim();
    expect(err.message).toContain(`"${unknown}"`);
    expect(err.message).toContain('supported: identity, gzip, x-gzip, deflate, x-deflate, zstd, zstd1');
  });

  it('lists every supported encoding', () => {
    expect(SUPPORTED_CONTENT_ENCODINGS).toEqual(['identity', 'gzip', 'x-gzip', 'deflate', 'x-deflate', 'zstd', 'zstd1']);
  });

  it(`undoes up to ${MAX_CONTENT_CODINGS} codings and refuses more with 415 before decoding anything`, async () => {
    let body = TEXT;
    for (let i = 0; i < MAX_CONTENT_CODINGS; i++) body = zlib.gzipSync(body);
    expect(await decodeBody(body, Array(MAX_CONTENT_CODINGS).fill('gzip').join(','), LIMITS)).toEqual(TEXT);
    for (const header of [
      Array(MAX_CONTENT_CODINGS + 1)
        .fill('gzip')
        .join(','),
      Array(3000).fill('zstd').join(','),
    ]) {
      const err = refusalSync(() => parseContentEncoding(header));
      expect(err.status).toBe(415);
      expect(err.message).toBe(`Content-Encoding lists more than ${MAX_CONTENT_CODINGS} codings; senders apply one`);
    }
    // a body that is not even gzip: refused for the header, so no decoder ran
    expect((await refusal(decodeBody(TEXT, Array(3000).fill('gzip').join(','), LIMITS))).status).toBe(415);
  });

  it('does not count what costs no decoding: identity and empty list items', () => {
    const padding = Array(3000).fill('identity').join(', ') + ',,, ,';
    expect(parseContentEncoding(padding)).toEqual([]);
    expect(parseContentEncoding(`${padding}gzip,${padding}zstd`)).toEqual(['gzip', 'zstd']);
  });

  it('does not echo an arbitrarily long encoding name', () => {
    const err = refusalSync(() => parseContentEncoding('x'.repeat(10_000)));
    expect(err.message.length).toBeLessThan(200);
  });
});

describe('decodeBody: identity', () => {
  it('returns the body as it is', async () => {
    expect(await decodeBody(TEXT, undefined, LIMITS)).toBe(TEXT);
    expect(await decodeBody(TEXT, 'identity', LIMITS)).toBe(TEXT);
  });

  it('refuses a body over the cap with 413', async () => {
    const err = await refusal(decodeBody(TEXT, undefined, { maxDecodedBytes: TEXT.length - 1 }));
    expect(err.status).toBe(413);
    expect(err.message).toBe(`decompressed body exceeds ${TEXT.length - 1} bytes`);
  });

  it('treats an empty body as empty whatever the coding', async () => {
    for (const coding of ['gzip', 'deflate', 'zstd', 'gzip, zstd']) {
      expect(await decodeBody(Buffer.alloc(0), coding, LIMITS)).toHaveLength(0);
    }
  });
});

describe('decodeBody: gzip', () => {
  it.each(['gzip', 'x-gzip', 'GZIP'])('round-trips as %p', async (coding) => {
    expect(await decodeBody(zlib.gzipSync(TEXT), coding, LIMITS)).toEqual(TEXT);
  });

  it('decodes under a cap larger than the largest Buffer', async () => {
    const body = zlib.gzipSync(TEXT);
    expect(await decodeBody(body, 'gzip', { maxDecodedBytes: Number.MAX_SAFE_INTEGER })).toEqual(TEXT);
    expect(await decodeBody(zlib.deflateSync(TEXT), 'deflate', { maxDecodedBytes: Number.MAX_SAFE_INTEGER })).toEqual(TEXT);
  });

  it('decodes every member of a multi-member stream', async () => {
    const body = Buffer.concat([zlib.gzipSync(HELLO), zlib.gzipSync(TEXT), zlib.gzipSync(HELLO)]);
    expect(await decodeBody(body, 'gzip', LIMITS)).toEqual(Buffer.concat([HELLO, TEXT, HELLO]));
  });

  it('decodes output larger than one stream chunk', async () => {
    const big = Buffer.concat(Array.from({ length: 300 }, () => TEXT)); // ~1.2 MB
    expectSameBytes(await decodeBody(zlib.gzipSync(big), 'gzip', LIMITS), big);
  });

  it('allows output exactly at the cap and refuses one byte more with 413', async () => {
    const body = zlib.gzipSync(TEXT);
    expect(await decodeBody(body, 'gzip', { maxDecodedBytes: TEXT.length })).toEqual(TEXT);
    const err = await refusal(decodeBody(body, 'gzip', { maxDecodedBytes: TEXT.length - 1 }));
    expect(err.status).toBe(413);
    expect(err.message).toBe(`decompressed body exceeds ${TEXT.length - 1} bytes`);
  });

  it.each([
    ['garbage', Buffer.from('this is not gzip at all')],
    ['truncated', zlib.gzipSync(TEXT).subarray(0, 100)],
    ['a broken member after a good one', Buffer.concat([zlib.gzipSync(HELLO), Buffer.from([0x1f, 0x8b, 8, 0, 1])])],
  ])('refuses %s data with 400 naming gzip', async (_, body) => {
    const err = await refusal(decodeBody(body, 'gzip', LIMITS));
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/^gzip body is corrupt or truncated: /);
  });
});

describe('decodeBody: deflate', () => {
  it.each([
    ['zlib-wrapped', 'deflate', zlib.deflateSync(TEXT)],
    ['zlib-wrapped', 'x-deflate', zlib.deflateSync(TEXT, { level: 9 })],
    ['raw', 'deflate', zlib.deflateRawSync(TEXT)],
    ['raw', 'x-deflate', zlib.deflateRawSync(TEXT, { level: 1 })],
  ])('round-trips %s data as %p', async (_, coding, body) => {
    expect(await decodeBody(body, coding, LIMITS)).toEqual(TEXT);
  });

  it('tells zlib-wrapped from raw data by the RFC 1950 header', () => {
    expect(hasZlibHeader(zlib.deflateSync(TEXT))).toBe(true);
    expect(hasZlibHeader(zlib.deflateSync(TEXT, { level: 1, windowBits: 9 }))).toBe(true);
    expect(hasZlibHeader(zlib.deflateRawSync(TEXT))).toBe(false);
    expect(hasZlibHeader(Buffer.from([0x78]))).toBe(false);
  });

  it.each([
    ['zlib-wrapped', zlib.deflateSync(TEXT)],
    ['raw', zlib.deflateRawSync(TEXT)],
  ])('refuses %s output over the cap with 413', async (_, body) => {
    expect(await decodeBody(body, 'deflate', { maxDecodedBytes: TEXT.length })).toEqual(TEXT);
    const err = await refusal(decodeBody(body, 'deflate', { maxDecodedBytes: TEXT.length - 1 }));
    expect(err.status).toBe(413);
  });

  it.each([
    ['garbage', Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff])],
    ['truncated zlib', zlib.deflateSync(TEXT).subarray(0, 50)],
    [
      'a bad zlib checksum',
      (() => {
        const body = Buffer.from(zlib.deflateSync(TEXT));
        body[body.length - 1] ^= 0xff;
        return body;
      })(),
    ],
  ])('refuses %s with 400 naming deflate', async (_, body) => {
    const err = await refusal(decodeBody(body, 'deflate', LIMITS));
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/^deflate body is corrupt or truncated: /);
  });
});

describe('decodeBody: comma lists', () => {
  const deflatedThenGzipped = zlib.gzipSync(zlib.deflateSync(TEXT));

  it('undoes the codings right to left', async () => {
    expect(await decodeBody(deflatedThenGzipped, 'deflate, gzip', LIMITS)).toEqual(TEXT);
    expect(await decodeBody(deflatedThenGzipped, ' X-Deflate ,identity,  GZIP ', LIMITS)).toEqual(TEXT);
    expect(await decodeBody(zlib.gzipSync(zlib.gzipSync(TEXT)), 'gzip, gzip', LIMITS)).toEqual(TEXT);
  });

  it('fails with 400 when the order is wrong', async () => {
    const err = await refusal(decodeBody(deflatedThenGzipped, 'gzip, deflate', LIMITS));
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/^deflate body is corrupt/);
  });

  it('applies the cap to every step', async () => {
    // the gzip step yields the deflate stream (small); the deflate step passes the cap
    const err = await refusal(decodeBody(deflatedThenGzipped, 'deflate, gzip', { maxDecodedBytes: TEXT.length - 1 }));
    expect(err.status).toBe(413);
    const inner = zlib.deflateSync(TEXT);
    const early = await refusal(decodeBody(deflatedThenGzipped, 'deflate, gzip', { maxDecodedBytes: inner.length - 1 }));
    expect(early.status).toBe(413);
  });

  it('refuses an unknown coding anywhere in the list with 415 before decoding', async () => {
    const err = await refusal(decodeBody(Buffer.from('not even gzip'), 'br, gzip', LIMITS));
    expect(err.status).toBe(415);
  });
});

describe('zstd frame headers', () => {
  it.each([
    ['1-byte content size (single segment)', [0x20, 200], 200, 200],
    ['2-byte content size, which adds 256', [0x60, 0x00, 0x01], 512, 512],
    ['4-byte content size', [0xa0, 0x78, 0x56, 0x34, 0x12], 0x12345678, 0x12345678],
    ['8-byte content size', [0xe0, 0, 0, 0, 0, 1, 0, 0, 0], 2 ** 32, 2 ** 32],
  ])('reads a %s', (_, header, contentSize, windowSize) => {
    const parsed = parseZstdFrameHeader(zstdFrame(header), 0);
    expect(parsed).toEqual({ headerSize: 4 + header.length, windowSize, contentSize, hasChecksum: false, dictionaryId: 0 });
  });

  it('reads the window descriptor, dictionary id and checksum flag', () => {
    // not single segment, checksum, 2-byte dictionary id, 2-byte content size
    const parsed = parseZstdFrameHeader(zstdFrame([0x46, (10 << 3) | 3, 0x34, 0x12, 0x00, 0x10]), 0);
    expect(parsed).toEqual({
      headerSize: 10,
      windowSize: MiB + 3 * (MiB / 8),
      contentSize: 0x1000 + 256,
      hasChecksum: true,
      dictionaryId: 0x1234,
    });
  });

  it('leaves the content size unknown when the header has none', () => {
    expect(parseZstdFrameHeader(zstdFrame([0x00, 0]), 0)).toMatchObject({ windowSize: KiB, contentSize: undefined });
  });

  it('reads the fixtures the way the zstd CLI reports them', () => {
    expect(parseZstdFrameHeader(fixture('hello.zst'), 0)).toMatchObject({ contentSize: 11, windowSize: 11, hasChecksum: true });
    expect(parseZstdFrameHeader(fixture('text.zst'), 0)).toMatchObject({ contentSize: 4053, windowSize: 4053 });
    expect(parseZstdFrameHeader(fixture('text-nocheck.zst'), 0)).toMatchObject({ hasChecksum: false });
    expect(parseZstdFrameHeader(fixture('text-x40.zst'), 0)).toMatchObject({ contentSize: 162120 });
    expect(parseZstdFrameHeader(fixture('text-nosize.zst'), 0)).toMatchObject({ contentSize: undefined, windowSize: 2 * MiB });
    expect(parseZstdFrameHeader(fixture('zeros-200MiB.zst'), 0)).toMatchObject({ contentSize: BOMB_SIZE, windowSize: 8 * MiB });
  });
});

describe('zstd output bound from block headers', () => {
  const boundOf = (body: Buffer): number[] => [...zstdFrames(body)].map((frame) => frame.maxOutput);

  it('counts raw and RLE blocks at their size and compressed blocks at the block maximum', () => {
    const compressed = (size: number, last: boolean): Buffer => Buffer.from([...blockHeader(2, size, last), ...Buffer.alloc(size)]);
    // no content size, 1 KiB window: a compressed block may yield up to 1 KiB
    const frame = zstdFrame([0x00, 0], rawBlock(Buffer.from('abc'), false), rleBlock(700, 0x61, false), compressed(5, true));
    expect(boundOf(frame)).toEqual([3 + 700 + KiB]);
  });

  it('bounds every frame of a real body by at least what it decodes to', () => {
    expect(boundOf(fixture('two-frames.zst')).length).toBe(2);
    for (const name of ['hello.zst', 'text.zst', 'text-x40.zst', 'text-nosize.zst']) {
      const [bound] = boundOf(fixture(name));
      expect(bound).toBeGreaterThanOrEqual(parseZstdFrameHeader(fixture(name), 0).contentSize ?? TEXT.length);
    }
  });

  (HAS_ADDON ? it : it.skip)('decodes a body whose bound passes the cap but whose content fits (fzstd takes it)', async () => {
    // 162,120 bytes in compressed blocks of up to 128 KiB each: the bound is above the content size
    const x40 = fixture('text-x40.zst');
    const size = parseZstdFrameHeader(x40, 0).contentSize!;
    expect(boundOf(x40)[0]).toBeGreaterThan(size);
    expect(await decodeZstd(x40, { maxDecodedBytes: size }, 'addon')).toHaveLength(size);
  });
});

describe('zstd implementation', () => {
  it('prefers libzstd (zstd-napi), then node:zlib where the runtime has it (a feature test), then fzstd', () => {
    const hasNative = typeof (zlib as unknown as Record<string, unknown>).createZstdDecompress === 'function';
    expect(ZSTD_IMPLEMENTATIONS).toEqual([...(HAS_ADDON ? ['addon'] : []), ...(hasNative ? ['native'] : []), 'fzstd']);
    expect(zstdImplementation).toBe(ZSTD_IMPLEMENTATIONS[0]);
    expect(isZstdNative()).toBe(!HAS_ADDON && hasNative);
  });

  it('is used by decodeBody for zstd and zstd1', async () => {
    expect(await decodeBody(fixture('text.zst'), 'zstd', LIMITS)).toEqual(TEXT);
    expect(await decodeBody(fixture('text.zst'), 'ZSTD1', LIMITS)).toEqual(TEXT);
  });

  // where the runtime has node:zlib zstd (Node >= 22.15), the native path is run by the suites below
  (ZSTD_IMPLEMENTATIONS.includes('native') ? it.skip : it)('refuses the native path where the runtime has none', async () => {
    await expect(decodeZstd(fixture('hello.zst'), LIMITS, 'native')).rejects.toThrow('no native zstd');
  });
});

describe.each(ZSTD_IMPLEMENTATIONS)('zstd via %s', (implementation) => {
  const decode = (body: Buffer, maxDecodedBytes = LIMITS.maxDecodedBytes): Promise<Buffer> => decodeZstd(body, { maxDecodedBytes }, implementation);

  describe('round trips', () => {
    const x40 = Buffer.concat(Array.from({ length: 40 }, () => TEXT));
    it.each([
      ['hello.zst', 'a single-segment frame with a 1-byte size', HELLO],
      ['text.zst', 'a frame with a 2-byte size and a checksum', TEXT],
      ['text-nocheck.zst', 'a frame without a checksum', TEXT],
      ['text-x40.zst', 'a frame with a 4-byte size', x40],
      ['text-nosize.zst', 'a frame without a size', TEXT],
      ['two-frames.zst', 'two concatenated frames', Buffer.concat([HELLO, TEXT])],
      ['skippable.zst', 'frames between skippable frames', Buffer.concat([HELLO, TEXT])],
    ])('%s: %s', async (name, _, expected) => {
      expectSameBytes(await decode(fixture(name)), expected);
    });

    it('decodes hand-made frames with raw and RLE blocks', async () => {
      const body = Buffer.concat([
        tinyFrame(Buffer.from('abc')),
        zstdFrame([0x00, 0], rawBlock(Buffer.from('de'), false), rleBlock(3, 0x66)), // no size, 1 KiB window
        zstdFrame([0x20, 0], rawBlock(Buffer.alloc(0))), // empty
      ]);
      expect((await decode(body)).toString()).toBe('abcdefff');
    });

    it('gives every frame and body bytes of its own, whatever buffer the decoder reuses', async () => {
      // no declared size: decoded into a buffer sized from the bound, which libzstd's path reuses
      const noSize = (content: Buffer): Buffer => zstdFrame([0x00, 7 << 3], rawBlock(content));
      const large = (byte: number): Buffer => Buffer.alloc(100 * KiB, byte);
      const decoded = [
        await decode(Buffer.concat([fixture('text-nosize.zst'), noSize(Buffer.from('abc'))])),
        await decode(noSize(large(0x61))),
        await decode(noSize(Buffer.from('xyz'))),
        await decode(noSize(large(0x62))),
        await decode(fixture('text-nosize.zst')),
      ];
      const expected = [Buffer.concat([TEXT, Buffer.from('abc')]), large(0x61), Buffer.from('xyz'), large(0x62), TEXT];
      decoded.forEach((actual, i) => {
        expectSameBytes(actual, expected[i]!);
      });
    });

    it('decodes a body of only skippable frames to nothing', async () => {
      const skippable = Buffer.from([0x5a, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 0xaa, 0xbb]);
      expect(await decode(Buffer.concat([skippable, skippable]))).toHaveLength(0);
    });

    it('decodes what the native encoder writes, when there is one', async () => {
      if (zstdCompressSync === undefined) return;
      const data = Buffer.concat(Array.from({ length: 500 }, (_, i) => Buffer.from(`${i}:${TEXT.toString('base64', i, i + 97)}\n`)));
      for (const level of [1, 3, 19]) {
        const one = zstdCompressSync(data, { params: { [(zlib.constants as unknown as Record<string, number>).ZSTD_c_compressionLevel!]: level } });
        expectSameBytes(await decode(one), data);
        expectSameBytes(await decode(Buffer.concat([one, zstdCompressSync(HELLO), one])), Buffer.concat([data, HELLO, data]));
      }
    });

    it('undoes "gzip, zstd" right to left', async () => {
      if (implementation !== zstdImplementation) return;
      expect(await decodeBody(fixture('text.gz.zst'), 'gzip, zstd', LIMITS)).toEqual(TEXT);
      expect((await refusal(decodeBody(fixture('text.gz.zst'), 'zstd, gzip', LIMITS))).status).toBe(400);
    });
  });

  describe('caps', () => {
    it('allows output exactly at the cap', async () => {
      expect(await decode(fixture('text.zst'), TEXT.length)).toEqual(TEXT);
      expect(await decode(fixture('two-frames.zst'), HELLO.length + TEXT.length)).toHaveLength(HELLO.length + TEXT.length);
    });

    it('refuses a frame that declares more than the cap with 413', async () => {
      const err = await refusal(decode(fixture('text.zst'), TEXT.length - 1));
      expect(err.status).toBe(413);
      expect(err.message).toBe(`decompressed body exceeds ${TEXT.length - 1} bytes (a zstd frame declares ${TEXT.length} bytes)`);
    });

    it('refuses a later frame that declares more than is left with 413', async () => {
      const err = await refusal(decode(fixture('two-frames.zst'), HELLO.length + TEXT.length - 1));
      expect(err.status).toBe(413);
    });

    it('refuses a frame without a size whose window is bigger than the cap with 413', async () => {
      const err = await refusal(decode(fixture('text-nosize.zst'), MiB));
      expect(err.status).toBe(413);
      expect(err.message).toContain(`needs a ${2 * MiB}-byte window`);
    });

    it('refuses a frame without a size whose output passes the cap with 413', async () => {
      const body = zstdFrame([0x00, 0], ...Array.from({ length: 10 }, (_, i) => rleBlock(KiB, 0x61, i === 9)));
      expect(await decode(body, 10 * KiB)).toHaveLength(10 * KiB);
      const err = await refusal(decode(body, 10 * KiB - 1));
      expect(err.status).toBe(413);
      expect(err.message).toBe(`decompressed body exceeds ${10 * KiB - 1} bytes`);
    });

    it('decodes a body whole after the cap stopped the same frame halfway', async () => {
      // no declared size and a bound over 8 MiB: both calls decode in chunks, one frame-state apart
      const blocks = 70;
      const body = zstdFrame([0x00, 7 << 3], ...Array.from({ length: blocks }, (_, i) => rleBlock(128 * KiB, 0x62, i === blocks - 1)));
      expect((await refusal(decode(body, MiB))).status).toBe(413);
      expectSameBytes(await decode(body, 16 * MiB), Buffer.alloc(blocks * 128 * KiB, 0x62));
    });

    it(`refuses more than ${MAX_ZSTD_FRAMES} frames with 413`, async () => {
      const frame = tinyFrame(Buffer.from('a'));
      const atLimit = Buffer.concat(Array.from({ length: MAX_ZSTD_FRAMES }, () => frame));
      expectSameBytes(await decode(atLimit), Buffer.alloc(MAX_ZSTD_FRAMES, 'a'));
      const err = await refusal(decode(Buffer.concat([atLimit, frame])));
      expect(err.status).toBe(413);
      expect(err.message).toContain(`more than ${MAX_ZSTD_FRAMES} frames`);
    });

    it.each([
      ['declares4GiB', 2 ** 32],
      ['declares1GiB', 2 ** 30],
    ] as const)('refuses the %s frame from its header with 413', async (name, declared) => {
      const err = await refusal(decode(CRAFTED[name], BOMB_CAP));
      expect(err.status).toBe(413);
      expect(err.message).toContain(`declares ${declared} bytes`);
    });

    it('refuses a frame with a 128 MiB window and no size under a 4 MiB cap with 413', async () => {
      const err = await refusal(decode(CRAFTED.hugeWindow, BOMB_CAP));
      expect(err.status).toBe(413);
      expect(err.message).toContain(`needs a ${128 * MiB}-byte window`);
    });
  });

  describe('corrupt input', () => {
    const text = fixture('text.zst');
    const withByte = (body: Buffer, at: number, value: number): Buffer => {
      const copy = Buffer.from(body);
      copy[at] = value;
      return copy;
    };
    it.each([
      ['garbage', Buffer.from('definitely not zstd'), /no zstd frame at byte 0/],
      ['fewer than 4 bytes', Buffer.from([0x28, 0xb5]), /frame at byte 0 is cut short/],
      ['a truncated frame', text.subarray(0, text.length - 10), /cut short/],
      ['a frame cut inside its header', text.subarray(0, 6), /frame header at byte 0 is cut short/],
      ['a missing checksum', text.subarray(0, text.length - 2), /checksum at byte \d+ is cut short/],
      ['garbage after a frame', Buffer.concat([text, Buffer.from('trailing')]), new RegExp(`no zstd frame at byte ${text.length}`)],
      ['a truncated second frame', Buffer.concat([text, text.subarray(0, 20)]), /cut short/],
      ['a truncated skippable frame', Buffer.from([0x50, 0x2a, 0x4d, 0x18, 9, 0, 0, 0, 1]), /skippable frame at byte 0 is cut short/],
      ['the reserved header bit', withByte(text, 4, text[4]! | 0x08), /reserved bit/],
      ['a dictionary id', zstdFrame([0x21, 7, 1], rawBlock(Buffer.from('a'))), /needs dictionary 7/],
      ['the reserved block type', zstdFrame([0x20, 1], Buffer.from([...blockHeader(3, 1, true), 0])), /reserved block type/],
      ['a block bigger than the frame allows', zstdFrame([0x20, 10], rawBlock(Buffer.alloc(11))), /exceeds the 10-byte maximum/],
      ['a block bigger than 128 KiB', zstdFrame([0x00, 10 << 3], rleBlock(128 * KiB + 1, 0)), /exceeds the 131072-byte maximum/],
      ['a frame shorter than it declares', zstdFrame([0x20, 5], rawBlock(Buffer.from('abc'))), /3 bytes but declares 5|corrupt/i],
    ])('refuses %s with 400 naming zstd', async (_, body, detail) => {
      const err = await refusal(decode(body));
      expect(err.status).toBe(400);
      expect(err.message).toMatch(/^zstd body is corrupt or truncated: /);
      expect(err.message).toMatch(detail);
    });

    it('refuses a frame that produces more than it declares with 400 or 413', async () => {
      const err = await refusal(decode(zstdFrame([0x40, 10 << 3, 0, 0], rleBlock(300, 0x61, false), rleBlock(300, 0x61))));
      // fzstd: our own check (400); native: libzstd reports the mismatch (400).
      expect(err.status).toBe(400);
    });

    if (implementation !== 'fzstd') {
      it('refuses a bad checksum with 400', async () => {
        const err = await refusal(decode(withByte(text, text.length - 1, text[text.length - 1]! ^ 0xff)));
        expect(err.status).toBe(400);
        expect(err.message).toMatch(/checksum/i);
      });
    }
  });
});

describe('decompression bombs (child process, 4 MiB cap)', () => {
  const capped = { maxDecodedBytes: BOMB_CAP };
  const results: Record<string, BombResult> = {};
  afterAll(() => {
    // The numbers the tests judged, for whoever reads the test log.
    console.log(
      Object.entries(results)
        .map(([name, r]) => `${name}: ${r.status}, arrayBuffers +${(r.arrayBuffersGrowth / MiB).toFixed(2)} MiB, maxRSS +${(r.maxRssGrowth / MiB).toFixed(2)} MiB`)
        .join('\n'),
    );
  });

  it.each([
    ['gzip', () => zlib.createGzip({ level: 9 })],
    ['deflate', () => zlib.createDeflate({ level: 9 })],
  ] as const)('%s: 200 MiB of zeros gives 413 without inflating past the cap', async (coding, compressor) => {
    const bomb = await compressZeros(compressor(), BOMB_SIZE);
    expect(bomb.length).toBeLessThan(BOMB_SIZE / 500);
    const result = await runBomb(bomb, 'src/http/decode/index.ts', 'decodeBody', [coding, capped]);
    results[coding] = result;
    expect(result).toMatchObject({ status: 413, message: `decompressed body exceeds ${BOMB_CAP} bytes` });
    expectBounded(result);
  });

  describe.each(ZSTD_IMPLEMENTATIONS)('zstd via %s', (implementation) => {
    const bombs: Array<[string, () => Buffer, number, RegExp]> = [
      ['200 MiB of zeros with a declared size', () => fixture('zeros-200MiB.zst'), 413, /declares 209715200 bytes/],
      ['200 MiB of zeros without a size', () => fixture('zeros-200MiB-nosize.zst'), 413, /^decompressed body exceeds 4194304 bytes$/],
      ['a header declaring 4 GiB', () => CRAFTED.declares4GiB, 413, /declares 4294967296 bytes/],
      ['a header declaring 1 GiB', () => CRAFTED.declares1GiB, 413, /declares 1073741824 bytes/],
      ['a 128 MiB window', () => CRAFTED.hugeWindow, 413, /needs a 134217728-byte window/],
      ['250 MiB behind a header declaring 1000 bytes', () => CRAFTED.liesAboutSize, 400, /^zstd body is corrupt or truncated/],
    ];
    it.each(bombs)('%s is refused within the cap', async (name, body, status, message) => {
      const bomb = body();
      expect(bomb.length).toBeLessThan(16 * KiB);
      const result = await runBomb(bomb, 'src/http/decode/zstd.ts', 'decodeZstd', [capped, implementation]);
      results[`zstd/${implementation}: ${name}`] = result;
      expect(result.status).toBe(status);
      expect(result.message).toMatch(message);
      expectBounded(result);
    });
  });
});
