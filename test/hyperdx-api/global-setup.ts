/**
 * The hyperdx-api project's global setup: FerretDB, the HyperDX API's install and a new enough
 * Node.js, built once and cached (./setup.ts), so no test waits minutes for them inside its
 * timeout. Also runnable alone (`npm run hyperdx-api:prepare`), as .ci/run does to time it.
 */
import { ensureApiNode, ensureFerretDb, ensureHyperdxApi } from './setup';

export default function globalSetup(): void {
  const log = (line: string): void => void process.stderr.write(`hyperdx-api setup: ${line}\n`);
  const started = Date.now();
  const node = ensureApiNode(log);
  ensureFerretDb(log);
  ensureHyperdxApi(log, node);
  log(`ready in ${Math.round((Date.now() - started) / 1000)} s`);
}

if (require.main === module) globalSetup();
