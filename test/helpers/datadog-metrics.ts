/**
 * The workload both datadog-metrics suites send (metrics-datadog-metrics.test.ts against the file
 * sink, metrics-clickhouse.test.ts against ClickHouse), so they judge the same library calls. The
 * suite must already point the library's API client at the sidecar (see either file's jest.mock).
 */
import { BufferedMetricsLogger } from 'datadog-metrics';

/**
 * A gauge (`queue.depth` 7, tag `queue:emails`), a counter incremented twice (`jobs.done` 2 + 3), a
 * histogram (`job.ms` 10 and 30, which the library summarizes itself) and a distribution
 * (`payload.bytes` 100 and 300), all under `prefix`, on host `dm-host` with tags `env:prod`,
 * `service:worker`, flushed once. Returns the Unix seconds the points' times must lie between.
 */
export async function sendWorkload(prefix: string): Promise<{ before: number; after: number }> {
  const metrics = new BufferedMetricsLogger({ apiKey: 'dm-key', prefix, host: 'dm-host', defaultTags: ['env:prod', 'service:worker'], flushIntervalSeconds: 0 });
  const before = Math.floor(Date.now() / 1000) - 1;
  metrics.gauge('queue.depth', 7, ['queue:emails']);
  metrics.increment('jobs.done', 2);
  metrics.increment('jobs.done', 3);
  metrics.histogram('job.ms', 10);
  metrics.histogram('job.ms', 30);
  metrics.distribution('payload.bytes', 100);
  metrics.distribution('payload.bytes', 300);
  await metrics.flush();
  return { before, after: Math.floor(Date.now() / 1000) + 1 };
}
