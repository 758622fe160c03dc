/**
 * Whole-chain golden files: test/fixtures/traces/chain/*.json each hold a /v0.4/traces JSON body
 * (`input`: a value, or a string when ids must stay exact beyond 2^53), or for `format` `v1.0` a
 * real tracer's captured /v1.0/traces body (`inputFile`, under test/fixtures/), with the tracer's
 * request `headers` and optional pre-learned `traceIdCache` (low → high), beside the OTLP/JSON the
 * chain must produce (`expected`). Set UPDATE_GOLDEN=1 to rewrite `expected` after a deliberate change,
 * then review the diff. The routes stream spans into the encoder instead of building the model:
 * for every golden the streamed bytes must equal the model's encoding.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMediaType } from '../../src/core/wire/media-type';
import { tracerPayloadFromHeaders } from '../../src/signals/traces/parse/tracer-headers';
import { parseV04Traces } from '../../src/signals/traces/parse/v04';
import { parseV1Traces } from '../../src/signals/traces/parse/v1';
import { encodeExportRequests, spanStreamEncoder } from '../../src/core/otlp/encode';
import { translateTraces, translateTracesToModel } from '../../src/signals/traces/chain';
import { createTranslatorCaches } from '../../src/signals/caches';
import { resourceSpansJson } from '../helpers/otlp-json-traces';
import { translationContext } from '../helpers/translation';

const DIR = join(__dirname, '..', 'fixtures', 'traces', 'chain');

interface Golden {
  description: string;
  receivedAtNs: string;
  headers?: Record<string, string>;
  traceIdCache?: Record<string, string>;
  format?: 'v1.0';
  /** the small export limit the streaming comparison splits at, when a span is bigger than the default */
  splitBytes?: number;
  inputFile?: string;
  input?: unknown;
  expected: unknown;
}

const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));

describe('trace chain goldens', () => {
  it('has golden files', () => expect(files.length).toBeGreaterThan(5));

  const load = (file: string) => {
    const golden = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Golden;
    const identity = tracerPayloadFromHeaders(golden.headers ?? {});
    const tracer =
      golden.format === 'v1.0'
        ? parseV1Traces(readFileSync(join(__dirname, '..', 'fixtures', golden.inputFile ?? '')), identity, 'v1.0 traces')
        : parseV04Traces(Buffer.from(typeof golden.input === 'string' ? golden.input : JSON.stringify(golden.input)), parseMediaType('application/json'), identity, 'v0.4 traces');
    /** fresh caches each time: translating teaches them */
    const context = () => {
      const caches = createTranslatorCaches();
      for (const [low, high] of Object.entries(golden.traceIdCache ?? {})) caches.traceIds.remember(BigInt(low), BigInt('0x' + high));
      return translationContext(caches, BigInt(golden.receivedAtNs));
    };
    return { golden, payload: { tracerPayloads: [tracer] }, context };
  };

  it.each(files)('%s', (file) => {
    const { golden, payload, context } = load(file);
    const actual = resourceSpansJson(translateTracesToModel(payload, context()));
    if (process.env.UPDATE_GOLDEN) writeFileSync(join(DIR, file), JSON.stringify({ ...golden, expected: actual }, null, 2) + '\n');
    expect(actual).toEqual(golden.expected);
  });

  it.each(files)('%s: streamed into the encoder, the same bytes as the model encoded', (file) => {
    const { golden, payload, context } = load(file);
    // a small limit, so that splitting is compared too
    for (const limit of [4 * 1024 * 1024, golden.splitBytes ?? 1100]) {
      const streamed = spanStreamEncoder();
      translateTraces(context(), streamed)(payload);
      const fromModel = encodeExportRequests({ signal: 'traces', resources: translateTracesToModel(payload, context()) }, limit);
      expect(streamed.requests(limit)).toEqual(fromModel);
    }
  });
});
