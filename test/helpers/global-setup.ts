/**
 * Builds the collector once before any test file runs (cached by manifest hash, so normally a
 * no-op). End-to-end tests need the real binary; building it inside a test would hit timeouts.
 */
import { ensureCollector } from '../../src/collector/build';
import { createLogger } from '../../src/observability/log';
import { TEST_MANIFEST } from './manifest';

export default async function globalSetup(): Promise<void> {
  const log = createLogger('info', { component: 'test-setup' }, (line) => process.stderr.write(line + '\n'));
  process.env.DD_BRIDGE_TEST_COLLECTOR = await ensureCollector(log, { manifest: TEST_MANIFEST });
}
