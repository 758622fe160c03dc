/**
 * The hyperdx-api project's global setup: FerretDB, the HyperDX API's install and a new enough
 * Node.js, built once and cached (./setup.ts), so no test waits minutes for them inside its
 * timeout; then, as for the e2e project, our collector and the embedded ClickHouse's venv (both
 * cached): the migrated tiles' suite ingests through them. The API part is also runnable alone
 * (`npm run hyperdx-api:prepare`), as .ci/run does to time it.
 */
import collectorSetup from '../helpers/global-setup';
import { createLogger } from '../../src/core/observability/log';
import { prepareHyperdxApi } from './setup';

async function prepareApi(): Promise<void> {
  const log = createLogger('info', { component: 'hyperdx-api setup' }, (line) => process.stderr.write(`${line}\n`));
  const started = Date.now();
  await prepareHyperdxApi(log);
  log.info('ready', { seconds: Math.round((Date.now() - started) / 1000) });
}

export default async function globalSetup(): Promise<void> {
  await prepareApi();
  await collectorSetup();
}

if (require.main === module)
  prepareApi().catch((err: unknown) => {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  });
