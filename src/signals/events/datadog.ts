/**
 * Datadog events: what the agent batches into `/intake/` (`events: {<source type>: [...]}`, keys
 * msg_title/msg_text/timestamp…) and what API clients post to `/api/v1/events` (title/text/
 * date_happened…). Both parse into this one model.
 */
export interface DatadogEvent {
  title: string;
  text: string;
  /** seconds since the epoch, when the sender gave one */
  timestamp: number | undefined;
  priority: string | undefined;
  host: string | undefined;
  tags: string[];
  alertType: string | undefined;
  aggregationKey: string | undefined;
  sourceTypeName: string | undefined;
  eventType: string | undefined;
  deviceName: string | undefined;
}
