/**
 * Without a local HyperDX source, the pinned commit is fetched and checked against the digest of
 * its tree before anything is built from it (tools/src/hyperdx/pinned-source.ts). GitHub is not
 * reachable here: a local server serves a tarball laid out as GitHub's (top folder
 * hyperdx-<commit>/, and the file the shared snapshot lacks), made from the shared snapshot.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/core/observability/log';
import { fetchedPinnedSource, fetchPinnedSource, PINNED_HYPERDX } from '../../tools/src/hyperdx/pinned-source';
import { localSource, VENDOR_DIR } from '../../tools/src/hyperdx/source';

const snapshot = existsSync(VENDOR_DIR) ? localSource(undefined) : undefined;
const log = createLogger('error');

/** GitHub's layout of the commit: the snapshot's tree under hyperdx-<commit>/, plus the file it lacks; `tamper` changes a file first. */
function githubTarball(tamper: boolean): Buffer {
  const work = mkdtempSync(join(tmpdir(), 'hdx-github-'));
  const tree = join(work, `hyperdx-${PINNED_HYPERDX.commit}`);
  mkdirSync(tree);
  execFileSync('tar', ['-xzf', snapshot!, '-C', tree, '--strip-components=1']);
  writeFileSync(join(tree, 'packages', 'app', 'public', 'pyodide', 'pyodide.asm.wasm'), 'wasm');
  if (tamper) writeFileSync(join(tree, 'README.md'), `${readFileSync(join(tree, 'README.md'), 'utf8')}\nchanged\n`);
  execFileSync('tar', ['-czf', join(work, 'out.tar.gz'), '-C', work, `hyperdx-${PINNED_HYPERDX.commit}`]);
  return readFileSync(join(work, 'out.tar.gz'));
}

async function serving(body: Buffer): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    if (req.url !== `/${PINNED_HYPERDX.commit}`) return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'application/x-gzip' }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

(snapshot ? describe : describe.skip)('the pinned HyperDX source', () => {
  const env = { ...process.env };
  afterEach(() => {
    process.env = { ...env };
  });

  it.each([
    [false, 'is kept when its tree is the pinned one'],
    [true, 'is refused, and nothing kept, when one file differs'],
  ])(
    'tampered %s: %s',
    async (tamper) => {
      const { server, base } = await serving(githubTarball(tamper));
      process.env.DD_BRIDGE_HYPERDX_DOWNLOAD_URL = base;
      process.env.DD_BRIDGE_HYPERDX_CACHE = mkdtempSync(join(tmpdir(), 'hdx-cache-'));
      try {
        if (tamper) {
          await expect(fetchPinnedSource(log)).rejects.toThrow(/is not the pinned tree \(digest [0-9a-f]{64}, expected 7906ad48/);
          expect(fetchedPinnedSource()).toBeUndefined();
        } else {
          const kept = await fetchPinnedSource(log);
          expect(fetchedPinnedSource()).toBe(kept);
          expect(readFileSync(`${kept}.txt`, 'utf8')).toContain(PINNED_HYPERDX.commit);
        }
      } finally {
        server.close();
      }
    },
    60_000,
  );

  it('says what to do when the network is not there', async () => {
    process.env.DD_BRIDGE_HYPERDX_DOWNLOAD_URL = 'http://127.0.0.1:9/';
    process.env.DD_BRIDGE_HYPERDX_CACHE = mkdtempSync(join(tmpdir(), 'hdx-cache-'));
    await expect(fetchPinnedSource(log)).rejects.toThrow(/cannot fetch .*pass --ui-source PATH/);
  });
});
