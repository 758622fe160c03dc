/**
 * Builds the collectors once before any test file runs (cached by manifest hash, so normally a
 * no-op): ours for every end-to-end test, and the reference collector with the upstream receiver
 * for the conformance test. Building inside a test would hit timeouts and starve the suites
 * running beside it of CPU.
 */
import { ensureCollector } from '../../src/collector/build';
import { createLogger } from '../../src/observability/log';
import { binaries } from '../bench/sut';
import { TEST_MANIFEST } from './manifest';

export default async function globalSetup(): Promise<void> {
  const log = createLogger('info', { component: 'test-setup' }, (line) => process.stderr.write(line + '\n'));
  process.env.DD_BRIDGE_TEST_COLLECTOR = await ensureCollector(log, { manifest: TEST_MANIFEST });
  await binaries();
}
