/** Fuzzing of the logs path and the body decoders (see test/helpers/fuzz.ts). */
import { deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { decodeBody } from '../../src/http/decode';
import { logStreamEncoder } from '../../src/core/otlp/encode';
import { decodeExportResponse } from '../../src/core/otlp/response';
import { parseLogsBody } from '../../src/signals/logs/parse';
import { createTranslatorCaches } from '../../src/signals/caches';
import { translateLogs, translateLogsToModel } from '../../src/signals/logs/chain';
import fc from 'fast-check';
import { fuzzTarget } from '../helpers/fuzz';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { translationContext } from '../helpers/translation';

const chainGoldens = readdirSync(join(__dirname, '..', 'fixtures', 'logs', 'chain')).map((f) => {
  const golden = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'logs', 'chain', f), 'utf8')) as { input: unknown };
  return Buffer.from(typeof golden.input === 'string' ? golden.input : JSON.stringify(golden.input));
});
const logSeeds = [...chainGoldens, Buffer.from('{}'), Buffer.from('[]'), Buffer.from('[{"message":"{\\"a\\":{\\"b\\":[1,{\\"c\\":null}]}}"}]')];

const caches = createTranslatorCaches();
/** The whole logs path after decompression: parse, translate, encode. Only parsing may refuse. */
fuzzTarget('logs-pipeline', logSeeds, (input) => {
  const payload = parseLogsBody(input, new URLSearchParams('ddtags=a:b'));
  const records = logStreamEncoder();
  translateLogs(translationContext(caches, 1_700_000_000_000_000_000n, { decodeJsonMessage: true, logTextCorrelation: true }), records)(payload);
  records.requests(64 * 1024);
});

const LIMITS = { maxDecodedBytes: 1024 * 1024 };
const plain = Buffer.from(JSON.stringify([{ message: 'hello', status: 'info', ddtags: 'a:b' }]).repeat(20));
fuzzTarget('decode-gzip', [gzipSync(plain), Buffer.concat([gzipSync(plain), gzipSync(plain)])], (input) => decodeBody(input, 'gzip', LIMITS));
fuzzTarget('decode-deflate', [deflateSync(plain), deflateRawSync(plain)], (input) => decodeBody(input, 'deflate', LIMITS));

const ZSTD_FIXTURES = join(__dirname, '..', 'fixtures', 'zstd');
const zstdSeeds = readdirSync(ZSTD_FIXTURES)
  .filter((f) => f.endsWith('.zst'))
  .map((f) => readFileSync(join(ZSTD_FIXTURES, f)));
fuzzTarget('decode-zstd', zstdSeeds, (input) => decodeBody(input, 'zstd', LIMITS));

/** The collector's reply is input too: a malformed one must be a plain error, handled by the exporter. */
fuzzTarget('otlp-export-response', [Buffer.from([0x0a, 0x05, 0x08, 0x02, 0x12, 0x01, 0x78])], (input) => {
  try {
    decodeExportResponse(input);
  } catch (err) {
    if (!(err instanceof Error) || !/malformed OTLP export response/.test(err.message)) throw err;
  }
});

/** Structured inputs reach the translator (byte mutations mostly stop at JSON.parse). */
const RESERVED = ['message', 'msg', 'status', 'level', 'severity', 'timestamp', '@timestamp', 'date', 'time', 'hostname', 'host', 'service', 'ddsource', 'ddtags', 'dd.trace_id', 'dd.span_id', '_dd.p.tid', 'dd', 'env', 'version', 'rr-web.event', 'image_tag'];
const fieldValue = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.string(), fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }).map(String), fc.integer(), fc.double());
const entry = fc.dictionary(fc.oneof(fc.constantFrom(...RESERVED), fc.string({ maxLength: 8 })), fieldValue, { maxKeys: 12 });
const entryWithJsonMessage = fc.tuple(entry, entry).map(([outer, inner]) => ({ ...outer, message: JSON.stringify(inner) }));

/** Text lines built from the pieces the text_correlation step looks for, in any order and spacing. */
const textPiece = fc.oneof(
  fc.constantFrom('dd.trace_id=', 'dd.span_id=', 'dd.service=', 'dd.env=', 'dd.version=', 'level=', 'lvl=', '"', '[', ']', '{', '}', ',', ' ', ':', 'ERROR', 'WARNING', 'INF', 'fail:', 'info:', 'dd.', '\n'),
  fc.tuple(fc.bigInt({ min: 0n, max: 1n << 130n }), fc.constantFrom(10, 16)).map(([n, radix]) => n.toString(radix)),
  fc.string({ maxLength: 6 }),
);
const textLine = fc.array(textPiece, { maxLength: 24 }).map((pieces) => pieces.join(''));
const entryWithTextMessage = fc.tuple(entry, textLine).map(([outer, message]) => ({ ...outer, message }));

describe('fuzz logs-translate', () => {
  it('translates and encodes any parsed log entries without throwing', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(entry, entryWithJsonMessage, entryWithTextMessage), { maxLength: 20 }), fc.option(fc.string()), (entries, ddtags) => {
        const payload = parseLogsBody(Buffer.from(JSON.stringify(entries)), new URLSearchParams(ddtags ? { ddtags } : {}));
        const records = logStreamEncoder();
        translateLogs(translationContext(caches, 1_700_000_000_000_000_000n, { decodeJsonMessage: true, logTextCorrelation: true }), records)(payload);
        const requests = records.requests(16 * 1024);
        expect(requests.reduce((n, r) => n + r.records, 0)).toBe(payload.entries.length);
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? '300') },
    );
  });
});

describe('fuzz text_correlation', () => {
  it('keeps a text line as its body, exactly as sent, whatever the step reads out of it', () => {
    fc.assert(
      fc.property(
        textLine.filter((t) => t !== ''),
        fc.constantFrom('info', 'error', undefined),
        (message, status) => {
          const payload = parseLogsBody(Buffer.from(JSON.stringify([{ message, status }])), new URLSearchParams());
          // decoding off: a generated line may happen to be a JSON object, whose body decoding replaces
          const record = translateLogsToModel(payload, translationContext(caches, 1_700_000_000_000_000_000n, { decodeJsonMessage: false, logTextCorrelation: true }))[0]?.scopeLogs[0]?.logRecords[0];
          expect(record?.body).toEqual({ string: message });
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? '300') },
    );
  });
});
