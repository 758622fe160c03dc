/**
 * The stack with ClickHouse as its destination (test/helpers/clickhouse-stack.ts, `sink: 'clickhouse'`): the
 * collector's clickhouse exporter creates ClickStack's tables in the embedded ClickHouse, the
 * exponential-histogram table under the name HyperDX's auto-detection looks for, and a log sent
 * as the Datadog logs agent sends it sits in otel_logs.
 */
import { useClickHouseStack } from '../helpers/clickhouse-stack';
import { logsBatch } from '../helpers/agent-load';

const TOKEN = 'clickhouse-stack-token';

describe('stack writing to ClickHouse', () => {
  const running = useClickHouseStack({ authToken: TOKEN });
  beforeAll(async () => {});

  it("creates ClickStack's tables, exp histograms as otel_metrics_exp_histogram", async () => {
    const tables = await running.ch.waitForRows<{ name: string }>("SELECT name FROM system.tables WHERE database = 'default' AND name LIKE 'otel_%' ORDER BY name", 8, 30_000);
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['otel_logs', 'otel_traces', 'otel_metrics_gauge', 'otel_metrics_sum', 'otel_metrics_histogram', 'otel_metrics_exp_histogram', 'otel_metrics_summary']));
  });

  it('a logs-agent batch lands in otel_logs with its service, status and tags', async () => {
    const run = `ch-stack-${Date.now()}`;
    const res = await fetch(`${running.stack.intakeUrl}/api/v2/logs`, { method: 'POST', body: logsBatch(run, ['one', 'two']), headers: { 'Content-Type': 'application/json', 'DD-API-KEY': TOKEN } });
    expect(res.status).toBe(202);
    const rows = await running.ch.waitForRows<{ ServiceName: string; SeverityText: string; Body: string; id: string }>(
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
