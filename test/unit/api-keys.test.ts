import { keyChecker, keyRedactor, loggablePath, presentedKey, redactUrl } from '../../src/signals/shared/api-keys';

describe('api keys', () => {
  const check = keyChecker(['alpha', 'beta-key']);
  const q = (s: string) => new URLSearchParams(s);

  it('accepts exactly the configured keys', () => {
    expect(check('alpha')).toBe(true);
    expect(check('beta-key')).toBe(true);
    expect(check('alph')).toBe(false);
    expect(check('alpha ')).toBe(false);
    expect(check('')).toBe(false);
    expect(check(undefined)).toBe(false);
  });

  it('finds the key where each sender puts it', () => {
    expect(presentedKey({ 'dd-api-key': 'h' }, q(''), '/api/v2/logs')).toBe('h');
    expect(presentedKey({}, q('api_key=q'), '/api/v1/validate')).toBe('q');
    expect(presentedKey({}, q('dd-api-key=old'), '/v1/input')).toBe('old');
    expect(presentedKey({}, q(''), '/v1/input/pathkey')).toBe('pathkey');
    expect(presentedKey({}, q(''), '/api/v2/logs')).toBeUndefined();
  });

  // the route table serves all of these as /v1/input/:key (route-table.test.ts)
  it.each(['/v1/input/PathKey', '/V1/INPUT/PathKey', '//v1/input/PathKey', '/v1/input//PathKey', '/v1//input/PathKey/', 'http://h:8126/v1/input/PathKey?x=1'])('finds the key in %s, its case kept, and redacts it from the loggable path', (url) => {
    expect(presentedKey({}, q(''), url)).toBe('PathKey');
    expect(loggablePath(url)).not.toContain('PathKey');
    expect(loggablePath(url)).toMatch(/^\/v1\/input\/<redacted>$/i);
  });

  it('redacts all that follows the input segment of a path the route table does not serve too', () => {
    expect(loggablePath('/v1/input/secret/extra')).toBe('/v1/input/<redacted>');
    expect(loggablePath('/api/v2/logs')).toBe('/api/v2/logs');
    expect(loggablePath('/v1/input')).toBe('/v1/input');
  });

  // issue 33: the first three were logged, the last three echoed, on e4f4d2a
  it.each([
    ['/v1/%69nput/PathKey', '/v1/input/<redacted>'],
    ['/v1/input%2FPathKey', '/v1/input/<redacted>'],
    ['/v1/input/x/PathKey', '/v1/input/<redacted>'],
    ['/./v1/input/PathKey', '/v1/input/<redacted>'],
    ['/v1/input/../input/PathKey', '/v1/input/<redacted>'],
    ['/v1/input\\PathKey', '/v1/input/<redacted>'],
    ['/v1/%49nPuT%5cPathKey', '/v1/InPuT/<redacted>'],
    ['/v1/%2569nput/PathKey', '/v1/input/<redacted>'],
    ['/v1/input/%50%61%74%68%4b%65%79', '/v1/input/<redacted>'],
    ['/v1/input/%2e%2E/input/PathKey?api_key=PathKey#PathKey', '/v1/input/<redacted>'],
    ['/x/%2e%2e/%2e%2e/v1/inputPathKey', '/v1/input<redacted>'],
    ['/v1/input;PathKey', '/v1/input<redacted>'],
  ])('finds no key in %s as logged', (url, logged) => {
    expect(loggablePath(url)).toBe(logged);
  });

  it('logs a path encoded more than 4 times over as no path at all', () => {
    expect(loggablePath('/v1/%2525252569nput/PathKey')).toBe('<a path encoded more than 4 times over>');
    expect(loggablePath('/a%25252569b')).toBe('/aib');
  });

  it('percent-decodes the path key, and takes a segment that cannot be decoded for no key', () => {
    expect(presentedKey({}, q(''), '/v1/input/a%2Bb')).toBe('a+b');
    expect(presentedKey({}, q(''), '/v1/input/%ZZ')).toBeUndefined();
    expect(loggablePath('/v1/input/%ZZ')).toBe('/v1/input/<redacted>');
  });
});

describe('keyRedactor', () => {
  const redact = keyRedactor(['9f86d081884c7d65', 'other-key.1']);

  it.each([
    ['as it is', 'key 9f86d081884c7d65 here'],
    ['in another case', 'key 9F86D081884C7D65 here'],
    ['with bytes percent-encoded, hex in either case', 'key %39f86d%30%38%31884C7D%36%35 here'],
    ['encoded twice', 'key 9f86d%2530%2538%25318%38%2534c7d65 here'],
  ])('replaces a configured key %s', (_, text) => {
    expect(redact(text)).toBe('key <redacted> here');
  });

  it('replaces every key, every time, and leaves other text alone', () => {
    expect(redact('other-key.1/9f86d081884c7d65/other-key.1')).toBe('<redacted>/<redacted>/<redacted>');
    expect(redact('other-keyx1 9f86d081884c7d6')).toBe('other-keyx1 9f86d081884c7d6');
  });

  it('leaves the text alone when there is no key', () => {
    expect(keyRedactor([])('9f86d081884c7d65')).toBe('9f86d081884c7d65');
    expect(keyRedactor([''])('9f86d081884c7d65')).toBe('9f86d081884c7d65');
  });
});

describe('redactUrl', () => {
  it('leaves a URL without credentials as it is, with or without a scheme', () => {
    for (const url of ['http://collector:4317', 'collector:4317', 'http://collector:4317/a@b']) expect(redactUrl(url)).toBe(url);
  });

  it('replaces user:password@, whatever the password holds', () => {
    expect(redactUrl('https://user:pass@collector:4317')).toBe('https://<redacted>@collector:4317');
    expect(redactUrl('https://user:p@ss@collector:4317/')).toBe('https://<redacted>@collector:4317/');
    expect(redactUrl('user:pass@collector:4317')).toBe('<redacted>@collector:4317');
  });

  it('replaces the values of query parameters named like credentials, and only those', () => {
    const url = 'http://collector:4317/?api_key=k1&region=eu&Authorization=Bearer%20x&access_token=t';
    expect(redactUrl(url)).toBe('http://collector:4317/?api_key=<redacted>&region=eu&Authorization=<redacted>&access_token=<redacted>');
  });
});
