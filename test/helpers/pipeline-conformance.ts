/**
 * Runs integrations-core's own test cases (`<integration>/assets/logs/<name>_tests.yaml`, each
 * a sample line and Datadog's result for it) through the engine, the way the sidecar would see
 * the line: an agent entry with the sample as its message, decoded by the chain's JSON step, then
 * the integration's pipeline. A case passes when the parsed attributes, the status and the
 * timestamp are exactly Datadog's.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { JsonValue } from '../../src/core/wire/json';
import { createDraft, messageKeyOf } from '../../src/signals/logs/draft';
import { decodeJsonMessage } from '../../src/signals/logs/decode-json-message';
import { compilePipeline, runSteps, type CompiledPipeline } from '../../src/signals/logs/pipelines/compile';
import { RecordBudget } from '../../src/signals/logs/pipelines/budget';
import { pipelineLogOf } from '../../src/signals/logs/pipelines/fields-bridge';
import { dateClock } from '../../src/signals/logs/pipelines/grok/date-pattern';
import { nestAttributes } from '../../src/signals/logs/pipelines/log';
import { readPipeline } from '../../src/signals/logs/pipelines/spec';
import type { PipelineSpec, Unsupported } from '../../src/signals/logs/pipelines/types';
import type { LogContext } from '../../src/signals/logs/draft';
import { reasonOf } from './pipeline-conformance-reasons';

export interface CaseResult {
  integration: string;
  file: string;
  index: number;
  pass: boolean;
  /** What differs, for the failing-case list. */
  why: string;
  /** Why it differs (pipeline-conformance-reasons.ts); undefined when passing or not yet said. */
  reason: string | undefined;
}

/** `integration file #index`, as the failing-case list names a case. */
export const caseId = (r: Pick<CaseResult, 'integration' | 'file' | 'index'>): string => `${r.integration} ${r.file} #${r.index}`;

/** A test file's value: JSON's, plus the integers past 2^53 read exactly. */
export type Expected = string | number | boolean | null | bigint | Expected[] | { [key: string]: Expected };

interface TestCase {
  sample: JsonValue;
  service?: string;
  tags?: string[];
  result: { custom?: Expected; status?: string; timestamp?: number; service?: string };
}

/**
 * A test file read with its integers exact (mongo's `cursorid:7375279878905417346` would round
 * as a double), those a double holds exactly made numbers again.
 */
export function readTestFile(text: string): { tests?: TestCase[] } {
  return parseYaml(text, (_key, value) => (typeof value === 'bigint' && Number.isSafeInteger(Number(value)) ? Number(value) : value), { intAsBigInt: true }) as { tests?: TestCase[] };
}

/**
 * The clock Datadog's expected results were made with, as far as they show it. Their year-less
 * dates fall between 1970-07-12 and 1971-07-02 (postfix's `Jul  2 12:24:48` is 1971's, so "now"
 * is nearer 1971-07-02T12:24:48 than 1970-07-02T12:24:48: after 1971-01-01T00:24:48), and their
 * date-less times land on 1970-12-31 (keda's `14:53:06.680302` is nearer that day's than the
 * next: before 1971-01-01T02:53:06). One hour into 1971 is inside both bounds.
 */
export const CONFORMANCE_NOW = Date.UTC(1971, 0, 1, 1);

const CONTEXT = { decodeJsonMessage: true, textCorrelation: false, queryTags: undefined } as unknown as LogContext;

/** Where `actual` differs from `expected`, as `path: expected ≠ actual` lines. */
export function differences(expected: Expected | undefined, actual: JsonValue | undefined, path: string, out: string[]): void {
  const e = expected;
  const a = actual;
  if (e !== null && a !== null && typeof e === 'object' && typeof a === 'object' && !Array.isArray(e) && !Array.isArray(a)) {
    for (const key of new Set([...Object.keys(e), ...Object.keys(a)])) differences(e[key], a[key], path === '' ? key : `${path}.${key}`, out);
    return;
  }
  if (Array.isArray(e) && Array.isArray(a) && e.length === a.length) {
    e.forEach((item, i) => {
      differences(item, a[i], `${path}[${i}]`, out);
    });
    return;
  }
  if (e === a || (typeof e === 'number' && typeof a === 'number' && Math.abs(e - a) <= Math.abs(e) * 1e-12)) return;
  // an integer past 2^53 has no exact JSON number: the engine keeps its digits (grok/matchers.ts)
  if (typeof e === 'bigint' && a === e.toString()) return;
  if (e === null && a === undefined) return;
  out.push(`${path}: ${typeof e === 'bigint' ? e.toString() : JSON.stringify(e)} ≠ ${JSON.stringify(a)}`);
}

/** The source a pipeline's filter names (`source:nginx`), as the agent would send it. */
const sourceOf = (filter: string): string => /source:\(?([\w.-]+)/.exec(filter)?.[1] ?? 'LOGS_SOURCE';

const compiledFiles = new Map<string, [PipelineSpec, CompiledPipeline | undefined]>();

/** The pipeline of a file, compiled once; its own filter is left out (the test names the integration already). */
function pipelineOf(file: string, unsupported: Unsupported[]): [PipelineSpec, CompiledPipeline | undefined] {
  let known = compiledFiles.get(file);
  if (!known) {
    const { pipeline } = readPipeline(parseYaml(readFileSync(file, 'utf8')) as JsonValue, '');
    known = [pipeline, compilePipeline({ ...pipeline, filter: '' }, '', unsupported)];
    compiledFiles.set(file, known);
  }
  return known;
}

export function runCase(pipelineFile: string, test: TestCase, unsupported: Unsupported[]): string[] {
  const [pipeline, compiled] = pipelineOf(pipelineFile, unsupported);
  const sample = typeof test.sample === 'string' ? test.sample : JSON.stringify(test.sample);
  const entry: Record<string, JsonValue> = { message: sample, ddsource: sourceOf(pipeline.filter), ddtags: ['source:LOGS_SOURCE', ...(test.tags ?? [])].join(',') };
  const draft = decodeJsonMessage(createDraft(entry, 0n), CONTEXT);
  const [log] = pipelineLogOf(draft.fields, messageKeyOf(draft.fields));
  // the test's service is the log's, not one of its attributes
  if (test.service !== undefined) log.service = test.service;
  runSteps(compiled?.steps ?? [], log, RecordBudget.unlimited());
  const why: string[] = [];
  differences(test.result.custom ?? {}, nestAttributes(log.attributes), '', why);
  if (test.result.status !== undefined && test.result.status !== (log.statusRemapped ? log.status : 'info')) why.push(`(status) ${test.result.status} ≠ ${log.statusRemapped ? log.status : '(none)'}`);
  if (test.result.timestamp !== undefined && log.timestampMs !== undefined && test.result.timestamp !== log.timestampMs) why.push(`(timestamp) ${test.result.timestamp} ≠ ${log.timestampMs}`);
  return why;
}

/** Every case under `root` (an integrations-core checkout or the fixture copy of its log assets). */
export function runConformance(root: string): CaseResult[] {
  const results: CaseResult[] = [];
  const clock = dateClock.now;
  dateClock.now = () => CONFORMANCE_NOW;
  for (const integration of readdirSync(root).sort()) {
    const dir = join(root, integration, 'assets', 'logs');
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).sort()) {
      if (!file.endsWith('_tests.yaml')) continue;
      const pipelineFile = join(dir, file.replace(/_tests\.yaml$/, '.yaml'));
      if (!existsSync(pipelineFile)) continue;
      const doc = readTestFile(readFileSync(join(dir, file), 'utf8'));
      (doc.tests ?? []).forEach((test, index) => {
        let why: string[];
        try {
          why = runCase(pipelineFile, test, []);
        } catch (e) {
          why = [`threw: ${(e as Error).message}`];
        }
        const id = caseId({ integration, file, index });
        results.push({ integration, file, index, pass: why.length === 0, why: why.join('; '), reason: why.length === 0 ? undefined : reasonOf(id, why) });
      });
    }
  }
  dateClock.now = clock;
  return results;
}

const SOURCE_NOTE = `Cases: DataDog/integrations-core at commit 7b59ac03 of 2025-09-17 (provenance in pipelines/integrations-core/SOURCE.md), \`<integration>/assets/logs/*_tests.yaml\`, BSD-3-Clause (pipelines/integrations-core/LICENSE). Regenerate with \`node -r ./tools/register.js bench/pipelines-conformance.ts\`; test/unit/pipelines-conformance.test.ts checks this file is current.`;

/** docs/pipelines-conformance.md: the totals, a table per integration, and every failing case with why. */
export function conformanceReport(results: readonly CaseResult[]): string {
  const pass = results.filter((r) => r.pass).length;
  const byIntegration = new Map<string, CaseResult[]>();
  for (const r of results) byIntegration.set(r.integration, [...(byIntegration.get(r.integration) ?? []), r]);
  const lines = [
    '# Log pipelines: conformance with Datadog’s expected results',
    '',
    SOURCE_NOTE,
    '',
    `**${pass} of ${results.length} cases exact (${((100 * pass) / results.length).toFixed(1)} %)** on the parsed attributes, the status and the timestamp.`,
    '',
    '| integration | cases | pass | fail |',
    '| --- | ---: | ---: | ---: |',
  ];
  for (const [integration, cases] of byIntegration) {
    const ok = cases.filter((c) => c.pass).length;
    lines.push(`| ${integration} | ${cases.length} | ${ok} | ${cases.length - ok} |`);
  }
  lines.push('', '## Failing cases', '', 'Each with why, then what differs, as `path: Datadog’s value ≠ ours`.', '');
  for (const r of results) if (!r.pass) lines.push(`- ${caseId(r)}: ${r.reason ?? '(no reason given)'} — ${r.why.replace(/\|/g, '\\|').replace(/\n/g, '\\n').slice(0, 400)}`);
  return `${lines.join('\n')}\n`;
}
