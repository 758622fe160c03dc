import { keyChecker, presentedKey } from '../../src/auth/api-keys';

describe('api keys', () => {
  const check = keyChecker(['alpha', 'beta-key']);

  it('accepts exactly the configured keys', () => {
    expect(check('alpha')).toBe(true);
    expect(check('beta-key')).toBe(true);
    expect(check('alph')).toBe(false);
    expect(check('alpha ')).toBe(false);
    expect(check('')).toBe(false);
    expect(check(undefined)).toBe(false);
  });

  it('finds the key where each sender puts it', () => {
    const q = (s: string) => new URLSearchParams(s);
    expect(presentedKey({ 'dd-api-key': 'h' }, q(''), '/api/v2/logs')).toBe('h');
    expect(presentedKey({}, q('api_key=q'), '/api/v1/validate')).toBe('q');
    expect(presentedKey({}, q('dd-api-key=old'), '/v1/input')).toBe('old');
    expect(presentedKey({}, q(''), '/v1/input/pathkey')).toBe('pathkey');
    expect(presentedKey({}, q(''), '/api/v2/logs')).toBeUndefined();
  });
});
