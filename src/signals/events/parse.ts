/**
 * Event parsing for both senders: the agent's `/intake/` batch and the API's `/api/v1/events`.
 * Field errors name their path (`intake: events.nagios[2].msg_title: expected a string…`).
 */
import type { DatadogEvent } from './datadog';
import type { JsonValue } from '../../core/wire/json';
import { arrayAt, objectAt, optionalNumber, optionalString, stringList, type JsonObject } from '../metrics/parse-json';

const orUndefined = (s: string): string | undefined => (s === '' ? undefined : s);

/** The fields both forms share; `title`/`text`/time keys differ and are passed in. */
function eventFrom(what: string, o: JsonObject, path: string, title: string, text: string, timestamp: number | undefined): DatadogEvent {
  const field = (key: string): string | undefined => orUndefined(optionalString(what, o[key], `${path}.${key}`));
  return {
    title,
    text,
    timestamp,
    priority: field('priority'),
    host: field('host'),
    tags: stringList(what, o.tags, `${path}.tags`),
    alertType: field('alert_type'),
    aggregationKey: field('aggregation_key'),
    sourceTypeName: field('source_type_name'),
    eventType: field('event_type'),
    deviceName: field('device_name'),
  };
}

/** `/intake/` events: `{"events": {"<source type>": [{msg_title, msg_text, timestamp, …}]}}`; none when absent. */
export function intakeEvents(payload: JsonValue): DatadogEvent[] {
  const what = 'intake';
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload) || payload.events === undefined || payload.events === null) return [];
  const bySource = objectAt(what, payload.events, 'events');
  return Object.entries(bySource).flatMap(([source, list]) =>
    arrayAt(what, list, `events.${source}`).map((value, i) => {
      const path = `events.${source}[${i}]`;
      const o = objectAt(what, value, path);
      const event = eventFrom(what, o, path, optionalString(what, o.msg_title, `${path}.msg_title`), optionalString(what, o.msg_text, `${path}.msg_text`), optionalNumber(what, o.timestamp, `${path}.timestamp`));
      return { ...event, sourceTypeName: event.sourceTypeName ?? (source === 'api' ? undefined : source) };
    }),
  );
}

/** `/api/v1/events`: one event object (title and text required by the API). */
export function apiEvent(payload: JsonValue): DatadogEvent {
  const what = 'events';
  const o = objectAt(what, payload, 'event');
  return eventFrom(what, o, 'event', optionalString(what, o.title, 'event.title'), optionalString(what, o.text, 'event.text'), optionalNumber(what, o.date_happened, 'event.date_happened'));
}
