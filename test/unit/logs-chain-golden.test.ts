/**
 * Whole-chain golden files: test/fixtures/logs/chain/*.json each hold the request body as sent
 * (`input`, plus optional `query` and pre-learned `traceIdCache` low→high entries) beside the
 * OTLP/JSON the chain must produce (`expected`). Set UPDATE_GOLDEN=1 to rewrite `expected` after a
 * deliberate change, then review the diff.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLogsBody } from '../../src/parse/logs';
import { translateLogs } from '../../src/translate/logs/chain';
import { TraceIdCache } from '../../src/translate/trace-id';
import { resourceLogsJson } from '../helpers/otlp-json';

const DIR = join(__dirname, '..', 'fixtures', 'logs', 'chain');

interface Golden {
  description: string;
  receivedAtNs: string;
  query?: string;
  decodeJsonMessage?: boolean;
  traceIdCache?: Record<string, string>;
  input: unknown;
  expected: unknown;
}

const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));

describe('log chain goldens', () => {
  it('has golden files', () => expect(files.length).toBeGreaterThan(5));

  it.each(files)('%s', (file) => {
    const golden = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Golden;
    const cache = new TraceIdCache();
    for (const [low, high] of Object.entries(golden.traceIdCache ?? {})) cache.remember(BigInt(low), BigInt('0x' + high));
    const payload = parseLogsBody(Buffer.from(typeof golden.input === 'string' ? golden.input : JSON.stringify(golden.input)), new URLSearchParams(golden.query ?? ''));
    const actual = resourceLogsJson(translateLogs(payload, BigInt(golden.receivedAtNs), { traceIds: cache, decodeJsonMessage: golden.decodeJsonMessage ?? true }));
    if (process.env.UPDATE_GOLDEN) writeFileSync(join(DIR, file), JSON.stringify({ ...golden, expected: actual }, null, 2) + '\n');
    expect(actual).toEqual(golden.expected);
  });
});
