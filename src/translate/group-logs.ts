/** Log records sharing a resource share one ResourceLogs, in first-seen order (logs and events). */
import type { KeyValue, LogRecord, ResourceLogs } from '../otlp/model';
import { resourceKey, toKeyValues, type AttributeMap } from './resource-promotion';
import { SCOPE } from './scope';

export function groupLogRecords(entries: Iterable<{ resource: KeyValue[]; record: LogRecord }>): ResourceLogs[] {
  const groups = new Map<string, ResourceLogs>();
  for (const { resource, record } of entries) {
    const key = resourceKey(resource);
    let group = groups.get(key);
    if (!group) {
      group = { resource: { attributes: resource }, scopeLogs: [{ scope: SCOPE, logRecords: [] }] };
      groups.set(key, group);
    }
    group.scopeLogs[0]!.logRecords.push(record);
  }
  return [...groups.values()];
}

/**
 * groupLogRecords for records whose resource maps are shared (the logs resource step hands every
 * record of one container the same map): a map seen before finds its group by identity, and
 * only a new map pays for its KeyValues and its resourceKey. Groups and their attributes are what
 * groupLogRecords would make of `toKeyValues` of each map.
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
