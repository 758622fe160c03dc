/**
 * The hyperdx-api project's global setup: FerretDB, the HyperDX API's install and a new enough
 * Node.js, built once and cached (./setup.ts), so no test waits minutes for them inside its
 * timeout; then, as for the e2e project, our collector and the embedded ClickHouse's venv (both
 * cached): the migrated tiles' suite ingests through them. The API part is also runnable alone
 * (`npm run hyperdx-api:prepare`), as .ci/run does to time it.
 */
import collectorSetup from '../helpers/global-setup';
import { ensureApiNode, ensureFerretDb, ensureHyperdxApi } from './setup';

function prepareApi(): void {
  const log = (line: string): void => void process.stderr.write(`hyperdx-api setup: ${line}\n`);
  const started = Date.now();
  const node = ensureApiNode(log);
  ensureFerretDb(log);
  ensureHyperdxApi(log, node);
  log(`ready in ${Math.round((Date.now() - started) / 1000)} s`);
}

export default async function globalSetup(): Promise<void> {
  prepareApi();
  await collectorSetup();
}

if (require.main === module) prepareApi();
