/**
 * Whole-chain golden files: test/fixtures/logs/chain/*.json each hold the request body as sent
 * (`input`, plus optional `query` and pre-learned `traceIdCache` low→high entries) beside the
 * OTLP/JSON the chain must produce (`expected`). Set UPDATE_GOLDEN=1 to rewrite `expected` after a
 * deliberate change, then review the diff. The route streams records into the encoder instead of
 * building the model: for every golden the streamed bytes must equal the model's encoding.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLogsBody } from '../../src/signals/logs/parse';
import { encodeExportRequests, logStreamEncoder } from '../../src/core/otlp/encode';
import { translateLogs, translateLogsToModel } from '../../src/signals/logs/chain';
import { createTranslatorCaches } from '../../src/signals/caches';
import { resourceLogsJson } from '../helpers/otlp-json';
import { translationContext } from '../helpers/translation';

const DIR = join(__dirname, '..', 'fixtures', 'logs', 'chain');

interface Golden {
  description: string;
  receivedAtNs: string;
  query?: string;
  decodeJsonMessage?: boolean;
  textCorrelation?: boolean;
  traceIdCache?: Record<string, string>;
  input: unknown;
  expected: unknown;
}

const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));

describe('log chain goldens', () => {
  it('has golden files', () => expect(files.length).toBeGreaterThan(5));

  const load = (file: string) => {
    const golden = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Golden;
    const payload = parseLogsBody(Buffer.from(typeof golden.input === 'string' ? golden.input : JSON.stringify(golden.input)), new URLSearchParams(golden.query ?? ''));
    /** fresh caches each time, the trace-id cache as the golden describes it */
    const context = () => {
      const caches = createTranslatorCaches();
      for (const [low, high] of Object.entries(golden.traceIdCache ?? {})) caches.traceIds.remember(BigInt(low), BigInt('0x' + high));
      return translationContext(caches, BigInt(golden.receivedAtNs), { decodeJsonMessage: golden.decodeJsonMessage ?? true, logTextCorrelation: golden.textCorrelation ?? true });
    };
    return { golden, payload, context };
  };

  it.each(files)('%s', (file) => {
    const { golden, payload, context } = load(file);
    const actual = resourceLogsJson(translateLogsToModel(payload, context()));
    if (process.env.UPDATE_GOLDEN) writeFileSync(join(DIR, file), JSON.stringify({ ...golden, expected: actual }, null, 2) + '\n');
    expect(actual).toEqual(golden.expected);
  });

  it.each(files)('%s: streamed into the encoder, the same bytes as the model encoded', (file) => {
    const { payload, context } = load(file);
    // a small limit, so that splitting is compared too
    for (const limit of [4 * 1024 * 1024, 700]) {
      const streamed = logStreamEncoder();
      translateLogs(context(), streamed)(payload);
      const fromModel = encodeExportRequests({ signal: 'logs', resources: translateLogsToModel(payload, context()) }, limit);
      expect(streamed.requests(limit)).toEqual(fromModel);
    }
  });
});
