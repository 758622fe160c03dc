/**
 * Host metadata (POST /intake/): what the agent says of its host becomes resource attributes in a
 * bounded, expiring per-host table, added to every signal's resource naming that host, never over
 * what the signal says itself. The agent payload below is built from the agent's documented shape
 * (intake-protocol.md §6.5; datadog-agent comp/metadata/host/hostimpl/utils): the only captured
 * host metadata, the datadog exporter's, has no cloud or Kubernetes facts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { KeyValue } from '../../src/core/otlp/model';
import { createTranslatorCaches } from '../../src/signals/caches';
import { hostMetadataOf } from '../../src/signals/events/host-metadata';
import { translateEvents } from '../../src/signals/events/translate';
import { translateLogsToModel } from '../../src/signals/logs/chain';
import { translateMetricsToModel } from '../../src/signals/metrics/chain';
import { parseSeriesV2Json } from '../../src/signals/metrics/parse-v2-json';
import { HostMetadataTable } from '../../src/signals/shared/host-metadata';
import { translateTracesToModel } from '../../src/signals/traces/chain';
import { emptySpan, emptyTracerPayload, chunkOf } from '../../src/signals/traces/datadog';
import { keyValueJson } from '../helpers/otlp-json';
import { translationContext } from '../helpers/translation';

const RECEIVED = 1_700_000_000_000_000_000n;

/** The agent's host metadata: top-level keys as the agent sends them, `gohai` a JSON string. */
const agentHostMetadata = (host = 'web-1', extra: Record<string, unknown> = {}) => ({
  os: 'linux',
  'agent-flavor': 'agent',
  python: '3.12.6',
  systemStats: { cpuCores: 4, machine: 'x86_64', platform: 'linux' },
  meta: { 'socket-hostname': host, timezones: ['UTC'], 'socket-fqdn': host, 'ec2-hostname': 'ip-10-0-0-1.ec2.internal', hostname: host, host_aliases: ['i-0abc'], 'instance-id': 'i-0abc', 'cluster-name': 'prod-eu' },
  'host-tags': { system: ['env:prod', 'team:payments', 'region:eu-west-1', 'zone:eu-west-1a', 'kube_cluster_name:tagged-cluster', `host:${host}`, 'bare'] },
  network: { 'network-id': 'vpc-1' },
  'install-method': { tool: 'docker', tool_version: 'docker', installer_version: 'docker' },
  internalHostname: host,
  uuid: '9f1f',
  agentVersion: '7.70.0',
  gohai: '{"cpu":{}}',
  ...extra,
});

const json = (kvs: readonly KeyValue[] | undefined) => Object.fromEntries((kvs ?? []).map(keyValueJson).map(({ key, value }) => [key, value]));

describe('host metadata payload', () => {
  it('promotes host tags through the table, all onto the resource, then the meta facts where no tag said them', () => {
    const metadata = hostMetadataOf(agentHostMetadata());
    expect(metadata?.host).toBe('web-1');
    expect(json(metadata?.attributes)).toEqual({
      'deployment.environment.name': { stringValue: 'prod' },
      team: { stringValue: 'payments' },
      'cloud.region': { stringValue: 'eu-west-1' },
      'cloud.availability_zone': { stringValue: 'eu-west-1a' },
      'k8s.cluster.name': { stringValue: 'tagged-cluster' },
      unnamed_bare: { stringValue: 'bare' },
      'host.id': { stringValue: 'i-0abc' },
      'cloud.provider': { stringValue: 'aws' },
    });
  });

  it("reads the datadog exporter 0.155.0's captured host metadata (host tags under `otel`)", () => {
    const body = gunzipSync(readFileSync(join(__dirname, '..', 'fixtures', 'captured', 'datadog-exporter-0.155.0', '005-intake.json.gzip')));
    const metadata = hostMetadataOf(JSON.parse(body.toString('utf8')));
    expect(metadata?.host).toBe('capture-host');
    expect(json(metadata?.attributes)).toEqual({ team: { stringValue: 'shop' }, 'cloud.region': { stringValue: 'capture-1' } });
  });

  it('takes GCE tags, and the cluster name from meta when no tag names it', () => {
    const metadata = hostMetadataOf({ internalHostname: 'gce-1', meta: { 'cluster-name': 'gke-1' }, 'host-tags': { system: [], 'google cloud platform': ['zone:europe-west1-b', 'project:shop'] } });
    expect(json(metadata?.attributes)).toEqual({
      'cloud.availability_zone': { stringValue: 'europe-west1-b' },
      project: { stringValue: 'shop' },
      'k8s.cluster.name': { stringValue: 'gke-1' },
      'cloud.provider': { stringValue: 'gcp' },
    });
  });

  it.each([
    ['events', { apiKey: '', internalHostname: 'h', events: {} }],
    ['agent-checks metadata', { agentChecks: [['disk', '', 'OK', '']] }],
    ['no host', { 'host-tags': { system: ['a:b'] } }],
    ['not an object', ['a']],
  ])('is not host metadata: %s', (_what, payload) => {
    expect(hostMetadataOf(payload)).toBeUndefined();
  });
});

describe('host table', () => {
  const attrs = (key: string, value: string): KeyValue[] => [{ key, value: { string: value } }];

  it('adds the host attributes a resource lacks, never over its own', () => {
    const table = new HostMetadataTable();
    table.set('web-1', [...attrs('team', 'payments'), ...attrs('cloud.region', 'eu-west-1')]);
    const own: KeyValue[] = [...attrs('host.name', 'web-1'), ...attrs('cloud.region', 'us-east-1')];
    expect(json(table.enrich(own))).toEqual({ 'host.name': { stringValue: 'web-1' }, 'cloud.region': { stringValue: 'us-east-1' }, team: { stringValue: 'payments' } });
    const other = attrs('host.name', 'web-2');
    expect(table.enrich(other)).toBe(other);
    const hostless = attrs('service.name', 's');
    expect(table.enrich(hostless)).toBe(hostless);
  });

  it('reuses the enrichment of a resource until its host says something new', () => {
    const table = new HostMetadataTable();
    const resource = attrs('host.name', 'web-1');
    table.set('web-1', attrs('team', 'payments'));
    const first = table.enrich(resource);
    expect(table.enrich(resource)).toBe(first);
    table.set('web-1', attrs('team', 'ops'));
    expect(json(table.enrich(resource))).toEqual({ 'host.name': { stringValue: 'web-1' }, team: { stringValue: 'ops' } });
  });

  it('forgets a host after the TTL, and the least recently updated host beyond the bound', () => {
    let now = 0;
    const table = new HostMetadataTable({ maxHosts: 2, ttlMs: 1000 }, () => now);
    table.set('a', attrs('k', '1'));
    table.set('b', attrs('k', '2'));
    table.set('a', attrs('k', '3'));
    table.set('c', attrs('k', '4'));
    expect(table.size).toBe(2);
    expect(table.attributesOf('b')).toBeUndefined();
    expect(table.attributesOf('a')).toEqual(attrs('k', '3'));
    now = 999;
    expect(table.attributesOf('c')).toEqual(attrs('k', '4'));
    now = 1000;
    expect(table.attributesOf('c')).toBeUndefined();
  });
});

describe('the host at an address', () => {
  it('is the host whose agent sent metadata from there, unless two did (agents behind one NAT)', () => {
    const table = new HostMetadataTable();
    table.setAddress('10.0.0.5', 'shop-vm-1');
    table.setAddress('10.0.0.5', 'shop-vm-1');
    expect(table.hostAt('10.0.0.5')).toBe('shop-vm-1');
    expect(table.hostAt('10.0.0.6')).toBeUndefined();
    table.setAddress('10.0.0.5', 'shop-vm-2');
    expect(table.hostAt('10.0.0.5')).toBeUndefined();
    table.setAddress('', 'shop-vm-3');
    expect(table.hostAt('')).toBeUndefined();
  });

  it("names the host of a tracer's spans and stats that name none, never over one they name", () => {
    const caches = createTranslatorCaches();
    const span = { ...emptySpan(), service: 'go-shop', name: 'http.request', traceId: 1n, spanId: 2n };
    const host = (hostname: string) => {
      const [spans] = translateTracesToModel({ tracerPayloads: [{ ...emptyTracerPayload(), hostname, chunks: [chunkOf([span])] }] }, { ...translationContext(caches, RECEIVED), senderHost: 'shop-vm-1' });
      return json(spans?.resource.attributes)['host.name'];
    };
    expect(host('')).toEqual({ stringValue: 'shop-vm-1' });
    expect(host('web-9')).toEqual({ stringValue: 'web-9' });
  });
});

describe('every signal from a host that sent metadata carries its host tags', () => {
  const caches = createTranslatorCaches();
  const metadata = hostMetadataOf(agentHostMetadata('web-1'));
  caches.hosts.set(metadata!.host, metadata!.attributes);
  const hasHostTags = (resource: readonly KeyValue[] | undefined) =>
    expect(json(resource)).toMatchObject({ 'host.name': { stringValue: 'web-1' }, team: { stringValue: 'payments' }, 'cloud.region': { stringValue: 'eu-west-1' }, 'k8s.cluster.name': { stringValue: 'tagged-cluster' } });

  it('metrics, not those of other hosts', () => {
    const body = {
      series: [
        { metric: 'system.load.1', type: 3, points: [{ timestamp: 1700000000, value: 1 }], resources: [{ type: 'host', name: 'web-1' }] },
        { metric: 'system.load.1', type: 3, points: [{ timestamp: 1700000000, value: 1 }], resources: [{ type: 'host', name: 'db-1' }] },
      ],
    };
    const { resources } = translateMetricsToModel(parseSeriesV2Json(Buffer.from(JSON.stringify(body))), translationContext(caches, RECEIVED));
    hasHostTags(resources[0]?.resource.attributes);
    expect(json(resources[1]?.resource.attributes)).toEqual({ 'host.name': { stringValue: 'db-1' } });
  });

  it('logs', () => {
    const [logs] = translateLogsToModel({ entries: [{ message: 'hi', hostname: 'web-1', service: 'shop' }], queryTags: undefined }, translationContext(caches, RECEIVED, { decodeJsonMessage: false }));
    hasHostTags(logs?.resource.attributes);
  });

  it('spans', () => {
    const span = { ...emptySpan(), service: 'shop', name: 'op', resource: 'op', traceId: 1n, spanId: 2n };
    const [spans] = translateTracesToModel({ tracerPayloads: [{ ...emptyTracerPayload(), hostname: 'web-1', chunks: [chunkOf([span])] }] }, translationContext(caches, RECEIVED));
    hasHostTags(spans?.resource.attributes);
  });

  it('events', () => {
    const [events] = translateEvents(
      [{ title: 't', text: '', host: 'web-1', tags: [], timestamp: undefined, priority: undefined, alertType: undefined, aggregationKey: undefined, sourceTypeName: undefined, eventType: undefined, deviceName: undefined }],
      RECEIVED,
      caches,
    );
    hasHostTags(events?.resource.attributes);
  });
});
