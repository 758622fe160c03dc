/**
 * JSON integers past 2^53 keep every digit (as text) through quoteUnsafeIntegers, and nothing
 * else of the text changes: what JSON.parse makes of it is the same apart from them.
 */
import fc from 'fast-check';
import { quoteUnsafeIntegers } from '../../src/core/wire/big-integers';

it('quotes an integer past 2^53 and leaves doubles, safe integers and strings alone', () => {
  const text = '{"id":7381460803565650001,"neg":-9007199254740993,"safe":9007199254740991,"pi":1.25000000000000000001,"e":1e400,"big_fraction":0.9493670886075949,"s":"12345678901234567890","esc":"a\\"12345678901234567890"}';
  expect(JSON.parse(quoteUnsafeIntegers(text))).toEqual({
    id: '7381460803565650001',
    neg: '-9007199254740993',
    safe: 9007199254740991,
    pi: 1.25,
    e: Number.POSITIVE_INFINITY,
    big_fraction: 0.9493670886075949,
    s: '12345678901234567890',
    esc: 'a"12345678901234567890',
  });
});

it('returns the text itself when no run of 16 digits is in it', () => {
  const text = '{"a":123456789012345,"b":"x"}';
  expect(quoteUnsafeIntegers(text)).toBe(text);
});

it('changes only unsafe integers, whatever the JSON', () => {
  const big = fc.bigInt({ min: 2n ** 53n, max: 2n ** 64n }).map((n) => ({ big: n }));
  const value = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), big, fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(fc.string(), tie('node'), { maxKeys: 4 })),
  })).node;
  const write = (v: unknown): string => JSON.stringify(v, (_k, x) => (x !== null && typeof x === 'object' && 'big' in x && typeof x.big === 'bigint' ? `@@${x.big}@@` : x)).replace(/"@@(\d+)@@"/g, '$1');
  const unsafe = (x: unknown): boolean => typeof x === 'number' && Number.isInteger(x) && !Number.isSafeInteger(x) && Math.abs(x) < 1e21;
  const expected = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (_k, x) => (x !== null && typeof x === 'object' && 'big' in x && typeof x.big === 'bigint' ? String(x.big) : unsafe(x) ? String(x) : x)));
  fc.assert(
    fc.property(value, (v) => {
      expect(JSON.parse(quoteUnsafeIntegers(write(v)))).toEqual(expected(v));
    }),
  );
});
