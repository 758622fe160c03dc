/**
 * An API key placed anywhere a sender or an attacker can put it — the `/v1/input/<key>` path under
 * any spelling (percent-encoded bytes in any case, encoded twice, encoded slashes and backslashes,
 * extra and dot segments, any case, query strings, fragments, doubled slashes), anywhere else in
 * the path, the DD-API-KEY header, the `api_key`/`dd-api-key` query parameters, other headers the
 * intake echoes — never shows in the real server's output: reply (status line, headers, body),
 * log lines, /metrics (test/helpers/key-leaks.ts: one fresh in-process sidecar per request).
 * Keys the sidecar knows are found by value; a key it does not know (a sender's real Datadog key
 * sent to an open intake) only by where senders put it, which is what the first property covers.
 */
import fc from 'fast-check';
import { FUZZ_RUNS } from '../helpers/fuzz';
import { expectNoKey, outputsAfter, type RawRequest } from '../helpers/key-leaks';

/** Datadog keys are 32 hex digits; any letters and digits here, so that case matters too. */
const apiKey = fc.stringMatching(/^[0-9A-Za-z]{16,40}$/);

type CharWay = 'as-is' | 'other-case' | 'encoded' | 'ENCODED' | 'encoded-twice' | 'ENCODED-TWICE';
const CHAR_WAYS: CharWay[] = ['as-is', 'as-is', 'as-is', 'other-case', 'encoded', 'ENCODED', 'encoded-twice', 'ENCODED-TWICE'];

const hexOf = (c: string, upper: boolean): string => {
  const hex = c.charCodeAt(0).toString(16).padStart(2, '0');
  return upper ? hex.toUpperCase() : hex;
};

function spellChar(c: string, way: CharWay, caseMatters: boolean): string {
  switch (way) {
    case 'as-is':
      return c;
    case 'other-case':
      return caseMatters ? c : c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
    case 'encoded':
      return `%${hexOf(c, false)}`;
    case 'ENCODED':
      return `%${hexOf(c, true)}`;
    case 'encoded-twice':
      return `%25${hexOf(c, false)}`;
    case 'ENCODED-TWICE':
      return `%25${hexOf(c, true)}`;
  }
}

/** `text` with each character kept, its case changed (unless `caseMatters`), or percent-encoded once or twice. */
const spelt = (text: string, caseMatters = false): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...CHAR_WAYS), { minLength: text.length, maxLength: text.length }).map((ways) => [...text].map((c, i) => spellChar(c, ways[i] as CharWay, caseMatters)).join(''));

/** What may stand between two segments: a slash in all its spellings, extra and dot segments. */
const separator = fc.constantFrom('/', '//', '\\', '%2F', '%2f', '%5C', '%5c', '%252F', '/./', '/%2e/', '/%2E/', '/x/', '/a/b/', '/x/../', '/%2e%2e/input/', ';', '/;/');
const prefix = fc.constantFrom('', '/.', '//', '/x/..', '/%2e', 'http://h:8126', '/api', '\\');
const suffix = fc.constantFrom('', '/', '//', '/more', '?x=1', '?api_key=other', '#frag', '/.', '/%2e%2e', '%3Fq', ';p=1', '/x?y#z');
const method = fc.constantFrom('GET', 'POST', 'PUT');

/** `/v1/input/<key>` as any sender, proxy or attacker could spell it. */
const inputPath = (key: string): fc.Arbitrary<string> => fc.tuple(prefix, spelt('v1'), separator, spelt('input'), separator, spelt(key, true), suffix).map(([pre, v1, s1, input, s2, k, post]) => `${pre}/${v1}${s1}${input}${s2}${k}${post}`);

/** Built once: made anew for each key (inside `chain`), they made the last property take 19-24 s instead of 4. */
const segments = fc.array(fc.oneof(fc.constantFrom('v1', 'input', 'api', 'v2', 'logs', '.', '..', '', 'x'), fc.stringMatching(/^[a-z0-9]{1,8}$/)), { maxLength: 6 });
const besideKey = fc.stringMatching(/^[a-z]{0,3}$/);

/** The key in any segment of a path of common and random segments, alone or with text around it. */
const anyPath = (key: string): fc.Arbitrary<string> =>
  fc.tuple(segments, fc.nat(), besideKey, spelt(key, true), besideKey, separator, suffix).map(([segments, at, before, k, after, sep, post]) => {
    const path = [...segments];
    path.splice(at % (path.length + 1), 0, `${before}${k}${after}`);
    return `/${path.join(sep)}${post}`;
  });

/** The key where senders put it besides the path, on any path. */
const elsewhere = (key: string): fc.Arbitrary<RawRequest> =>
  fc
    .tuple(method, fc.constantFrom('/api/v2/logs', '/v1/input', '/no/such/route', '/v0.4/traces'), fc.constantFrom('header', 'api_key', 'dd-api-key', 'API_KEY'), spelt(key, true))
    .map(([m, path, where, k]) => (where === 'header' ? { method: m, target: path, headers: { 'DD-API-KEY': key } } : { method: m, target: `${path}?${where}=${k}` }));

/** Headers whose value the intake echoes in a refusal (the coding or media type it does not take). */
const echoedHeader = (key: string): fc.Arbitrary<RawRequest> =>
  fc.tuple(fc.constantFrom('/api/v2/logs', '/v0.4/traces', '/api/v2/series'), fc.constantFrom('Content-Encoding', 'Content-Type')).map(([target, name]) => ({
    method: target === '/v0.4/traces' ? 'PUT' : 'POST',
    target,
    headers: { 'DD-API-KEY': key, [name]: name === 'Content-Type' ? `application/${key}` : key },
  }));

const OTHER_KEY = 'a-key-the-request-does-not-carry';

/** What the sidecar accepts: the key itself, another key, or nothing (auth off). */
type Keys = 'this key' | 'another key' | 'open';
const keysFor = (keys: Keys, key: string): string[] => (keys === 'this key' ? [key] : keys === 'another key' ? [OTHER_KEY] : []);

async function expectKeyHidden(request: RawRequest, key: string, keys: Keys): Promise<void> {
  expectNoKey(await outputsAfter(request, keysFor(keys, key)), key);
}

describe('an API key in a request reaches no output', () => {
  it(`in the /v1/input/<key> path, spelt any way, whether the sidecar knows the key or not (${FUZZ_RUNS} runs)`, async () => {
    const property = fc.asyncProperty(
      apiKey.chain((key) => fc.tuple(fc.constant(key), method, inputPath(key))),
      fc.constantFrom<Keys>('this key', 'another key', 'open'),
      ([key, m, target], keys) => expectKeyHidden({ method: m, target }, key, keys),
    );
    await fc.assert(property, { numRuns: FUZZ_RUNS });
  });

  it(`where senders put it besides the path: DD-API-KEY, api_key, dd-api-key (${FUZZ_RUNS} runs)`, async () => {
    const property = fc.asyncProperty(
      apiKey.chain((key) => fc.tuple(fc.constant(key), elsewhere(key))),
      fc.constantFrom<Keys>('this key', 'another key', 'open'),
      ([key, request], keys) => expectKeyHidden(request, key, keys),
    );
    await fc.assert(property, { numRuns: FUZZ_RUNS });
  });

  it(`anywhere in the path or in a header the intake echoes, when it is a key the sidecar accepts (${FUZZ_RUNS} runs)`, async () => {
    const property = fc.asyncProperty(
      apiKey.chain((key) =>
        fc.tuple(
          fc.constant(key),
          fc.oneof(
            fc.tuple(method, anyPath(key)).map(([m, target]): RawRequest => ({ method: m, target })),
            echoedHeader(key),
          ),
        ),
      ),
      ([key, request]) => expectKeyHidden(request, key, 'this key'),
    );
    await fc.assert(property, { numRuns: FUZZ_RUNS });
  });
});
