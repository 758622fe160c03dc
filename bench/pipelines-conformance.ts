/** Writes docs/pipelines-conformance.md from integrations-core's test cases (test/helpers/pipeline-conformance.ts). */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { conformanceReport, runConformance } from '../test/helpers/pipeline-conformance';

const root = join(__dirname, '..');
const results = runConformance(join(root, 'pipelines', 'integrations-core'));
writeFileSync(join(root, 'docs', 'pipelines-conformance.md'), conformanceReport(results));
const pass = results.filter((r) => r.pass).length;
process.stdout.write(`${pass}/${results.length} cases exact\n`);
