/**
 * Property-based fuzzing of parsers with fast-check. Inputs are valid seed payloads mutated at
 * the byte level (flips, insertions, deletions, truncation, splices) plus raw random bytes. The
 * property: the target returns, or throws a domain error answered with a 4xx — never another error,
 * never a crash. A failing input is written to test/fixtures/fuzz/<target>/ and replayed on every
 * later run as a regression fixture. FUZZ_RUNS sets the budget (small in CI, large on demand).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { isDomainError } from '../../src/core/errors';
import { errorReplyFor } from '../../src/http/error-reply';

export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? '300');
const FIXTURES = join(__dirname, '..', 'fixtures', 'fuzz');

type Mutation = { kind: 'flip' | 'insert' | 'delete' | 'set'; at: number; byte: number } | { kind: 'truncate'; at: number } | { kind: 'splice'; at: number; bytes: Uint8Array };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constantFrom('flip' as const, 'insert' as const, 'delete' as const, 'set' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('splice' as const), at: fc.nat(), bytes: fc.uint8Array({ maxLength: 16 }) }),
);

function mutate(seed: Buffer, mutations: Mutation[]): Buffer {
  let b = Buffer.from(seed);
  for (const m of mutations) {
    const at = b.length === 0 ? 0 : m.at % (b.length + 1);
    if (m.kind === 'truncate') b = b.subarray(0, at);
    else if (m.kind === 'splice') b = Buffer.concat([b.subarray(0, at), m.bytes, b.subarray(at)]);
    else if (m.kind === 'insert') b = Buffer.concat([b.subarray(0, at), Buffer.from([m.byte]), b.subarray(at)]);
    else if (m.kind === 'delete') b = Buffer.concat([b.subarray(0, at), b.subarray(at + 1)]);
    else if (at < b.length) b[at] = m.kind === 'flip' ? (b[at] as number) ^ (1 << (m.byte % 8)) : m.byte;
  }
  return b;
}

export const fuzzInput = (seeds: Buffer[]): fc.Arbitrary<Buffer> =>
  fc.oneof({ weight: 4, arbitrary: fc.tuple(fc.constantFrom(...seeds), fc.array(mutation, { minLength: 1, maxLength: 6 })).map(([s, ms]) => mutate(s, ms)) }, { weight: 1, arbitrary: fc.uint8Array({ maxLength: 512 }).map((a) => Buffer.from(a)) });

/**
 * A fast path checked against its general path on mutated `seeds`: `compare` asserts that they
 * agree and says which one answered; at least some inputs must take the fast path, or nothing was
 * compared.
 */
export function expectFastPathAgrees(seeds: Buffer[], compare: (input: Buffer) => 'direct' | string): void {
  let direct = 0;
  fc.assert(
    fc.property(fuzzInput(seeds), (input) => {
      if (compare(input) === 'direct') direct++;
    }),
    { numRuns: FUZZ_RUNS * 10 },
  );
  expect(direct).toBeGreaterThan(0);
}

/** Throws unless `err` is a client error: the only acceptable way for a parser to refuse input. */
export function expectClientError(err: unknown): void {
  const status = isDomainError(err) ? errorReplyFor(err).status : 500;
  if (status >= 400 && status < 500) return;
  throw err instanceof Error ? err : new Error(String(err));
}

const regressionDir = (target: string): string => join(FIXTURES, target);

export function regressionInputs(target: string): [string, Buffer][] {
  const dir = regressionDir(target);
  return existsSync(dir) ? readdirSync(dir).map((f) => [f, readFileSync(join(dir, f))]) : [];
}

/** Registers the jest tests for one target: saved regressions, then a fuzz run. */
export function fuzzTarget(target: string, seeds: Buffer[], run: (input: Buffer) => unknown | Promise<unknown>): void {
  const check = async (input: Buffer): Promise<void> => {
    try {
      await run(input);
    } catch (err) {
      expectClientError(err);
    }
  };
  describe(`fuzz ${target}`, () => {
    const regressions = regressionInputs(target);
    if (regressions.length > 0) it.each(regressions)('regression %s', async (_name, input) => check(input));
    it(`survives ${FUZZ_RUNS} mutated and random inputs`, async () => {
      const result = await fc.check(fc.asyncProperty(fuzzInput(seeds), check), { numRuns: FUZZ_RUNS });
      if (result.failed && result.counterexample) {
        const input = result.counterexample[0];
        mkdirSync(regressionDir(target), { recursive: true });
        const file = join(regressionDir(target), `${createHash('sha256').update(input).digest('hex').slice(0, 16)}.bin`);
        writeFileSync(file, input);
        throw new Error(`fuzz ${target} failed; input saved to ${file}: ${String(result.errorInstance)}`);
      }
    });
  });
}
