/** Log records sharing a resource share one group of a sink, in first-seen order (logs and events). */
import type { KeyValue, LogRecord, RecordSink, ResourceLogs } from '../otlp/model';
import type { ModelSink } from './model-sink';
import { resourceKey, toKeyValues, type AttributeMap } from './resource-promotion';
import { SCOPE } from './scope';

interface Grouping {
  attributes: KeyValue[];
  key: string;
}

/**
 * A resource map's KeyValues and resourceKey, once per map for the life of the map: the logs
 * resource step hands out the same maps request after request (a container's promotion is kept
 * process-wide), and nothing writes to a map once it is a record's resource.
 */
const groupings = new WeakMap<AttributeMap, Grouping>();

function groupingOf(resource: AttributeMap): Grouping {
  let grouping = groupings.get(resource);
  if (grouping === undefined) {
    const attributes = toKeyValues(resource);
    grouping = { attributes, key: resourceKey(attributes) };
    groupings.set(resource, grouping);
  }
  return grouping;
}

/**
 * Groups by resource: equal resources (by resourceKey, so attribute order does not split them)
 * share one group of `sink`. When records share one resource map (the logs resource step hands
 * every record of one container the same map), a map seen before finds its group by identity.
 */
export class LogRecordGrouper<G> {
  private readonly byKey = new Map<string, G>();
  private readonly byMap = new Map<AttributeMap, G>();

  constructor(private readonly sink: RecordSink<LogRecord, G>) {}

  add(resource: AttributeMap, record: LogRecord): void {
    let group = this.byMap.get(resource);
    if (group === undefined) {
      const { attributes, key } = groupingOf(resource);
      group = this.byKey.get(key);
      if (group === undefined) {
        group = this.sink.group({ attributes }, SCOPE);
        this.byKey.set(key, group);
      }
      this.byMap.set(resource, group);
    }
    this.sink.add(group, record);
  }
}

/** The ResourceLogs of what a ModelSink kept. */
export const resourceLogsOf = (sink: ModelSink<LogRecord>): ResourceLogs[] => sink.groups.map((g) => ({ resource: g.resource, scopeLogs: [{ scope: g.scope, logRecords: g.records }] }));
