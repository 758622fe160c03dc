/**
 * Where the HyperDX source comes from and what identifies it: a directory (a clone) or a .tar.gz
 * (GitHub's tarball of hyperdxio/hyperdx, or the snapshot under ../shared/vendor/hyperdx/ that
 * tests and CI use, or the pinned commit fetched from GitHub: pinned-source.ts). Builds are
 * cached by the hash of that source.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Logger } from '../../../src/core/observability/log';
import { REPO_ROOT, run } from '../collector/build';
import { fetchedPinnedSource, fetchPinnedSource, PINNED_HYPERDX } from './pinned-source';
import { NOT_SOURCE, treeDigest } from './tree';

/** The shared snapshot's folder, relative to the repository clone (as CI lays it out). */
export const VENDOR_DIR = resolve(REPO_ROOT, '..', 'shared', 'vendor', 'hyperdx');

/**
 * The given source (`--ui-source`, DD_BRIDGE_HYPERDX_SOURCE), else the newest snapshot tarball of
 * VENDOR_DIR, else the pinned commit once fetched (pinned-source.ts); undefined when there is
 * none yet (ensureSource fetches it).
 */
export function localSource(given: string | undefined): string | undefined {
  if (given) {
    const path = resolve(given);
    if (!existsSync(path)) throw new Error(`HyperDX source ${path} does not exist (a hyperdxio/hyperdx clone or its .tar.gz)`);
    return path;
  }
  const tarballs = existsSync(VENDOR_DIR) ? readdirSync(VENDOR_DIR).filter((f) => f.endsWith('.tar.gz')) : [];
  const newest = tarballs.map((f) => join(VENDOR_DIR, f)).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  return newest ?? fetchedPinnedSource();
}

/** As localSource, and when there is none, the pinned commit fetched and checked first. */
export async function ensureSource(given: string | undefined, log: Logger): Promise<string> {
  return localSource(given) ?? fetchPinnedSource(log);
}

/** As localSource, for what cannot fetch (`hyperdx path`): says what to do when there is none. */
export function resolveSource(given: string | undefined): string {
  const found = localSource(given);
  if (found === undefined) throw new Error(`no HyperDX source yet: \`dd-otlp-bridge-tools hyperdx build\` fetches hyperdxio/hyperdx at ${PINNED_HYPERDX.commit}, or pass --ui-source PATH (a clone or its .tar.gz); none found in ${VENDOR_DIR}`);
  return found;
}

const isTarball = (path: string): boolean => statSync(path).isFile();

/** 16 hex digits of sha256: over the tarball's bytes, or over a directory's paths and contents. */
export const sourceHash = (path: string): string => (isTarball(path) ? createHash('sha256').update(readFileSync(path)).digest('hex') : treeDigest(path)).slice(0, 16);

/** Puts the source tree's contents (not its top folder) into `dest`. */
export async function unpackSource(path: string, dest: string, logFile: string): Promise<void> {
  mkdirSync(dest, { recursive: true });
  // both GitHub's tarball and `git archive --prefix` put the tree under one top folder
  if (isTarball(path)) await run('tar', ['-xzf', path, '-C', dest, '--strip-components=1'], process.env, logFile, dest);
  else cpSync(path, dest, { recursive: true, filter: (src) => !NOT_SOURCE.has(src.split('/').pop() ?? '') });
}
