/** A HyperDX source tree's files, and the digest that identifies its content (source.ts, pinned-source.ts). */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Folders a build writes or a clone carries that are not source: skipped when hashing and copying. */
export const NOT_SOURCE = new Set(['node_modules', '.next', '.git', 'dist']);

function sourceFiles(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => !NOT_SOURCE.has(e.name))
    .flatMap((e) => (e.isDirectory() ? sourceFiles(root, join(dir, e.name)) : e.isFile() ? [join(dir, e.name)] : []))
    .sort();
}

/** sha256 (hex) of a directory's paths and contents, but for the paths in `leaveOut`. */
export function treeDigest(dir: string, leaveOut: ReadonlySet<string> = new Set()): string {
  const hash = createHash('sha256');
  for (const file of sourceFiles(dir)) {
    const path = relative(dir, file);
    if (!leaveOut.has(path)) hash.update(path).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}
