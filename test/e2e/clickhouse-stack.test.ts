/**
 * The stack with ClickHouse as its destination (test/helpers/stack.ts `sink: 'clickhouse'`): the
 * collector's clickhouse exporter creates ClickStack's tables in the embedded ClickHouse, the
 * exponential-histogram table under the name HyperDX's auto-detection looks for, and a log sent
 * as the Datadog logs agent sends it sits in otel_logs.
 */
import { logsBatch } from '../helpers/agent-load';
import { startTestClickHouse, type TestClickHouse } from '../helpers/clickhouse';
import { startStack, type TestStack } from '../helpers/stack';

const TOKEN = 'clickhouse-stack-token';

describe('stack writing to ClickHouse', () => {
  let ch: TestClickHouse;
  let stack: TestStack;
  beforeAll(async () => {
    ch = await startTestClickHouse();
    // with a token: the auth overlay and the persistent queue each enable an extension, and both must run
    stack = await startStack({ sink: 'clickhouse', clickhouse: ch, authToken: TOKEN });
  });
  afterAll(async () => {
    await stack?.stop();
    await ch?.stop();
  });

  it("creates ClickStack's tables, exp histograms as otel_metrics_exp_histogram", async () => {
    const tables = await ch.waitForRows<{ name: string }>("SELECT name FROM system.tables WHERE database = 'default' AND name LIKE 'otel_%' ORDER BY name", 8, 30_000);
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['otel_logs', 'otel_traces', 'otel_metrics_gauge', 'otel_metrics_sum', 'otel_metrics_histogram', 'otel_metrics_exp_histogram', 'otel_metrics_summary']));
  });

  it('a logs-agent batch lands in otel_logs with its service, status and tags', async () => {
    const run = `ch-stack-${Date.now()}`;
    const res = await fetch(`${stack.intakeUrl}/api/v2/logs`, { method: 'POST', body: logsBatch(run, ['one', 'two']), headers: { 'Content-Type': 'application/json', 'DD-API-KEY': TOKEN } });
    expect(res.status).toBe(202);
    const rows = await ch.waitForRows<{ ServiceName: string; SeverityText: string; Body: string; id: string }>(
      `SELECT ServiceName, SeverityText, Body, LogAttributes['id'] AS id FROM otel_logs WHERE LogAttributes['run'] = {run:String} ORDER BY id`,
      2,
      30_000,
      { run },
    );
    expect(rows).toEqual([
      { ServiceName: 'load', SeverityText: 'info', Body: 'load one', id: 'one' },
      { ServiceName: 'load', SeverityText: 'info', Body: 'load two', id: 'two' },
    ]);
  });
});
