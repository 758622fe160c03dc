/** Log records sharing a resource share one ResourceLogs, in first-seen order (logs and events). */
import type { LogRecord, ResourceLogs } from '../otlp/model';
import { resourceKey, toKeyValues, type AttributeMap } from './resource-promotion';
import { SCOPE } from './scope';

/**
 * Groups by resource: equal resources (by resourceKey, so attribute order does not split them)
 * share one ResourceLogs. When records share one resource map (the logs resource step hands
 * every record of one container the same map), a map seen before finds its group by identity,
 * and only a new map pays for its KeyValues and its resourceKey.
 */
export class LogRecordGrouper {
  private readonly byKey = new Map<string, ResourceLogs>();
  private readonly byMap = new Map<AttributeMap, LogRecord[]>();

  add(resource: AttributeMap, record: LogRecord): void {
    let records = this.byMap.get(resource);
    if (records === undefined) {
      const attributes = toKeyValues(resource);
      const key = resourceKey(attributes);
      let group = this.byKey.get(key);
      if (!group) {
        group = { resource: { attributes }, scopeLogs: [{ scope: SCOPE, logRecords: [] }] };
        this.byKey.set(key, group);
      }
      records = group.scopeLogs[0]!.logRecords;
      this.byMap.set(resource, records);
    }
    records.push(record);
  }

  groups(): ResourceLogs[] {
    return [...this.byKey.values()];
  }
}
