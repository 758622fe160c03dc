/** Fuzzing of both event paths: parse, translate, encode (see test/helpers/fuzz.ts). */
import { encodeExportRequests } from '../../src/core/otlp/encode';
import { apiEvent, intakeEvents } from '../../src/signals/events/parse';
import { parseJsonBody } from '../../src/core/wire/json';
import { createTranslatorCaches } from '../../src/signals/caches';
import { translateEvents } from '../../src/signals/events/translate';
import { fuzzTarget } from '../helpers/fuzz';

const caches = createTranslatorCaches();
const encode = (events: Parameters<typeof translateEvents>[0]): void => {
  encodeExportRequests({ signal: 'logs', resources: translateEvents(events, 1_700_000_000_000_000_000n, caches) }, 64 * 1024);
};

fuzzTarget('events-intake', [Buffer.from(JSON.stringify({ apiKey: '', events: { nagios: [{ msg_title: 'a', msg_text: 'b', timestamp: 1700000000, alert_type: 'error', tags: ['env:x', 'bare'] }] } }))], (input) =>
  encode(intakeEvents(parseJsonBody(input, 'intake'))),
);
fuzzTarget('events-api', [Buffer.from(JSON.stringify({ title: 't', text: 'x', date_happened: 1700000000, tags: ['a:b'], host: 'h', alert_type: 'warning' }))], (input) => encode([apiEvent(parseJsonBody(input, 'events'))]));
