/**
 * The HyperDX source built when none is given and none sits in ../shared/vendor/hyperdx/:
 * hyperdxio/hyperdx at one commit, fetched as GitHub's tarball of it and checked against the
 * digest of the tree it must unpack to (tree.ts) before anything is built from it. The digest is
 * of the tree, not of the tarball's bytes, which GitHub does not promise to keep; it leaves out one
 * file the shared snapshot of the same commit lacks (its README says which).
 */
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import type { Logger } from '../../../src/core/observability/log';
import { step } from '../build-cache';
import { run } from '../collector/build';
import { treeDigest } from './tree';

export const PINNED_HYPERDX = {
  commit: 'b52a6fa83a1a8f6d1cc70e8b676103ade6a1b207',
  /** treeDigest of the commit's tree without LEFT_OUT */
  tree: '7906ad48af6da2be767691b9707dda3f5d329efee23562a41ca656f851437e60',
} as const;

/** Not in the shared snapshot of the commit, so not part of the digest (the UI builds and runs without it). */
const LEFT_OUT: ReadonlySet<string> = new Set(['packages/app/public/pyodide/pyodide.asm.wasm']);

/** Where GitHub serves a commit's tarball; DD_BRIDGE_HYPERDX_DOWNLOAD_URL replaces it (a mirror, a test server). */
const downloadBase = (): string => process.env.DD_BRIDGE_HYPERDX_DOWNLOAD_URL ?? 'https://codeload.github.com/hyperdxio/hyperdx/tar.gz/';

/** Where the fetched tarball is kept: beside the builds (DD_BRIDGE_HYPERDX_CACHE, build.ts). */
const pinnedCache = (): string => join(process.env.DD_BRIDGE_HYPERDX_CACHE ?? join(homedir(), '.cache', 'dd-otlp-bridge', 'hyperdx'), 'source');
const pinnedTarball = (): string => join(pinnedCache(), `hyperdx-${PINNED_HYPERDX.commit}.tar.gz`);

/** The fetched and checked tarball of the pinned commit, when there is one. */
export const fetchedPinnedSource = (): string | undefined => (existsSync(pinnedTarball()) ? pinnedTarball() : undefined);

/** Fetches the pinned commit's tarball, checks the tree it unpacks to, and keeps it; returns its path. */
export async function fetchPinnedSource(log: Logger): Promise<string> {
  const target = pinnedTarball();
  const url = `${downloadBase()}${PINNED_HYPERDX.commit}`;
  mkdirSync(pinnedCache(), { recursive: true });
  const part = `${target}.part-${process.pid}`;
  const unpacked = `${target}.check-${process.pid}`;
  try {
    await step(log, `fetching the HyperDX source (hyperdxio/hyperdx ${PINNED_HYPERDX.commit.slice(0, 12)}) from ${url}`, () => download(url, part));
    mkdirSync(unpacked);
    const logFile = join(pinnedCache(), 'fetch.log');
    await run('tar', ['-xzf', part, '-C', unpacked, '--strip-components=1'], process.env, logFile, unpacked);
    const digest = treeDigest(unpacked, LEFT_OUT);
    if (digest !== PINNED_HYPERDX.tree) throw new Error(`the HyperDX source from ${url} is not the pinned tree (digest ${digest}, expected ${PINNED_HYPERDX.tree}); nothing was built from it`);
    renameSync(part, target);
    writeFileSync(`${target}.txt`, `hyperdxio/hyperdx ${PINNED_HYPERDX.commit}, fetched from ${url}, tree ${digest}\n`);
    return target;
  } finally {
    rmSync(part, { force: true });
    rmSync(unpacked, { recursive: true, force: true });
  }
}

async function download(url: string, to: string): Promise<void> {
  const res = await fetch(url).catch((err: unknown) => {
    throw new Error(`cannot fetch ${url} (${(err as Error).message}): pass --ui-source PATH (a hyperdxio/hyperdx clone or its .tar.gz) on a machine without that network`);
  });
  if (!res.ok || !res.body) throw new Error(`cannot fetch ${url}: HTTP ${res.status}`);
  await pipeline(Readable.fromWeb(res.body as ReadableStream<Uint8Array>), createWriteStream(to));
}
