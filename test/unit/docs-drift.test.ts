/**
 * Guards against drift between the prose and the code: every repository path that the docs and
 * the code's comments name exists, every relative Markdown link resolves, and the README's route
 * tables are the router's routes (src/signals/routes.ts), method for method and path for path.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { parse } from 'yaml';
import { ROUTES } from '../../src/signals/routes';
import { REPO_ROOT } from '../../tools/src/collector/build';

/** Top-level folders and files of this repository, which a path in prose starts with. */
const ROOTS = ['src', 'tools', 'test', 'bench', 'docs', 'deploy', 'collector', 'proto', '.ci'];

/** Files git tracks (and untracked ones it does not ignore): what a fresh clone has. */
const trackedFiles = (): string[] => execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: REPO_ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);

const PROSE = /\.(md)$/;
const CODE = /\.(ts|js|cjs|py|sh|yaml|yml)$|(^|\/)(Dockerfile|run)$/;

/**
 * Path-like tokens: a known top-level folder, then path characters. Not after a word character, a
 * dot, a slash or a colon, so that other repositories' paths (`packages/app/src/…`) and git
 * revisions (`abc123:bench/x.ts`) are not taken for ours.
 */
const PATH_TOKEN = new RegExp(`(?<![\\w./:@-])((?:${ROOTS.map((r) => r.replace('.', '\\.')).join('|')})/[\\w./*<>{}-]*)`, 'g');

/** A token as a path to check: trailing punctuation and a `:line` suffix dropped; undefined for a pattern (`*`, `<name>`, `{a,b}`) or a bare folder prefix. */
function pathOf(token: string): string | undefined {
  const path = token.replace(/[.,;:)]+$/, '').replace(/:\d+(-\d+)?$/, '');
  if (/[*<>{}]/.test(path)) return prefixBeforePattern(path);
  return path;
}

/** `src/signals/*\/chain.ts` → `src/signals/`: the part before a pattern, which must exist. */
const prefixBeforePattern = (path: string): string | undefined => {
  const cut = path.slice(0, path.search(/[*<>{}]/));
  const folder = cut.slice(0, cut.lastIndexOf('/') + 1);
  return folder.includes('/') ? folder : undefined;
};

/** Lines of a code file that are comments (`//`, `/* … *\/` blocks, `#` in shell, YAML and Python). */
function commentLines(text: string, file: string): string[] {
  const hash = /\.(py|sh|yaml|yml)$|(^|\/)(Dockerfile|run)$/.test(file);
  const lines = text.split('\n');
  if (hash) return lines.filter((l) => /^\s*#/.test(l)).concat(lines.map((l) => l.replace(/^.*?\s#\s/, '')).filter((l, i) => l !== lines[i]));
  const out: string[] = [];
  let inBlock = false;
  for (const line of lines) {
    const t = line.trim();
    if (inBlock || t.startsWith('/*') || t.startsWith('*')) out.push(line);
    if (t.startsWith('/*') && !t.includes('*/')) inBlock = true;
    else if (inBlock && t.includes('*/')) inBlock = false;
    const inline = line.indexOf('// ');
    if (!inBlock && inline >= 0 && !t.startsWith('*')) out.push(line.slice(inline));
  }
  return out;
}

/** Every path a document or comment names that no file or folder of the repository has, as `file: path`. */
function missingPaths(): string[] {
  const missing: string[] = [];
  for (const file of trackedFiles()) {
    if (file.startsWith('test/fixtures/') && !PROSE.test(file)) continue;
    const isProse = PROSE.test(file);
    if (!isProse && !CODE.test(file)) continue;
    const full = join(REPO_ROOT, file);
    if (!existsSync(full)) continue;
    const text = readFileSync(full, 'utf8');
    const lines = isProse ? text.split('\n') : commentLines(text, file);
    for (const line of lines) {
      for (const [, token] of line.matchAll(PATH_TOKEN)) {
        const path = token === undefined ? undefined : pathOf(token);
        // from the repository's root, or (a README of a client project under test/clients) from the file's own folder
        if (path !== undefined && !existsSync(join(REPO_ROOT, path)) && !existsSync(join(REPO_ROOT, dirname(file), path))) missing.push(`${file}: ${path}`);
      }
      if (isProse) missing.push(...brokenLinks(file, line));
    }
  }
  return withoutIgnored([...new Set(missing)]);
}

/** Leaves out files git ignores (a benchmark's results.json): named as what a command writes, not as what the repository holds. */
function withoutIgnored(missing: string[]): string[] {
  const paths = missing.map((m) => m.slice(m.indexOf(': ') + 2));
  let ignored: Set<string>;
  try {
    ignored = new Set(execFileSync('git', ['check-ignore', '--no-index', '--stdin'], { cwd: REPO_ROOT, input: paths.join('\n'), encoding: 'utf8' }).split('\n'));
  } catch {
    ignored = new Set(); // exit 1: none is ignored
  }
  return missing.filter((_, i) => !ignored.has(paths[i]!));
}

/** Relative Markdown links of one line whose target does not exist. */
function brokenLinks(file: string, line: string): string[] {
  const broken: string[] = [];
  for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (target === undefined || /^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
    const path = normalize(join(dirname(file), target.replace(/#.*$/, '')));
    if (!existsSync(join(REPO_ROOT, path))) broken.push(`${file}: link ${target}`);
  }
  return broken;
}

describe('paths in docs and comments', () => {
  it('every repository path they name exists, and every relative link resolves', () => {
    expect(missingPaths()).toEqual([]);
  });

  it('finds a path that does not exist (the check itself can fail)', () => {
    expect('see src/signals/nosuch/chain.ts and tools/src/'.match(PATH_TOKEN)).toEqual(['src/signals/nosuch/chain.ts', 'tools/src/']);
    expect(existsSync(join(REPO_ROOT, pathOf('src/signals/nosuch/chain.ts:12,') ?? ''))).toBe(false);
    expect(pathOf('src/signals/*/chain.ts')).toBe('src/signals/');
    expect('abc123:bench/gone.ts packages/app/src/x.ts'.match(PATH_TOKEN)).toBeNull();
  });
});

/** `GET /info`, `PUT, POST /v0.4/traces` … as the README's tables list them: one string per method and path. */
function readmeRoutes(): string[] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Routes'), readme.indexOf('### Reply codes'));
  const found: string[] = [];
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 4 || /^-+$/.test(cells[1] ?? '') || cells[1] === 'Method' || cells[1] === 'Route') continue;
    // "| GET | `/api/v1/validate` | …" or "| `POST /api/v1/series` | …"
    const [methods, paths] = /^`?[A-Z]/.test(cells[1] ?? '') && !(cells[1] ?? '').startsWith('`') ? [cells[1]!, cells[2]!] : splitRouteCell(cells[1]!);
    for (const method of methods.split(',').map((m) => m.trim())) for (const [, path] of paths.matchAll(/`([^`]+)`/g)) found.push(`${method} ${routePath(path!)}`);
  }
  return [...new Set(found)].sort();
}

/** "`POST /api/intake/metrics/v3/series`, `/api/…/sketches`" → methods, and the paths in backticks. */
const splitRouteCell = (cell: string): [string, string] => {
  const m = /^`([A-Z, ]+) (\/[^`]*)`(.*)$/.exec(cell);
  if (!m) throw new Error(`README route cell not understood: ${cell}`);
  return [m[1]!, `\`${m[2]}\`${m[3]}`];
};

/** The README's spelling of a pattern (`<key>`, `*`) as the router's (`:key`, `*path`), and no trailing slash. */
const routePath = (path: string): string =>
  path
    .replace(/<(\w+)>/g, ':$1')
    .replace(/\/\*$/, '/*path')
    .replace(/(.)\/$/, '$1');

const routerRoutes = (): string[] => [...new Set(ROUTES.flatMap((r) => r.methods.flatMap((m) => r.paths.map((p) => `${m} ${routePath(p)}`))))].sort();

describe("README's route tables", () => {
  it('list exactly the routes the router serves, with their methods', () => {
    expect(readmeRoutes()).toEqual(routerRoutes());
  });
});

/** The collector's half of the README's diagram: what follows `otelcol :4317`, stage by stage. */
const diagramCollectorStages = (): string[] => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const line = readme.split('\n').find((l) => l.includes('otelcol :4317'));
  if (!line) throw new Error('README: no diagram line with otelcol :4317');
  return line
    .slice(line.indexOf('otelcol :4317'))
    .split('▶')
    .slice(1)
    .map((stage) => stage.trim().split(/[\s(]/)[0]!);
};

describe("README's diagram", () => {
  it("draws the collector's pipeline as collector/config.yaml runs it: its processors in order, then its exporter", () => {
    const config = parse(readFileSync(join(REPO_ROOT, 'collector', 'config.yaml'), 'utf8')) as { service: { pipelines: Record<string, { processors: string[]; exporters: string[] }> } };
    const logs = config.service.pipelines.logs!;
    const exporter = /clickhouse/.exec(logs.exporters.join(' '))?.[0];
    expect(diagramCollectorStages()).toEqual([...logs.processors, exporter, 'ClickHouse']);
  });
});
