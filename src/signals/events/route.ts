/**
 * POST /api/v1/events: events from API clients (createEvent) become log records. The reply is
 * the API's: 202 with the event echoed back.
 */
import { apiEvent } from './parse';
import { parseJsonBody } from '../../core/wire/json';
import { translateEvents } from './translate';
import { exportThen, json, type IntakeRoute } from '../route';

export const eventsRoute: IntakeRoute = {
  name: 'events',
  methods: ['POST'],
  paths: ['/api/v1/events'],
  sender: 'agent',
  readsBody: true,
  accept(req, ctx) {
    const event = apiEvent(parseJsonBody(req.body, 'events'));
    // made before the export, so that the reply closure holds neither the request nor the event
    const accepted = json(202, { status: 'ok', event: { title: event.title, text: event.text, date_happened: event.timestamp ?? Math.floor(Number(req.receivedAtNs / 1_000_000_000n)), tags: event.tags } });
    return exportThen(ctx, { signal: 'logs', resources: translateEvents([event], req.receivedAtNs, ctx.caches) }, () => accepted);
  },
};
