/**
 * The spellings of `/v1/input/<key>` that reached a log line or a reply (issue 33) and their
 * kin, each sent to a fresh in-process sidecar: the key is in no reply (status line, headers,
 * body), log line or /metrics, whether it is a configured key or one the sidecar does not know
 * (a sender's real Datadog key sent to an open intake is just as secret).
 */
import { expectNoKey, outputsAfter } from '../helpers/key-leaks';

const KEY = 'a3F9kQ7zLm2Xc8Vb';
const OTHER_KEY = 'configured-but-not-sent-0d1e';

const SPELLINGS = [
  // logged on e4f4d2a
  `/v1/%69nput/${KEY}`,
  `/v1/input%2F${KEY}`,
  `/v1/input/x/${KEY}`,
  // echoed in the 400 reply on e4f4d2a
  `/./v1/input/${KEY}`,
  `/v1/input/../input/${KEY}`,
  `/v1/input\\${KEY}`,
  // the same families: encoded bytes in any case, encoded twice, encoded key, encoded backslash, dot segments
  `/v1/%49%4e%50%55%54/${KEY}`,
  `/v1/%2569nput/${KEY}`,
  `/v1/input/${[...KEY].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join('')}`,
  `/v1/INPUT%5c${KEY}`,
  `/v1/input/%2e/${KEY}`,
  `/v1/input/%2E%2E/input/${KEY}`,
  `//v1//input//${KEY}//more?x=1#frag`,
  `/v1/input/${KEY}#frag`,
  `http://h:8126/v1/input;x/${KEY}`,
];

describe.each([
  ['a configured key', [KEY]],
  ['a key the sidecar does not know', [OTHER_KEY]],
  ['a key sent to an open intake', []],
])('%s', (_, keys) => {
  it.each(SPELLINGS.flatMap((target) => ['POST', 'GET'].map((method) => [method, target])))('%s %s: the key is in no reply, log line or /metrics', async (method, target) => {
    expectNoKey(await outputsAfter({ method, target }, keys), KEY);
  });

  it.each([
    ['the DD-API-KEY header', '/no/such/route', { 'DD-API-KEY': KEY }],
    ['the api_key query parameter', `/no/such/route?api_key=${KEY}`, {}],
    ['the dd-api-key query parameter', `/v1/input?dd-api-key=${KEY}`, {}],
    ['the DD-API-KEY header, on a route that refuses the body', '/api/v2/logs', { 'DD-API-KEY': KEY, 'Content-Type': 'text/x-not-json' }],
  ])('the key in %s is in no reply, log line or /metrics', async (_where, target, headers) => {
    expectNoKey(await outputsAfter({ method: 'POST', target, headers }, keys), KEY);
  });
});

it.each([
  ['Content-Encoding', KEY],
  ['Content-Type', `application/${KEY}`],
])('a configured key in %s, which a refusal names, is in no reply, log line or /metrics', async (name, value) => {
  expectNoKey(await outputsAfter({ method: 'POST', target: '/api/v2/logs', headers: { 'DD-API-KEY': KEY, [name]: value } }, [KEY]), KEY);
});

it('the sidecar under test does log unknown routes and refusals, so the checks above can fail', async () => {
  const output = await outputsAfter({ method: 'POST', target: '/not/a/route/visible-segment' }, [OTHER_KEY]);
  expect(output).toContain('visible-segment');
});
