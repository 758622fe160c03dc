/**
 * Whole-chain golden files: test/fixtures/traces/chain/*.json each hold a /v0.4/traces JSON body
 * (`input`: a value, or a string when ids must stay exact beyond 2^53) with the tracer's request
 * `headers` and optional pre-learned `traceIdCache` (low → high), beside the OTLP/JSON the chain
 * must produce (`expected`). Set UPDATE_GOLDEN=1 to rewrite `expected` after a deliberate change,
 * then review the diff.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMediaType } from '../../src/parse/media-type';
import { tracerPayloadFromHeaders } from '../../src/parse/traces/tracer-headers';
import { parseV04Traces } from '../../src/parse/traces/v04';
import { translateTraces } from '../../src/translate/traces/chain';
import { TraceIdCache } from '../../src/translate/trace-id';
import { resourceSpansJson } from '../helpers/otlp-json-traces';

const DIR = join(__dirname, '..', 'fixtures', 'traces', 'chain');

interface Golden {
  description: string;
  receivedAtNs: string;
  headers?: Record<string, string>;
  traceIdCache?: Record<string, string>;
  input: unknown;
  expected: unknown;
}

const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));

describe('trace chain goldens', () => {
  it('has golden files', () => expect(files.length).toBeGreaterThan(5));

  it.each(files)('%s', (file) => {
    const golden = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Golden;
    const cache = new TraceIdCache();
    for (const [low, high] of Object.entries(golden.traceIdCache ?? {})) cache.remember(BigInt(low), BigInt('0x' + high));
    const body = Buffer.from(typeof golden.input === 'string' ? golden.input : JSON.stringify(golden.input));
    const tracer = parseV04Traces(body, parseMediaType('application/json'), tracerPayloadFromHeaders(golden.headers ?? {}), 'v0.4 traces');
    const actual = resourceSpansJson(translateTraces({ tracerPayloads: [tracer] }, { traceIds: cache, receivedAtNs: BigInt(golden.receivedAtNs) }));
    if (process.env.UPDATE_GOLDEN) writeFileSync(join(DIR, file), JSON.stringify({ ...golden, expected: actual }, null, 2) + '\n');
    expect(actual).toEqual(golden.expected);
  });
});
