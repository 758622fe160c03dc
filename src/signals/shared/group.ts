/**
 * The one grouper, shared by logs, events, traces and metrics: resource → scope → records.
 * Records with equal resources (by resourceKey, so attribute order does not split them) share one
 * group of the sink, opened under SCOPE (or the record's own scope) in first-seen order, with what the
 * process's tables add to the resource (ResourceEnricher): once per group, not per record.
 */
import type { InstrumentationScope, KeyValue, LogRecord, Resource, ResourceLogs } from '../../core/otlp/model';
import type { ModelSink } from './model-sink';
import { resourceKey, toKeyValues, type AttributeMap } from './resource-promotion';
import { SCOPE } from './scope';

/**
 * What the process knows of a resource's source beyond what its records say: its host's metadata
 * (host-metadata.ts), its pod's identity (pod-identities.ts). Returns `resource` itself when it
 * adds nothing; never changes `resource`.
 */
export interface ResourceEnricher {
  enrich(resource: KeyValue[]): KeyValue[];
}

/** `first`, then `then` on what `first` made: once per group opened, so two calls rather than a loop over a list. */
export const enrichers = (first: ResourceEnricher, then: ResourceEnricher): ResourceEnricher => ({ enrich: (resource) => then.enrich(first.enrich(resource)) });

interface Grouping {
  attributes: KeyValue[];
  key: string;
}

/**
 * A resource map's KeyValues and resourceKey, once per map for the life of the map: the logs
 * resource step hands out the same maps request after request (a container's promotion is kept
 * process-wide), and nothing writes to a map once it is a record's resource. Weak, so a map
 * nobody else holds takes its entry with it; one per process (caches.ts).
 */
export type ResourceGroupings = WeakMap<AttributeMap, Grouping>;

function groupingOf(groupings: ResourceGroupings, resource: AttributeMap): Grouping {
  let grouping = groupings.get(resource);
  if (grouping === undefined) {
    const attributes = toKeyValues(resource);
    grouping = { attributes, key: resourceKey(attributes) };
    groupings.set(resource, grouping);
  }
  return grouping;
}

/**
 * One translation's groups. A resource given as a map (logs, events, spans) is found first by the
 * map's identity, since records of one container or process share one map; one given as
 * KeyValues with its key (metrics, whose origins carry both) by the key.
 */
export class ResourceGrouper<G> {
  private readonly byKey = new Map<string, G>();
  private readonly byMap = new Map<AttributeMap, G>();

  constructor(
    private readonly open: (resource: Resource, scope: InstrumentationScope) => G,
    private readonly enricher: ResourceEnricher,
  ) {}

  /**
   * The group of `resource`, whose grouping the process's `groupings` may already know. A record
   * with a scope of its own (a span that began in OpenTelemetry) is grouped by resource and scope.
   */
  ofMap(resource: AttributeMap, groupings: ResourceGroupings, scope: InstrumentationScope = SCOPE): G {
    if (scope !== SCOPE) {
      const { attributes, key } = groupingOf(groupings, resource);
      return this.ofKey(attributes, `${key}\u0000${scope.name}\u0000${scope.version ?? ''}`, scope);
    }
    let group = this.byMap.get(resource);
    if (group === undefined) {
      const { attributes, key } = groupingOf(groupings, resource);
      group = this.ofKey(attributes, key);
      this.byMap.set(resource, group);
    }
    return group;
  }

  ofKey(attributes: KeyValue[], key: string, scope: InstrumentationScope = SCOPE): G {
    let group = this.byKey.get(key);
    if (group === undefined) {
      group = this.open({ attributes: this.enricher.enrich(attributes) }, scope);
      this.byKey.set(key, group);
    }
    return group;
  }
}

/** The ResourceLogs of what a ModelSink kept. */
export const resourceLogsOf = (sink: ModelSink<LogRecord>): ResourceLogs[] => sink.groups.map((g) => ({ resource: g.resource, scopeLogs: [{ scope: g.scope, logRecords: g.records }] }));
