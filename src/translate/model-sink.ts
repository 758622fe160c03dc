/**
 * A RecordSink that keeps the model: groups in first-seen order, records in arrival order. The
 * routes stream records into the encoder instead; this is for golden files, tests and the small
 * payloads of the events route.
 */
import type { InstrumentationScope, RecordSink, Resource } from '../otlp/model';

export interface ModelGroup<R> {
  resource: Resource;
  scope: InstrumentationScope;
  records: R[];
}

export class ModelSink<R> implements RecordSink<R, R[]> {
  readonly groups: ModelGroup<R>[] = [];

  group(resource: Resource, scope: InstrumentationScope): R[] {
    const records: R[] = [];
    this.groups.push({ resource, scope, records });
    return records;
  }

  add(records: R[], record: R): void {
    records.push(record);
  }
}
