/**
 * Datadog events → OTLP log records (OTLP has no event signal of its own; a log record with an
 * event name is how OpenTelemetry carries events). Body = title, then the text on the next line;
 * severity from alert_type; the event's fields as `datadog.event.*` attributes; host and tags
 * through the shared resource promotion, so an event lands next to its host's logs. The service is
 * the event's `service:` tag, else its source type (`nagios`, `docker`, the integration that sent
 * it), which is what Datadog's event explorer shows as the event's source; a host alone names no
 * service (it is already `host.name`), and an event with neither is filed under UNNAMED_SERVICE,
 * as a span without a service is, rather than under an empty ServiceName.
 */
import type { DatadogEvent } from './datadog';
import type { LogRecord, ResourceLogs } from '../../core/otlp/model';
import { promoteTag, promoteTags, toKeyValues, type Promoted } from '../shared/resource-promotion';
import { ResourceGrouper, resourceLogsOf } from '../shared/group';
import type { TranslatorCaches } from '../caches';
import { ModelSink } from '../shared/model-sink';
import { UNNAMED_SERVICE } from '../shared/known-keys';
import { epochToNs } from '../logs/timestamps';

const SERVICE_NAME = 'service.name';

const SEVERITY: Readonly<Record<string, [number, string]>> = {
  error: [17, 'error'],
  warning: [13, 'warn'],
  success: [9, 'info'],
  info: [9, 'info'],
};

const EVENT_FIELDS: readonly [keyof DatadogEvent, string][] = [
  ['title', 'datadog.event.title'],
  ['priority', 'datadog.event.priority'],
  ['alertType', 'datadog.event.alert_type'],
  ['aggregationKey', 'datadog.event.aggregation_key'],
  ['sourceTypeName', 'datadog.event.source_type_name'],
  ['eventType', 'datadog.event.type'],
  ['deviceName', 'device.name'],
];

function eventRecord(event: DatadogEvent, receivedAtNs: bigint, promoted: Promoted): LogRecord {
  for (const [field, key] of EVENT_FIELDS) {
    const value = event[field];
    if (typeof value === 'string' && value !== '') promoted.attributes.set(key, { string: value });
  }
  const [severityNumber, severityText] = SEVERITY[event.alertType ?? 'info'] ?? [9, 'info'];
  return {
    timeUnixNano: (event.timestamp === undefined ? undefined : epochToNs(event.timestamp)) ?? receivedAtNs,
    observedTimeUnixNano: receivedAtNs,
    severityNumber,
    severityText,
    body: { string: event.text ? `${event.title}\n${event.text}` : event.title },
    attributes: toKeyValues(promoted.attributes),
    eventName: 'datadog.event',
  };
}

export function translateEvents(events: readonly DatadogEvent[], receivedAtNs: bigint, caches: Pick<TranslatorCaches, 'groupings' | 'enrichment'>): ResourceLogs[] {
  const sink = new ModelSink<LogRecord>();
  const grouper = new ResourceGrouper((resource, scope) => sink.group(resource, scope), caches.enrichment);
  for (const event of events) {
    const promoted: Promoted = { resource: new Map(), attributes: new Map() };
    promoteTags(event.tags, promoted);
    if (event.host) promoteTag('host', event.host, promoted);
    if (!promoted.resource.has(SERVICE_NAME)) promoteTag('service', event.sourceTypeName || UNNAMED_SERVICE, promoted);
    sink.add(grouper.ofMap(promoted.resource, caches.groupings), eventRecord(event, receivedAtNs, promoted));
  }
  return resourceLogsOf(sink);
}
