/**
 * `dd-otlp-bridge-tools migrate pipelines FILE|DIR… --out FILE`: Datadog's custom log pipelines —
 * the API's export (`GET /api/v1/logs/config/pipelines`) or Terraform `datadog_logs_custom_pipeline`
 * resources — checked by the sidecar's own engine and written as the pipeline file the sidecar
 * loads with `--log-pipelines` (src/signals/logs/pipelines/pipeline-set.ts reads its `pipelines`).
 * Nothing is sent anywhere: the file is the output, the report says what runs and what does not.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { ConfigError } from '../../../../src/config';
import type { JsonValue } from '../../../../src/core/wire/json';
import type { Io } from '../../stack-api/cli';
import { parseArgList } from '../../stack-api/cli';
import { filesUnder } from '../files';
import { type CheckedPipeline, checkPipeline } from './check';
import { HclError, parseHcl } from './hcl';
import { pipelinesOfTerraform } from './terraform';

export const PIPELINES_USAGE = `Usage: dd-otlp-bridge-tools migrate pipelines FILE|DIR… --out FILE [options]

Reads Datadog's custom log pipelines: the API's export (GET /api/v1/logs/config/pipelines, all of
them, or GET …/pipelines/{id}, one) as *.json, and Terraform datadog_logs_custom_pipeline resources
as *.tf (a datadog_logs_pipeline_order resource among them orders them). Each pipeline is checked
with the sidecar's own engine: what it runs, what it does not (a processor kind, a grok rule, a
filter query) with its path, disabled processors, and grok samples none of their rules match.
The file written is what the sidecar's --log-pipelines loads; name it after the integrations
folder (--log-pipelines pipelines/integrations-core,FILE) or alone. A DIR is read for *.json and
*.tf, recursively.

  --out FILE               the pipeline file to write (JSON); processors the engine does not run
                           are left out of it and listed under "not_run"
  --dry-run                check and report only
  --include-integration    also take the export's read-only pipelines (Datadog's integration
                           pipelines: the bundled pipelines/integrations-core runs them already)
  --report FILE            the report as JSON

Exit status: 0 written or checked (what does not run is listed), 2 usage error, or an input that
is not a pipeline export or HCL the reader takes (the message names the file, line and path).
`;

const BOOLEAN_FLAGS = new Set(['--dry-run', '--include-integration', '--help']);
const VALUE_FLAGS = new Set(['--out', '--report']);

type Json = Record<string, JsonValue>;

interface Source {
  /** `export.json [2]`, `main.tf: datadog_logs_custom_pipeline.nginx` */
  where: string;
  pipeline: Json;
}

interface Read {
  sources: Source[];
  /** Lines for the report: skipped pipelines, integration resources. */
  notes: string[];
}

export class PipelineExportError extends Error {}

const isObject = (v: JsonValue | undefined): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** An export's pipelines: a list (GET all), one pipeline (GET one), or a sidecar pipeline file's `pipelines`. */
function exportPipelines(value: JsonValue, file: string): Json[] {
  const list = Array.isArray(value) ? value : isObject(value) && Array.isArray(value.pipelines) ? value.pipelines : [value];
  return list.map((p, i) => {
    const at = Array.isArray(value) || (isObject(value) && Array.isArray(value.pipelines)) ? `${file} [${i}]` : file;
    if (!isObject(p)) throw new PipelineExportError(`${at}: a pipeline is an object, got ${p === null ? 'null' : Array.isArray(p) ? 'a list' : typeof p}`);
    if (typeof p.name !== 'string') throw new PipelineExportError(`${at}: not a Datadog log pipeline (no "name")`);
    if (p.processors !== undefined && !Array.isArray(p.processors)) throw new PipelineExportError(`${at}: "processors" must be a list`);
    if (p.type !== undefined && p.type !== 'pipeline') throw new PipelineExportError(`${at}: "type" is ${JSON.stringify(p.type)}, not "pipeline"`);
    return p;
  });
}

/** An export larger than this is refused unread (Datadog's are well under it). */
const MAX_INPUT_BYTES = 20 * 1024 * 1024;

function readText(file: string): string {
  const size = statSync(file).size;
  if (size > MAX_INPUT_BYTES) throw new PipelineExportError(`${file}: ${size} bytes; an export is read up to ${MAX_INPUT_BYTES} bytes`);
  return readFileSync(file, 'utf8');
}

function readJson(file: string): JsonValue {
  try {
    return JSON.parse(readText(file)) as JsonValue;
  } catch (err) {
    if (err instanceof PipelineExportError) throw err;
    throw new PipelineExportError(`${file}: not JSON (${(err as Error).message})`);
  }
}

function readInputs(paths: readonly string[], includeIntegration: boolean): Read {
  const files = filesUnder(paths, (f) => f.endsWith('.json') || f.endsWith('.tf'));
  const sources: Source[] = [];
  const notes: string[] = [];
  for (const file of files.filter((f) => f.endsWith('.json')))
    exportPipelines(readJson(file), file).forEach((pipeline, i, all) => {
      const where = all.length > 1 ? `${file} [${i}]` : file;
      if (pipeline.is_read_only === true && !includeIntegration) notes.push(`${where}: ${pipeline.name as string}: skipped, a read-only (integration) pipeline: the bundled pipelines/integrations-core runs it (--include-integration takes this copy)`);
      else sources.push({ where, pipeline });
    });
  const tf = files.filter((f) => f.endsWith('.tf')).map((file) => ({ file, body: parseHcl(readText(file), file) }));
  const terraform = pipelinesOfTerraform(tf);
  for (const p of terraform.pipelines) sources.push({ where: p.address, pipeline: p.pipeline });
  return { sources, notes: [...notes, ...terraform.notes] };
}

function reportText(checked: readonly CheckedPipeline[], notes: readonly string[]): string {
  const lines: string[] = [];
  for (const c of checked) {
    lines.push(`${c.notRun.length === 0 ? '✓' : '≈'} ${c.name}: ${c.running} processor${c.running === 1 ? '' : 's'} run${c.disabled.length > 0 ? `, ${c.disabled.length} disabled` : ''}${c.notRun.length > 0 ? `, ${c.notRun.length} not run` : ''}`);
    for (const n of c.notRun) lines.push(`  ✗ ${n.path}: ${n.reason}`);
    for (const d of c.disabled) lines.push(`  – ${d}: disabled in the source`);
    for (const w of c.warnings) lines.push(`  ⚠ ${w}`);
  }
  for (const n of notes) lines.push(`– ${n}`);
  const notRun = checked.reduce((n, c) => n + c.notRun.length, 0);
  lines.push(`migrate pipelines: ${checked.length} pipeline${checked.length === 1 ? '' : 's'}, ${checked.reduce((n, c) => n + c.running, 0)} processors run, ${notRun} not run, ${notes.length} skipped or noted`);
  return `${lines.join('\n')}\n`;
}

/** The file --log-pipelines loads: `pipelines` (pipeline-set.ts reads that key) and what was left out. */
function pipelineFile(checked: readonly CheckedPipeline[], inputs: readonly string[]): Json {
  return {
    migrated_by: 'dd-otlp-bridge-tools migrate pipelines',
    from: [...inputs],
    pipelines: checked.map((c) => c.pipeline),
    not_run: checked.flatMap((c) => c.notRun.map((n) => ({ path: n.path, reason: n.reason }))),
  };
}

function run(argv: readonly string[], io: Io): number {
  const { flags, positionals } = parseArgList(argv, { booleans: BOOLEAN_FLAGS, values: VALUE_FLAGS, command: 'migrate pipelines' });
  if (flags.has('--help')) {
    io.out(PIPELINES_USAGE);
    return 0;
  }
  if (positionals.length === 0) throw new ConfigError('migrate pipelines: give at least one FILE or DIR');
  const out = flags.get('--out');
  if (out === undefined && !flags.has('--dry-run')) throw new ConfigError('migrate pipelines: give --out FILE (or --dry-run)');
  const { sources, notes } = readInputs(positionals, flags.has('--include-integration'));
  const checked = sources.map((s) => checkPipeline(s.pipeline, s.where));
  io.err(reportText(checked, notes));
  if (out !== undefined && !flags.has('--dry-run')) writeFileSync(out, `${JSON.stringify(pipelineFile(checked, positionals), null, 2)}\n`);
  const report = flags.get('--report');
  if (report !== undefined) writeFileSync(report, `${JSON.stringify({ pipelines: checked.map(({ pipeline: _, ...c }) => c), notes }, null, 2)}\n`);
  return 0;
}

export function migratePipelinesCommand(argv: readonly string[], io: Io): number {
  try {
    return run(argv, io);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof HclError || err instanceof PipelineExportError) {
      io.err(`migrate pipelines: ${(err as Error).message}\n`);
      return 2;
    }
    throw err;
  }
}
