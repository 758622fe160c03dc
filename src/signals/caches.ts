/**
 * Every cache the translators keep for the life of the process, in one place. The composition
 * root (src/cli/sidecar.ts) creates them once and hands them to the routes in RouteContext, and
 * the routes to the chains; no translator module keeps state of its own. Tables that never
 * change (known-keys.ts, the severity names, …) are constants, not caches, and stay where they are.
 */
import type { SemconvOptIn } from '../config/options';
import { enrichers, type ResourceEnricher, type ResourceGroupings } from './shared/group';
import { PodIdentities } from './shared/pod-identities';
import { HostMetadataTable, type HostMetadataOptions } from './shared/host-metadata';
import { PromotionMemos } from './logs/promotion-memo';
import { NodeHosts } from './metrics/kubernetes/node-hosts';
import { DEFAULT_KUBERNETES_METRIC_OPTIONS, type KubernetesMetricOptions } from './metrics/kubernetes/options';
import { NO_PIPELINES, type PipelineSet } from './logs/pipelines/pipeline-set';
import { newInternedOrigins, type OriginsByInternedTags } from './metrics/resource';
import { DEFAULT_START_TIME_OPTIONS, StreamStartTimes, type StartTimeOptions } from './metrics/start-times';
import { TraceIdCache, type TraceIdCacheOptions } from './shared/trace-id';
import { AttributeNames } from './traces/finish';
import { QuerySummaries } from './traces/name';
import { ServiceIdentities } from './traces/service-identity';

export interface TranslatorCaches {
  /** low 64 → high 64 bits of trace ids, learned on the traces path and read on the logs path */
  traceIds: TraceIdCache;
  /** start-time memory of metric streams, shared by every metric route */
  metricStreams: StreamStartTimes;
  /** the logs resource step's promotions, by `?ddtags=` (logs/promotion-memo.ts) */
  logPromotions: PromotionMemos;
  /** a resource map's KeyValues and grouping key (group.ts) */
  groupings: ResourceGroupings;
  /** metric origins of tag lists the direct series reader interned (metrics/resource.ts) */
  internedOrigins: OriginsByInternedTags;
  /** span attribute names by meta / metrics key, for the process's semantic-convention opt-in (traces/finish.ts) */
  spanAttributeNames: AttributeNames;
  /** host tags, cloud and Kubernetes facts by host, from agent host metadata, added to every signal's resource (host-metadata.ts) */
  hosts: HostMetadataTable;
  /** each pod's uid and node, and each container's pod, as any signal said them (pod-identities.ts) */
  pods: PodIdentities;
  /** what `hosts` then `pods` add to a resource when its group is opened (group.ts) */
  enrichment: ResourceEnricher;
  /** query text → OpenTelemetry query summary, the name of database spans (traces/name.ts) */
  querySummaries: QuerySummaries;
  /** integration service → the base service its spans are grouped under, for the APM stats (traces/service-identity.ts) */
  serviceIdentities: ServiceIdentities;
  /** whether Kubernetes metrics get their OpenTelemetry names and keep their Datadog ones (metrics/kubernetes/mapping.ts) */
  kubernetesMetrics: KubernetesMetricOptions;
  /** the hosts that sent kubelet series: Kubernetes nodes (metrics/kubernetes/node-hosts.ts) */
  kubernetesNodes: NodeHosts;
  /** the Datadog log pipelines in force; `current` is replaced whole on a reload (SIGHUP), never changed in place */
  logPipelines: { current: PipelineSet };
}

export interface TranslatorCacheOptions {
  traceIds: TraceIdCacheOptions;
  metricStreams: StartTimeOptions;
  hosts: HostMetadataOptions;
  semconv: SemconvOptIn;
  /** write the tracers' sampling bookkeeping tags too (finish.ts INTERNAL_TAGS) */
  keepInternalTags: boolean;
  kubernetesMetrics: KubernetesMetricOptions;
}

export function createTranslatorCaches(options: Partial<TranslatorCacheOptions> = {}): TranslatorCaches {
  const hosts = new HostMetadataTable(options.hosts);
  const pods = new PodIdentities();
  return {
    traceIds: new TraceIdCache(options.traceIds),
    metricStreams: new StreamStartTimes(options.metricStreams ?? DEFAULT_START_TIME_OPTIONS),
    logPromotions: new PromotionMemos(),
    groupings: new WeakMap(),
    internedOrigins: newInternedOrigins(),
    spanAttributeNames: new AttributeNames(options.semconv, options.keepInternalTags),
    hosts,
    pods,
    enrichment: enrichers(hosts, pods),
    serviceIdentities: new ServiceIdentities(),
    querySummaries: new QuerySummaries(),
    kubernetesMetrics: options.kubernetesMetrics ?? DEFAULT_KUBERNETES_METRIC_OPTIONS,
    kubernetesNodes: new NodeHosts(),
    logPipelines: { current: NO_PIPELINES },
  };
}
