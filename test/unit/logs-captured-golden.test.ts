/**
 * The log chain over real clients' bytes: each golden in test/fixtures/logs/captured/ names one
 * captured `/api/v2/logs` request (test/fixtures/captured/<client>/requests.json, the client and
 * version in that folder's README) beside the OTLP/JSON the chain makes of it. The body is
 * decoded as the route decodes it (its captured Content-Encoding) and translated with fresh
 * caches. UPDATE_GOLDEN=1 rewrites `expected` after a deliberate change; review the diff.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeBody } from '../../src/http/decode';
import { parseLogsBody } from '../../src/signals/logs/parse';
import { translateLogsToModel } from '../../src/signals/logs/chain';
import { createTranslatorCaches } from '../../src/signals/caches';
import { capturedDir, capturedRequests } from '../helpers/captured';
import { resourceLogsJson } from '../helpers/otlp-json';
import { translationContext } from '../helpers/translation';

const DIR = join(__dirname, '..', 'fixtures', 'logs', 'captured');

interface CapturedGolden {
  description: string;
  /** `<client folder>/<body file>` under test/fixtures/captured */
  capture: string;
  receivedAtNs: string;
  expected: unknown;
}

const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));

async function translatedCapture(golden: CapturedGolden): Promise<unknown> {
  const [client, body] = golden.capture.split('/') as [string, string];
  const dir = capturedDir(client);
  const request = capturedRequests(dir).find((r) => r.body === body);
  if (!request) throw new Error(`${golden.capture}: not in ${client}/requests.json`);
  const decoded = await decodeBody(readFileSync(join(dir, body)), request.contentEncoding, { maxDecodedBytes: 64 * 1024 * 1024 });
  const payload = parseLogsBody(decoded, new URLSearchParams());
  return resourceLogsJson(translateLogsToModel(payload, translationContext(createTranslatorCaches(), BigInt(golden.receivedAtNs), { decodeJsonMessage: true, logTextCorrelation: true })));
}

describe('log chain over captured real clients', () => {
  it('has a golden for each captured log client', () => expect(files.length).toBeGreaterThanOrEqual(4));

  it.each(files)('%s', async (file) => {
    const golden = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as CapturedGolden;
    const actual = await translatedCapture(golden);
    if (process.env.UPDATE_GOLDEN) writeFileSync(join(DIR, file), JSON.stringify({ ...golden, expected: actual }, null, 2) + '\n');
    expect(actual).toEqual(golden.expected);
  });
});
