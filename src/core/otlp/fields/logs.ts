/** The LogRecord writer (proto/opentelemetry/proto/logs/v1/logs.proto). */
import type { LogRecord } from '../model';
import type { ProtoWriter } from '../../wire/proto-writer';
import { writeAnyValue, writeAttributes, writeId, writeMessage } from './common';

export const LOG_RECORD = {
  timeUnixNano: 1,
  severityNumber: 2,
  severityText: 3,
  body: 5,
  attributes: 6,
  flags: 8,
  traceId: 9,
  spanId: 10,
  observedTimeUnixNano: 11,
  eventName: 12,
} as const;

export function writeLogRecord(w: ProtoWriter, log: LogRecord): void {
  if (log.timeUnixNano) w.fixed64Field(LOG_RECORD.timeUnixNano, log.timeUnixNano);
  if (log.severityNumber) w.int32Field(LOG_RECORD.severityNumber, log.severityNumber);
  if (log.severityText) w.stringField(LOG_RECORD.severityText, log.severityText);
  if (log.body !== undefined) writeMessage(w, LOG_RECORD.body, log.body, writeAnyValue);
  writeAttributes(w, LOG_RECORD.attributes, log.attributes);
  if (log.flags) w.fixed32Field(LOG_RECORD.flags, log.flags);
  writeId(w, LOG_RECORD.traceId, log.traceId);
  writeId(w, LOG_RECORD.spanId, log.spanId);
  if (log.observedTimeUnixNano) w.fixed64Field(LOG_RECORD.observedTimeUnixNano, log.observedTimeUnixNano);
  if (log.eventName) w.stringField(LOG_RECORD.eventName, log.eventName);
}
