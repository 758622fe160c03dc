/** What every metric translator step receives and yields. */
import type { DropCounts, Series } from './datadog';
import type { KeyValue, Metric } from '../../core/otlp/model';
import type { MetricOrigin, OriginMemo, OriginsByInternedTags } from './resource';
import type { StreamStartTimes } from './start-times';

export interface MetricContext {
  streams: StreamStartTimes;
  /** when a point without a timestamp (a service check) is taken to have happened */
  receivedAtNs: bigint;
  /** request-scoped tally of what could not be translated */
  dropped: DropCounts;
  /** request-scoped: origins already built, by tags and resources (see memoizedOrigin) */
  origins: OriginMemo;
  /** process-wide: origins of the tag lists the direct series reader interned */
  internedOrigins: OriginsByInternedTags;
  /** request-scoped: the Kubernetes mapping (kubernetes/mapping.ts); undefined when it neither adds nor leaves out anything */
  kubernetes?: { read(series: Series, origin: MetricOrigin): boolean };
}

/** One input series as one OTLP metric, with the resource it belongs to (grouped later). */
export interface MetricItem {
  resource: KeyValue[];
  /** resourceKey(resource), computed once */
  resourceKey: string;
  metric: Metric;
}
