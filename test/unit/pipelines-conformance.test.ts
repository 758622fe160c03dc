/**
 * Every integrations-core test case (pipelines/integrations-core, kept in the repo: no network)
 * through the engine; the floor is what the engine reaches today, so a change that breaks a case
 * fails here, and docs/pipelines-conformance.md must be the table this run makes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { conformanceReport, runConformance } from '../helpers/pipeline-conformance';

const ROOT = join(__dirname, '..', '..');
const results = runConformance(join(ROOT, 'pipelines', 'integrations-core'));

it('runs every case of every integration', () => {
  expect(results.length).toBe(1259);
  expect(new Set(results.map((r) => r.integration)).size).toBeGreaterThan(200);
});

it('matches Datadog exactly on at least 1211 of the 1,259 cases', () => {
  expect(results.filter((r) => r.pass).length).toBeGreaterThanOrEqual(1211);
});

it('says why of every case that fails', () => {
  expect(results.filter((r) => !r.pass && r.reason === undefined).map((r) => `${r.integration} ${r.file} #${r.index}: ${r.why}`)).toEqual([]);
});

it('docs/pipelines-conformance.md is this run’s table', () => {
  expect(readFileSync(join(ROOT, 'docs', 'pipelines-conformance.md'), 'utf8')).toBe(conformanceReport(results));
});
