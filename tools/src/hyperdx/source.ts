/**
 * Where the HyperDX source comes from and what identifies it: a directory (a clone) or a .tar.gz
 * (GitHub's tarball of hyperdxio/hyperdx, or the snapshot under ../shared/vendor/hyperdx/ that
 * tests and CI use). Builds are cached by the hash of that source.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { REPO_ROOT, run } from '../collector/build';

/** The shared snapshot's folder, relative to the repository clone (as CI lays it out). */
export const VENDOR_DIR = resolve(REPO_ROOT, '..', 'shared', 'vendor', 'hyperdx');

/** Folders a build writes or a clone carries that are not source: skipped when hashing and copying. */
const NOT_SOURCE = new Set(['node_modules', '.next', '.git', 'dist']);

/** The given source (`--ui-source`, DD_BRIDGE_HYPERDX_SOURCE), else the newest snapshot tarball of VENDOR_DIR. */
export function resolveSource(given: string | undefined): string {
  if (given) {
    const path = resolve(given);
    if (!existsSync(path)) throw new Error(`HyperDX source ${path} does not exist (a hyperdxio/hyperdx clone or its .tar.gz)`);
    return path;
  }
  const tarballs = existsSync(VENDOR_DIR) ? readdirSync(VENDOR_DIR).filter((f) => f.endsWith('.tar.gz')) : [];
  if (tarballs.length === 0) {
    throw new Error(`no HyperDX source: pass --ui-source PATH (a hyperdxio/hyperdx clone or GitHub's .tar.gz of it) or set DD_BRIDGE_HYPERDX_SOURCE; none found in ${VENDOR_DIR}`);
  }
  const newest = tarballs.map((f) => join(VENDOR_DIR, f)).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  return newest as string;
}

const isTarball = (path: string): boolean => statSync(path).isFile();

function sourceFiles(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => !NOT_SOURCE.has(e.name))
    .flatMap((e) => (e.isDirectory() ? sourceFiles(root, join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : []))
    .sort();
}

/** 16 hex digits of sha256: over the tarball's bytes, or over a directory's paths and contents. */
export function sourceHash(path: string): string {
  const hash = createHash('sha256');
  if (isTarball(path)) hash.update(readFileSync(path));
  else for (const file of sourceFiles(path)) hash.update(relative(path, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex').slice(0, 16);
}

/** Puts the source tree's contents (not its top folder) into `dest`. */
export async function unpackSource(path: string, dest: string, logFile: string): Promise<void> {
  mkdirSync(dest, { recursive: true });
  // both GitHub's tarball and `git archive --prefix` put the tree under one top folder
  if (isTarball(path)) await run('tar', ['-xzf', path, '-C', dest, '--strip-components=1'], process.env, logFile, dest);
  else cpSync(path, dest, { recursive: true, filter: (src) => !NOT_SOURCE.has(src.split('/').pop() ?? '') });
}
