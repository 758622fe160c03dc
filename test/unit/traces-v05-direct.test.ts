/**
 * The direct v0.5 msgpack span reader against the generic tree path, as traces-v04-direct.test.ts
 * does for v0.4: whatever the direct reader accepts must be exactly what the tree path makes of the
 * same bytes (map order included); what it gives up on is left to the tree path, whose answer or
 * error is the only one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseV05Traces, parseV05Tree } from '../../src/signals/traces/parse/v05';
import { readV05Msgpack } from '../../src/signals/traces/parse/v05-msgpack';
import { tracerPayloadFromHeaders } from '../../src/signals/traces/parse/tracer-headers';
import { expectFastPathAgrees } from '../helpers/fuzz';
import { encodeMsgpack, type Encodable } from '../fixtures/traces/msgpack-writer';
import { fastElseGeneral } from '../../src/signals/shared/fast-path';
import { isDecodeDoubt } from '../../src/signals/traces/parse/msgpack-walk';

/** The direct reader alone: its chunks, or undefined where it gives up (the generic path would answer). */
const direct = (input: Buffer) =>
  fastElseGeneral(
    (): ReturnType<typeof readV05Msgpack> | undefined => readV05Msgpack(input),
    () => undefined,
    undefined,
    isDecodeDoubt,
  );

/** dd-trace-py 4.16.0's own v0.5 body (test/fixtures/captured/python-ddtrace-4.16.0/README.md). */
const PYTHON = readFileSync(join(__dirname, '..', 'fixtures', 'captured', 'python-ddtrace-4.16.0', '006-v0.5_traces.msgpack'));

const U64 = (1n << 64n) - 1n;
/** Past 255 entries, so that indexes take one and two bytes. */
const STRINGS = ['', 'svc', 'op', 'GET /x', 'env', 'prod', 'web', 'é'.repeat(40), 'x'.repeat(300), ...Array.from({ length: 300 }, (_, i) => `s${i}`)];

/** A span's 12 columns, `changes` applied by column index. */
const span = (changes: Record<number, Encodable> = {}): Encodable[] => [1, 2, 3, 7n, 8n, 0, 1_700_000_000_000_000_000n, 10, 0, new Map([[4, 5]]), new Map([[4, 1.5]]), 6].map((v, i) => (i in changes ? (changes[i] as Encodable) : v));
const body = (...spans: Encodable[][]): Buffer => encodeMsgpack([STRINGS, [spans]]);

const seeds: Buffer[] = [
  PYTHON,
  body(span()),
  // duplicate meta keys: first position, last value; long and non-ASCII strings from the table
  body(
    span({
      9: new Map([
        [4, 5],
        [7, 8],
        [4, 7],
      ]),
    }),
  ),
  // every integer width where indexes, ids and times go
  body(span({ 0: 200, 1: 300, 3: U64, 4: 1n << 63n, 5: 70_000, 6: -1, 8: 1n << 40n, 10: new Map<Encodable, Encodable>([[4, U64]]) })),
  // what the direct reader leaves to the tree path
  body(span({ 1: 999 })),
  body(span({ 1: -1 })),
  body(span({ 1: 'op' })),
  body(span({ 7: 1.5 })),
  body(span({ 9: null, 10: null })),
  body([1, 2, 3]),
  encodeMsgpack([['', 7], []]),
  encodeMsgpack([STRINGS]),
  encodeMsgpack([STRINGS, [[span()], []], 1]),
];

/** Maps as their entries in order, so that order is compared too. */
const plain = (v: unknown): unknown => {
  if (v instanceof Map) return { map: [...v].map(([k, x]) => [plain(k), plain(x)]) };
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
};

function compare(input: Buffer): 'direct' | 'tree' {
  const chunks = direct(input);
  if (chunks === undefined) return 'tree';
  expect(plain(chunks)).toEqual(plain(parseV05Tree(input)));
  return 'direct';
}

const identity = tracerPayloadFromHeaders({ 'datadog-meta-lang': 'python' });

describe('v0.5 msgpack direct span reader', () => {
  it("reads dd-trace-py's body and the table's every width as the tree path does", () => {
    for (const seed of seeds.slice(0, 4)) expect(compare(seed)).toBe('direct');
  });

  it.each(seeds.slice(4).map((b, i) => [i, b] as const))('case %i it gives up on: the tree path answers, error included', (_i, input) => {
    expect(compare(input)).toBe('tree');
    let tree: unknown;
    try {
      tree = plain(parseV05Tree(input));
    } catch (err) {
      tree = err;
    }
    let routed: unknown;
    try {
      routed = plain(parseV05Traces(input, identity, 'v0.5').chunks);
    } catch (err) {
      routed = err;
    }
    if (tree instanceof Error) expect(String((routed as Error).message)).toContain(tree.message);
    else expect(routed).toEqual(tree);
  });

  it('agrees with the tree path on mutated bodies', () => expectFastPathAgrees(seeds, compare));
});
