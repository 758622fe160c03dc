/**
 * The HyperDX tool's pure parts: which fonts the app needs, the offline fonts CSS Next reads, the
 * Node version gate, the source hash, and the `--ui*` options of `stack`. The
 * build itself is proven by `npm run test:ui`, which serves and drives it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadTable, OPTIONS, parseArgsFor } from '../../src/config';
import { STACK_OPTIONS } from '../../tools/src/stack/options';
import { FONT_MOCK, googleFontIds } from '../../tools/src/hyperdx/fonts';
import { nodeIsRecentEnough } from '../../tools/src/hyperdx/node';
import { defaultSources, EXP_HISTOGRAM_TABLE } from '../../tools/src/hyperdx/serve';
import { sourceHash } from '../../tools/src/hyperdx/source';

describe('googleFontIds', () => {
  it('names the fontsource package of every family imported from next/font/google', () => {
    const source = "import { IBM_Plex_Mono, Inter, Roboto_Mono as Mono } from 'next/font/google';\nimport { x } from 'elsewhere';\n";
    expect(googleFontIds(source)).toEqual(['ibm-plex-mono', 'inter', 'roboto-mono']);
  });

  it('finds nothing in a file without that import', () => {
    expect(googleFontIds("import localFont from 'next/font/local';")).toEqual([]);
  });
});

describe('google-fonts-mock.cjs (what next build reads instead of Google Fonts)', () => {
  const cssFor = (url: string, fontsDir: string): string => execFileSync(process.execPath, ['-e', `process.stdout.write(require(${JSON.stringify(FONT_MOCK)})[${JSON.stringify(url)}])`], { env: { DD_BRIDGE_FONTSOURCE_DIR: fontsDir }, encoding: 'utf8' });

  it('answers a weights URL with one latin @font-face per weight, pointing at the fontsource files', () => {
    const css = cssFor('https://fonts.googleapis.com/css2?family=IBM+Plex+Mono:wght@300;700&display=swap', '/fonts');
    expect(css.match(/@font-face/g)).toHaveLength(2);
    expect(css).toContain("font-family: 'IBM Plex Mono';");
    expect(css).toContain('src: url(/fonts/ibm-plex-mono/package/files/ibm-plex-mono-latin-300-normal.woff2)');
    expect(css).toContain('src: url(/fonts/ibm-plex-mono/package/files/ibm-plex-mono-latin-700-normal.woff2)');
    // Next takes a rule's subset from the comment above it
    expect(css.split('\n')[0]).toBe('/* latin */');
  });

  it('takes the style from an ital axis', () => {
    const css = cssFor('https://fonts.googleapis.com/css2?family=Inter:ital,wght@0,400;1,400&display=swap', '/f');
    expect(css).toContain('/f/inter/package/files/inter-latin-400-normal.woff2');
    expect(css).toContain('/f/inter/package/files/inter-latin-400-italic.woff2');
  });
});

describe('nodeIsRecentEnough (HyperDX wants Node >= 22.16)', () => {
  it.each([
    ['v20.20.2', false],
    ['v22.15.9', false],
    ['v22.16.0', true],
    ['22.23.1', true],
    ['v24.0.0', true],
  ])('%s → %s', (version, expected) => {
    expect(nodeIsRecentEnough(version)).toBe(expected);
  });
});

describe('sourceHash', () => {
  const tree = (extra: Record<string, string> = {}): string => {
    const dir = mkdtempSync(join(tmpdir(), 'hdx-src-'));
    const files = { 'package.json': '{"name":"hyperdx"}', 'packages/app/src/index.ts': 'export {};', ...extra };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return dir;
  };

  it('is the same for the same tree, and ignores what a build writes', () => {
    expect(sourceHash(tree())).toBe(sourceHash(tree({ 'node_modules/x/index.js': '1', 'packages/app/.next/BUILD_ID': 'abc' })));
  });

  it('changes with a source file', () => {
    expect(sourceHash(tree())).not.toBe(sourceHash(tree({ 'packages/app/src/index.ts': 'export const x = 1;' })));
  });

  it('hashes a tarball by its bytes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hdx-tar-'));
    writeFileSync(join(dir, 'a.tar.gz'), 'one');
    writeFileSync(join(dir, 'b.tar.gz'), 'two');
    expect(sourceHash(join(dir, 'a.tar.gz'))).toMatch(/^[0-9a-f]{16}$/);
    expect(sourceHash(join(dir, 'a.tar.gz'))).not.toBe(sourceHash(join(dir, 'b.tar.gz')));
  });
});

describe('the --ui options of stack (tools/src/stack/options.ts)', () => {
  const load = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
    const { ui, uiSource, uiPort } = loadTable(STACK_OPTIONS, parseArgsFor([...OPTIONS, ...STACK_OPTIONS], argv), env);
    return { ui, uiSource, uiPort };
  };

  it("off by default; flags beside the sidecar's own", () => {
    expect(load(['stack'])).toEqual({ ui: false, uiSource: undefined, uiPort: 8080 });
    expect(load(['stack', '--ui', '--ui-source', '/src/hyperdx.tar.gz', '--listen', '127.0.0.1:8126', '--ui-port=9090'])).toEqual({ ui: true, uiSource: '/src/hyperdx.tar.gz', uiPort: 9090 });
  });

  it('from the environment', () => {
    expect(load(['stack'], { DD_BRIDGE_UI: 'true', DD_BRIDGE_HYPERDX_SOURCE: '/clone', DD_BRIDGE_UI_PORT: '8181' })).toEqual({ ui: true, uiSource: '/clone', uiPort: 8181 });
  });

  it.each([
    [['stack', '--ui', '--ui-port', 'x'], '--ui-port: expected a port (1-65535), got "x"'],
    [['stack', '--ui', '--ui-source'], 'option --ui-source needs a value'],
  ])('%j → %s', (argv, message) => {
    expect(() => load(argv)).toThrow(message);
  });
});

describe('defaultSources (the pre-connected app of stack --ui)', () => {
  it('Metrics reads the stack’s exponential-histogram table; logs and traces link to each other', () => {
    const [logs, traces, metrics] = defaultSources(EXP_HISTOGRAM_TABLE) as Record<string, unknown>[];
    expect(metrics?.metricTables).toMatchObject({ gauge: 'otel_metrics_gauge', 'exponential histogram': 'otel_metrics_exp_histogram' });
    expect([logs?.traceSourceId, traces?.logSourceId]).toEqual([traces?.id, logs?.id]);
  });
});
