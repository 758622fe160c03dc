/** Log records sharing a resource share one ResourceLogs, in first-seen order (logs and events). */
import type { KeyValue, LogRecord, ResourceLogs } from '../otlp/model';
import { resourceKey } from './resource-promotion';
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
