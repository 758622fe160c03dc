/**
 * Offline fonts for `next build`: the app imports its fonts from `next/font/google`, which
 * downloads them at build time. Instead, npm's @fontsource packages of the same families are
 * fetched from the npm registry into the build's cache (never into this repository) and served to
 * Next by google-fonts-mock.cjs.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, run } from '../collector/build';

/** The fontsource major whose file names (`<id>-latin-<weight>-<style>.woff2`) the mock expects. */
const FONTSOURCE_MAJOR = '5';

export const FONT_MOCK = join(REPO_ROOT, 'tools', 'src', 'hyperdx', 'google-fonts-mock.cjs');

const IMPORT = /import\s*\{([^}]*)\}\s*from\s*['"]next\/font\/google['"]/g;

/** Fontsource ids of the Google fonts a source file imports: `IBM_Plex_Mono` → `ibm-plex-mono`. */
export function googleFontIds(source: string): string[] {
  return [...source.matchAll(IMPORT)].flatMap((m) =>
    (m[1] ?? '')
      .split(',')
      .map((name) => name.trim().split(/\s+as\s+/)[0] ?? '')
      .filter((name) => name !== '')
      .map((name) => name.toLowerCase().replace(/_/g, '-')),
  );
}

function sourceFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFilesUnder(path);
    return /\.(ts|tsx|js|jsx)$/.test(e.name) ? [path] : [];
  });
}

/** Every Google font the app's sources import. */
export function appGoogleFonts(appDir: string): string[] {
  const ids = ['src', 'pages', 'app']
    .map((d) => join(appDir, d))
    .filter(existsSync)
    .flatMap(sourceFilesUnder)
    .flatMap((f) => googleFontIds(readFileSync(f, 'utf8')));
  return [...new Set(ids)].sort();
}

/** Unpacks `@fontsource/<id>` for each id into `<fontsDir>/<id>/package/` (kept across builds). */
export async function fetchFontsource(ids: readonly string[], fontsDir: string, logFile: string): Promise<void> {
  for (const id of ids) {
    const dir = join(fontsDir, id);
    if (existsSync(join(dir, 'package', 'files'))) continue;
    const work = `${dir}.${process.pid}`;
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    await run('npm', ['pack', '--silent', `@fontsource/${id}@${FONTSOURCE_MAJOR}`], process.env, logFile, work);
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack @fontsource/${id} left no tarball; see ${logFile}`);
    await run('tar', ['-xzf', tarball], process.env, logFile, work);
    rmSync(join(work, tarball));
    rmSync(dir, { recursive: true, force: true });
    renameSync(work, dir);
  }
}

/** The environment that makes `next build` take its fonts from `fontsDir`. */
export const fontEnv = (fontsDir: string): NodeJS.ProcessEnv => ({ NEXT_FONT_GOOGLE_MOCKED_RESPONSES: FONT_MOCK, DD_BRIDGE_FONTSOURCE_DIR: fontsDir });
