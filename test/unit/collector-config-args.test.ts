/**
 * How the collector's configuration is assembled (tools/src/collector/run.ts) and judged
 * (tools/src/collector/durable.ts): overlays only add, with the collector's merge-append gate, and
 * an assembled configuration that lost a base processor or the disk queue is refused.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { durabilityFindings } from '../../tools/src/collector/durable';
import { BASE_CONFIG, collectorEnvFor, configArgs, MERGE_APPEND, OVERLAYS, overlaysFor } from '../../tools/src/collector/run';

const files = (args: string[]): string[] => args.filter((_a, i) => args[i - 1] === '--config');

describe('configArgs', () => {
  it('turns merge-append on first, then the base, the overlays and the extra files in order', () => {
    const args = configArgs(['auth', 'datadog'], ['/site/overrides.yaml']);
    expect(args[0]).toBe(MERGE_APPEND);
    expect(files(args)).toEqual([BASE_CONFIG, OVERLAYS.auth, OVERLAYS.datadog, '/site/overrides.yaml']);
  });

  it('no overlay lists processors: the pipelines keep the base`s', () => {
    for (const file of Object.values(OVERLAYS)) {
      const pipelines = (parse(readFileSync(file, 'utf8')) as { service?: { pipelines?: Record<string, object> } }).service?.pipelines ?? {};
      for (const pipeline of Object.values(pipelines)) expect(Object.keys(pipeline)).not.toContain('processors');
    }
  });
});

describe('overlaysFor', () => {
  it('writes files without a DB, and to ClickHouse (the base) with one', () => {
    expect(overlaysFor({})).toEqual(['fileSink']);
    expect(overlaysFor({ DB_ENDPOINT: 'tcp://db:9000', OTLP_AUTH_TOKEN: 't' })).toEqual(['auth']);
    expect(overlaysFor({ DB_ENDPOINT: 'tcp://db:9000', COLLECTOR_DATADOG_FANOUT: 'true' })).toEqual(['datadog']);
  });

  it('the file sink points the base`s pipelines at the file exporter, unless the caller names another', () => {
    expect(collectorEnvFor(['fileSink'], {}).COLLECTOR_SINK).toBe('file');
    expect(collectorEnvFor(['fileSink'], { COLLECTOR_SINK: 'debug' }).COLLECTOR_SINK).toBe('debug');
    expect(collectorEnvFor(['auth'], {}).COLLECTOR_SINK).toBeUndefined();
  });
});

describe('durabilityFindings', () => {
  const base = parse(readFileSync(BASE_CONFIG, 'utf8'));
  /** The base as the collector prints it once merged, ClickHouse as the destination. */
  const resolved = () => {
    const tree = structuredClone(base);
    for (const p of Object.values(tree.service.pipelines) as { exporters: string[] }[]) p.exporters = ['clickhouse'];
    return tree;
  };

  it('finds nothing in the base itself', () => {
    expect(durabilityFindings(base, resolved())).toEqual([]);
  });

  it('finds a processor list an overlay replaced, and a batch processor', () => {
    const tree = resolved();
    tree.service.pipelines.logs.processors = ['batch'];
    expect(durabilityFindings(base, tree)).toEqual(["pipeline logs: processors [batch] do not start with the base's [memory_limiter]", 'pipeline logs: processor batch acknowledges what it holds in memory']);
  });

  it('finds a queue in memory, a queue whose storage is not enabled, and retries that give up', () => {
    const tree = resolved();
    delete tree.exporters.clickhouse.sending_queue.storage;
    tree.exporters.clickhouse.retry_on_failure.max_elapsed_time = '300s';
    expect(durabilityFindings(base, tree)).toContain('exporter clickhouse: sending_queue has no storage (the queue would be in memory)');
    expect(durabilityFindings(base, tree)).toContain('exporter clickhouse: retries give up (retry_on_failure max_elapsed_time 300s)');
    const noExtension = resolved();
    noExtension.service.extensions = ['health_check'];
    expect(durabilityFindings(base, noExtension)).toContain("exporter clickhouse: its queue's storage file_storage/queue is not among service.extensions");
  });

  it('finds an exporter a site file listed again (merge-append joins it to the base`s before the variable resolves)', () => {
    const tree = resolved();
    tree.service.pipelines.logs.exporters = ['clickhouse', 'clickhouse', 'datadog'];
    expect(durabilityFindings(base, tree)).toEqual(['pipeline logs: exporter clickhouse listed twice (every batch would be exported twice)']);
  });

  it('finds what main had before: the batch processor and no queue (issue 33, item 6)', () => {
    const before = resolved();
    for (const p of Object.values(before.service.pipelines) as { processors: string[] }[]) p.processors = ['memory_limiter', 'batch'];
    delete before.exporters.clickhouse.sending_queue;
    before.exporters.clickhouse.retry_on_failure.max_elapsed_time = '300s';
    expect(durabilityFindings(base, before)).toEqual([
      ...['traces', 'metrics', 'logs'].map((p) => `pipeline ${p}: processor batch acknowledges what it holds in memory`),
      'exporter clickhouse: no sending_queue',
      'exporter clickhouse: retries give up (retry_on_failure max_elapsed_time 300s)',
    ]);
  });
});
