/**
 * The direct v0.4 msgpack span reader against the generic tree path: whatever the direct reader
 * accepts must be exactly what the tree path makes of the same bytes (map order included); what
 * it gives up on is left to the tree path, whose answer or error is the only one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMediaType } from '../../src/core/wire/media-type';
import { parseV04Traces, parseV04Tree } from '../../src/signals/traces/parse/v04';
import { readV04Msgpack } from '../../src/signals/traces/parse/v04-msgpack';
import { tracerPayloadFromHeaders } from '../../src/signals/traces/parse/tracer-headers';
import { expectFastPathAgrees } from '../helpers/fuzz';
import { encodeMsgpack, type Encodable } from '../fixtures/traces/msgpack-writer';
import { fastElseGeneral } from '../../src/signals/shared/fast-path';
import { isDecodeDoubt } from '../../src/signals/traces/parse/msgpack-walk';

/** The direct reader alone: its chunks, or undefined where it gives up (the generic path would answer). */
const direct = (input: Buffer) =>
  fastElseGeneral(
    (): ReturnType<typeof readV04Msgpack> | undefined => readV04Msgpack(input),
    () => undefined,
    undefined,
    isDecodeDoubt,
  );

const MSGPACK = parseMediaType('application/msgpack');
const CHAIN = join(__dirname, '..', 'fixtures', 'traces', 'chain');
/** The v0.4 goldens' bodies (a V1 golden's input is a captured file). */
const chainSeeds = readdirSync(CHAIN).flatMap((f) => {
  const { input } = JSON.parse(readFileSync(join(CHAIN, f), 'utf8')) as { input?: unknown };
  return input === undefined ? [] : [encodeMsgpack((typeof input === 'string' ? JSON.parse(input) : input) as Encodable)];
});

const bin = (s: string): Uint8Array => new Uint8Array(Buffer.from(s));
const U64 = (1n << 64n) - 1n;

/** Maps as their entries in order, so that order is compared too. */
const plain = (v: unknown): unknown => {
  if (v instanceof Map) return { map: [...v].map(([k, x]) => [plain(k), plain(x)]) };
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof Uint8Array) return { bytes: [...v] };
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
};

const edgeSeeds: Buffer[] = [
  // duplicate keys, span and meta level: first position, last value
  encodeMsgpack([
    [
      new Map<Encodable, Encodable>([
        ['service', 'a'],
        ['meta', { x: '1' }],
        ['service', 'b'],
        [
          'meta',
          new Map([
            ['k', '1'],
            ['j', '2'],
            ['k', '3'],
          ]),
        ],
      ]),
    ],
  ]),
  // a bad first value of a duplicate key: the tree never sees it
  encodeMsgpack([
    [
      new Map<Encodable, Encodable>([
        ['trace_id', 1.5],
        ['trace_id', 7],
      ]),
    ],
  ]),
  encodeMsgpack([
    [
      new Map<Encodable, Encodable>([
        [
          'meta',
          new Map<Encodable, Encodable>([
            ['k', 5],
            ['k', 'v'],
          ]),
        ],
      ]),
    ],
  ]),
  // bin and nil keys and values
  encodeMsgpack([
    [
      new Map<Encodable, Encodable>([
        [bin('service'), 'x'],
        ['service', 'y'],
      ]),
    ],
  ]),
  encodeMsgpack([
    [
      {
        meta: new Map<Encodable, Encodable>([
          ['a', '1'],
          [bin('a'), '2'],
          ['a', '3'],
        ]),
      },
    ],
  ]),
  encodeMsgpack([
    [
      {
        meta: new Map<Encodable, Encodable>([
          [null, 'n'],
          ['b', bin('v')],
          ['c', null],
        ]),
      },
    ],
  ]),
  encodeMsgpack([[{ meta: null, metrics: null, service: null, trace_id: null, start: null }]]),
  encodeMsgpack([[null, { span_id: 1 }], null]),
  // integers of every width and sign where ids, times and floats go
  encodeMsgpack([[{ trace_id: U64, span_id: -1, parent_id: 1n << 63n, start: U64, duration: -(1n << 63n), error: 1n << 62n, metrics: { a: U64, b: -5, c: 0.5, d: 1n << 60n } }]]),
  encodeMsgpack([[{ trace_id: 2 ** 53 + 2, span_id: 3.0, start: -1, duration: 1.5 }]]),
  encodeMsgpack([[{ trace_id: '123', span_id: 'x' }]]),
  // links, events, skipped keys, non-string keys
  encodeMsgpack([[{ span_links: [{ trace_id: 1, span_id: 2, attributes: { a: 'b' }, flags: 3 }], span_events: [{ name: 'e', time_unix_nano: 5, attributes: { x: { type: 2, int_value: 4 } } }], meta_struct: { appsec: bin('xx') }, other: [1, [2, { 3: 4 }]] }]]),
  encodeMsgpack([[new Map<Encodable, Encodable>([[5, 'x']])]]),
  encodeMsgpack([[{ meta: new Map<Encodable, Encodable>([[5, 'x']]) }]]),
  encodeMsgpack([[{ meta: { a: 'é'.repeat(40), b: 'x'.repeat(40), c: '' } }]]),
];

const identity = tracerPayloadFromHeaders({ 'datadog-meta-lang': 'nodejs' });

/** The direct reader's chunks, or its giving up, checked against the tree path. */
function compare(input: Buffer): 'direct' | 'tree' {
  const chunks = direct(input);
  if (chunks === undefined) return 'tree';
  expect(plain(chunks)).toEqual(plain(parseV04Tree(input, MSGPACK, 'v0.4')));
  return 'direct';
}

describe('v0.4 msgpack direct span reader', () => {
  it('reads what the tree path reads, to the order of map entries', () => {
    for (const seed of chainSeeds) expect(compare(seed)).toBe('direct');
  });

  it.each(edgeSeeds.map((b, i) => [i, b] as const))('edge case %i: same answer or the tree path answers', (_i, input) => {
    compare(input);
    // and through the route's parser, the answer is the tree path's, error included
    let tree: unknown;
    try {
      tree = plain(parseV04Tree(input, MSGPACK, 'v0.4'));
    } catch (err) {
      tree = err;
    }
    let routed: unknown;
    try {
      routed = plain(parseV04Traces(input, MSGPACK, identity, 'v0.4').chunks);
    } catch (err) {
      routed = err;
    }
    if (tree instanceof Error) expect(String((routed as Error).message)).toContain(tree.message.replace(/^v0\.4: /, ''));
    else expect(routed).toEqual(tree);
  });

  it('gives up on non-string keys, nil spans and anything it cannot decode', () => {
    expect(direct(encodeMsgpack([[new Map<Encodable, Encodable>([[bin('service'), 'x']])]]))).toBeUndefined();
    expect(direct(encodeMsgpack([[null]]))).toBeUndefined();
    expect(direct(encodeMsgpack([[{ trace_id: 1.5 }]]))).toBeUndefined();
    expect(direct(Buffer.concat([encodeMsgpack([[{ span_id: 1 }]]), Buffer.from([1])]))).toBeUndefined();
    expect(direct(Buffer.from('dd7fffffff', 'hex'))).toBeUndefined();
  });

  it('agrees with the tree path on mutated bodies', () => expectFastPathAgrees([...chainSeeds, ...edgeSeeds], compare));
});
