/**
 * `datadog-metrics` (the popular Node buffered-metrics library) end to end. It builds its own
 * `@datadog/datadog-api-client` configuration with no way to pass a server URL, so this file
 * wraps the client's `createConfiguration` to add the client's documented `baseServer` option
 * pointing at the sidecar; everything else (what the library aggregates, serializes, compresses
 * and sends: v1 submitMetrics and submitDistributionPoints) is the library's own.
 */
import { randomUUID } from 'node:crypto';
import { sendWorkload } from '../helpers/datadog-metrics';
import { waitFor } from '../helpers/sink';
import { pointNamed, pointsNamed } from '../helpers/sink-metrics';
import { startStack, type TestStack } from '../helpers/stack';

// jest hoists this above the imports, so datadog-metrics binds to the wrapped client
let mockIntakeUrl = '';
jest.mock('@datadog/datadog-api-client', () => {
  const actual = jest.requireActual('@datadog/datadog-api-client');
  const createConfiguration = (conf: Record<string, unknown> = {}) => actual.client.createConfiguration({ baseServer: new actual.client.BaseServerConfiguration(mockIntakeUrl, {}), ...conf });
  return { ...actual, client: { ...actual.client, createConfiguration } };
});

const S = 1_000_000_000n;

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
  mockIntakeUrl = stack.intakeUrl;
});
afterAll(async () => {
  await stack?.stop();
});

describe('datadog-metrics → real collector', () => {
  it('gauges, counters, histograms and distributions land with their types, values, times and resources', async () => {
    const prefix = `dm.${randomUUID().slice(0, 8)}.`;
    const sent = await sendWorkload(prefix);
    const [before, after] = [BigInt(sent.before) * S, BigInt(sent.after) * S];

    const points = await waitFor(
      () => pointsNamed(stack.sinkDir, prefix),
      (p) => p.some((x) => x.name === `${prefix}payload.bytes`) && p.some((x) => x.name === `${prefix}jobs.done`),
    );
    for (const p of points) {
      expect(p.resource).toEqual({ 'deployment.environment.name': 'prod', 'service.name': 'worker', 'host.name': 'dm-host' });
      expect(p.timeUnixNano >= before && p.timeUnixNano <= after).toBe(true);
    }

    const gauge = pointNamed(points, `${prefix}queue.depth`);
    expect([gauge.kind, gauge.value]).toEqual(['gauge', 7]);
    expect(gauge.attributes).toEqual({ queue: 'emails' });

    const counter = pointNamed(points, `${prefix}jobs.done`);
    expect([counter.kind, counter.temporality, counter.isMonotonic, counter.value]).toEqual(['sum', 1, false, 5]);
    expect(counter.startTimeUnixNano).toBe(counter.timeUnixNano);

    // the library summarizes histograms itself: gauges for max/avg/percentiles, a count
    expect([pointNamed(points, `${prefix}job.ms.max`).kind, pointNamed(points, `${prefix}job.ms.max`).value]).toEqual(['gauge', 30]);
    expect([pointNamed(points, `${prefix}job.ms.count`).kind, pointNamed(points, `${prefix}job.ms.count`).value]).toEqual(['sum', 2]);

    const dist = pointNamed(points, `${prefix}payload.bytes`);
    expect([dist.kind, dist.temporality, dist.point.count, dist.point.sum, dist.point.min, dist.point.max]).toEqual(['exponentialHistogram', 1, '2', 400, 100, 300]);
  });
});
