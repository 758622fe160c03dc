/**
 * `migrate pipelines` over Datadog's published pipelines (test/fixtures/migrate/pipelines/, sources
 * in its README): the API's export and the Terraform provider's examples become the file the
 * sidecar's --log-pipelines loads, with what does not run listed by path; the HCL reader's errors
 * name the file, line, column and attribute. The Terraform goldens show each input beside the
 * pipelines written (UPDATE_GOLDEN=1 rewrites them after a deliberate change; review the diff).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPipelines } from '../../src/signals/logs/pipelines/pipeline-set';
import { migratePipelinesCommand } from '../../tools/src/migrate/pipelines/cli';
import { parseHcl } from '../../tools/src/migrate/pipelines/hcl';
import { pipelinesOfTerraform } from '../../tools/src/migrate/pipelines/terraform';

const DIR = join(__dirname, '..', 'fixtures', 'migrate', 'pipelines');

function migrate(...args: string[]): { code: number; err: string; out: string } {
  let err = '';
  let out = '';
  const code = migratePipelinesCommand(args, { out: (t) => (out += t), err: (t) => (err += t), stdin: () => '' });
  return { code, err, out };
}

const written = (file: string): { pipelines: Record<string, unknown>[]; not_run: { path: string; reason: string }[] } => JSON.parse(readFileSync(file, 'utf8'));

describe('the API export (GET /api/v1/logs/config/pipelines, recorded from Datadog)', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'migrate-pipelines-')), 'pipelines.json');
  const run = migrate(join(DIR, 'datadog-api-export.json'), '--out', out);

  it('writes the custom pipelines and leaves the read-only integration ones to the bundled set', () => {
    expect(run.code).toBe(0);
    expect(written(out).pipelines.map((p) => p.name)).toEqual(['test-oneof', 'Jenkins', 'my first pipeline', 'sample pipeline update']);
    expect(run.err).toContain('Nginx: skipped, a read-only (integration) pipeline');
  });

  it('writes a file the sidecar loads as it is, nothing reported', () => {
    const loaded = loadPipelines([out]);
    expect(loaded.unsupported).toEqual([]);
    // Jenkins is disabled in the export: it is written, and not run
    expect(loaded.counts).toEqual({ integration: 0, custom: 3 });
  });

  it('with --include-integration, every integration pipeline of the export runs whole and its samples match', () => {
    const all = migrate(join(DIR, 'datadog-api-export.json'), '--include-integration', '--dry-run');
    expect(all.err).toContain('migrate pipelines: 12 pipelines, 83 processors run, 0 not run');
    // the one sample warning is Datadog's own example, whose sample starts with the rule's name
    expect(all.err.match(/⚠/g)).toHaveLength(1);
    expect(all.err).toContain('sample pipeline update > sample grok parser: sample 1 matches none of its rules ("Rule fooo 1.2")');
  });
});

describe('Terraform datadog_logs_custom_pipeline resources (the provider’s own examples)', () => {
  interface Golden {
    input: string;
    expected: unknown;
  }
  const goldenFile = join(DIR, 'terraform-golden.json');
  const goldens = JSON.parse(readFileSync(goldenFile, 'utf8')) as Golden[];

  it.each(goldens.map((g) => [g.input, g] as const))('%s', (input, golden) => {
    const out = join(mkdtempSync(join(tmpdir(), 'migrate-pipelines-')), 'pipelines.json');
    expect(migrate(join(DIR, input), '--out', out).code).toBe(0);
    const actual = written(out);
    if (process.env.UPDATE_GOLDEN) {
      golden.expected = { ...actual, from: undefined };
      writeFileSync(goldenFile, `${JSON.stringify(goldens, null, 2)}\n`);
    }
    expect(actual).toEqual({ ...(golden.expected as object), from: [join(DIR, input)] });
    expect(loadPipelines([out]).unsupported).toEqual([]);
  });

  it('lists what does not run, by path, and what is disabled (the provider’s default)', () => {
    const run = migrate(join(DIR, 'terraform-acceptance-test.tf'), '--dry-run');
    for (const kind of ['decoder-processor', 'exclude-attribute-processor', 'schema-processor', 'array-map-processor']) expect(run.err).toContain(`the processor type ${kind} is not supported`);
    expect(run.err).toContain('reftablelookup: reference tables (lookup_enrichment_table) are Datadog-side data the sidecar cannot reach');
    expect(run.err).toContain('> lookup-processor: disabled in the source');
  });
});

describe('the HCL reader', () => {
  const read = (text: string): ReturnType<typeof pipelinesOfTerraform> => pipelinesOfTerraform([{ file: 'main.tf', body: parseHcl(text, 'main.tf') }]);

  it('reads heredocs, literal %{ and ${, comments and objects', () => {
    const { pipelines } = read(`
# a comment
resource "datadog_logs_custom_pipeline" "app" {
  name       = "app" // another
  is_enabled = true
  filter { query = "source:app" }
  processor {
    grok_parser {
      is_enabled = true
      source     = "message"
      grok {
        support_rules = ""
        match_rules   = <<-EOT
          rule %%{word:user} paid $\${amount}
        EOT
      }
    }
  }
  /* a block comment */
}`);
    expect(pipelines).toEqual([
      {
        address: 'datadog_logs_custom_pipeline.app',
        pipeline: { type: 'pipeline', is_enabled: true, name: 'app', filter: { query: 'source:app' }, processors: [{ type: 'grok-parser', is_enabled: true, source: 'message', grok: { support_rules: '', match_rules: `rule %{word:user} paid \${amount}\n` } }] },
      },
    ]);
  });

  it('orders the pipelines as a datadog_logs_pipeline_order resource lists them', () => {
    const { pipelines } = read(`
resource "datadog_logs_custom_pipeline" "b" { name = "b" }
resource "datadog_logs_custom_pipeline" "a" { name = "a" }
resource "datadog_logs_pipeline_order" "order" {
  name      = "order"
  pipelines = [datadog_logs_custom_pipeline.a.id, datadog_logs_custom_pipeline.b.id]
}`);
    expect(pipelines.map((p) => p.pipeline.name)).toEqual(['a', 'b']);
  });

  it.each([
    ['an interpolation', `resource "datadog_logs_custom_pipeline" "x" {\n  name = "\${var.name}"\n}`, `main.tf:2:11: resource "datadog_logs_custom_pipeline" "x" > name: an interpolation \${…} is not evaluated`],
    ['a function call', 'resource "datadog_logs_custom_pipeline" "x" {\n  name = file("name.txt")\n}', 'main.tf:2:10: resource "datadog_logs_custom_pipeline" "x" > name: the function call file(…) is not evaluated'],
    ['an unclosed string', 'resource "datadog_logs_custom_pipeline" "x" {\n  name = "x\n}', 'main.tf:2:10: resource "datadog_logs_custom_pipeline" "x" > name: a string is not closed on its line'],
    ['an unclosed block', 'resource "datadog_logs_custom_pipeline" "x" {\n  name = "x"\n', 'main.tf:3:1: resource "datadog_logs_custom_pipeline" "x": a block is not closed by "}"'],
    ['an operator', 'resource "datadog_logs_custom_pipeline" "x" {\n  name = "a" + "b"\n}', 'main.tf:2:14: resource "datadog_logs_custom_pipeline" "x" > name: the operator "+" is not evaluated'],
    ['a reference where a value goes', 'resource "datadog_logs_custom_pipeline" "x" {\n  name = var.name\n}', 'main.tf: resource datadog_logs_custom_pipeline.x > name: the reference var.name is not evaluated'],
  ])('names the file, line, column and path of %s', (_what, text, message) => {
    expect(() => read(text)).toThrow(message);
  });

  it('exits 2 on a file it cannot read, naming it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'migrate-pipelines-'));
    writeFileSync(join(dir, 'bad.tf'), `resource "datadog_logs_custom_pipeline" "x" {\n  name = "\${var.name}"\n}\n`);
    const run = migrate(dir, '--dry-run');
    expect(run.code).toBe(2);
    expect(run.err).toContain(`${join(dir, 'bad.tf')}:2:11`);
  });
});
