/**
 * The UI suite's global setup: the collector (as for the e2e project) and the HyperDX local-mode
 * build, both cached, so no test times out on a first build. Also checks the browser is there.
 */
import { existsSync } from 'node:fs';
import { loadTable, parseArgsFor } from '../../src/config';
import { STACK_OPTIONS } from '../../tools/src/stack/options';
import { createLogger } from '../../src/core/observability/log';
import { ensureHyperdx } from '../../tools/src/hyperdx/build';
import collectorSetup from '../helpers/global-setup';
import { CHROMIUM } from './browser';

export default async function globalSetup(): Promise<void> {
  if (!existsSync(CHROMIUM)) throw new Error(`no browser at ${CHROMIUM}: apt-get install -y chromium (or set DD_BRIDGE_CHROMIUM)`);
  await collectorSetup();
  const log = createLogger('info', { component: 'test-ui-setup' }, (line) => process.stderr.write(line + '\n'));
  // the source stack --ui would use: DD_BRIDGE_HYPERDX_SOURCE, else the shared snapshot
  const { uiSource } = loadTable(STACK_OPTIONS, parseArgsFor(STACK_OPTIONS, []), process.env);
  process.env.DD_BRIDGE_TEST_HYPERDX = JSON.stringify(await ensureHyperdx(log, { source: uiSource }));
}
