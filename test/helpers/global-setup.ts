/**
 * The e2e project's global setup: builds our collector once before any end-to-end test runs
 * (cached by manifest hash, so normally a no-op), and makes the embedded ClickHouse's venv (kept
 * under TEST_CLICKHOUSE_HOME, so normally a no-op too). Doing either inside a test would hit
 * timeouts and starve the suites running beside it of CPU.
 */
import { ensureCollector } from '../../tools/src/collector/build';
import { ensureClickHouseVenv } from '../../tools/src/clickhouse/launcher';
import { createLogger } from '../../src/core/observability/log';
import { TEST_CLICKHOUSE_HOME } from './clickhouse';
import { TEST_MANIFEST } from './manifest';

export default async function globalSetup(): Promise<void> {
  const log = createLogger('info', { component: 'test-setup' }, (line) => process.stderr.write(line + '\n'));
  process.env.DD_BRIDGE_TEST_COLLECTOR = await ensureCollector(log, { manifest: TEST_MANIFEST });
  await ensureClickHouseVenv(TEST_CLICKHOUSE_HOME, log);
}
