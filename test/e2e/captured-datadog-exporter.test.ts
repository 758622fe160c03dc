/**
 * The collector's datadog exporter 0.155.0, captured (test/fixtures/captured/datadog-exporter-0.155.0/,
 * see its README.md), replayed against today's bridge and the real collector: every request (key
 * checks, the logs probe, host metadata, series, sketches, traces, logs) gets a 2xx, and the known
 * input's 3 spans, 2 log records and gauge arrive. Whether they come back as the OTLP input they
 * were made from is for the translation tests.
 */
import { describeCapturedReplay } from '../helpers/captured';
import { waitForPoints } from '../helpers/sink-metrics';

describeCapturedReplay('captured datadog exporter 0.155.0', {
  fixture: 'datadog-exporter-0.155.0',
  paths: ['/api/v0.2/traces', '/api/v2/logs', '/api/v2/series', '/intake'],
  spans: 3,
  logRecords: 2,
  alsoDelivered: async (sinkDir) => {
    expect(await waitForPoints(sinkDir, 'shop.queue.depth', 1)).toHaveLength(1);
  },
});
