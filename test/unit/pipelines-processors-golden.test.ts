/**
 * One golden per processor kind (test/fixtures/pipelines/processors.json): the processor as
 * Datadog's API writes it, the log before, and the log after, side by side.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runGolden, type GoldenCase } from '../helpers/pipeline-golden';

const cases = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'pipelines', 'processors.json'), 'utf8')) as GoldenCase[];

it('covers every processor kind the engine runs', () => {
  const kinds = new Set<string>();
  const walk = (p: Record<string, unknown>): void => {
    kinds.add(p.type as string);
    for (const inner of (p.processors as Record<string, unknown>[] | undefined) ?? []) walk(inner);
  };
  for (const c of cases) walk(c.processor);
  expect([...kinds].sort()).toEqual(
    [
      'arithmetic-processor',
      'array-processor',
      'attribute-remapper',
      'category-processor',
      'date-remapper',
      'geo-ip-parser',
      'grok-parser',
      'lookup-processor',
      'message-remapper',
      'pipeline',
      'service-remapper',
      'status-remapper',
      'string-builder-processor',
      'trace-id-remapper',
      'url-parser',
      'user-agent-parser',
    ].sort(),
  );
});

it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
  expect(runGolden(c)).toEqual(c.expected);
});
