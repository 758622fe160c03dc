import { apiEvent, intakeEvents } from '../../src/signals/events/parse';
import { createTranslatorCaches } from '../../src/signals/caches';
import { translateEvents } from '../../src/signals/events/translate';
import { resourceLogsJson } from '../helpers/otlp-json';

const RECEIVED = 1_795_298_400_000_000_000n;

describe('events → log records', () => {
  it('translates an agent /intake/ batch: body, severity, time, host, tags and service', () => {
    const events = intakeEvents({
      apiKey: '',
      internalHostname: 'web-1',
      events: {
        nagios: [{ msg_title: 'Disk full', msg_text: '/var at 99%', timestamp: 1700000000, alert_type: 'error', priority: 'normal', host: 'web-1', tags: ['env:prod', 'team:ops'], aggregation_key: 'disk' }],
        api: [{ msg_title: 'Deploy', timestamp: 1700000100, alert_type: 'success', tags: ['service:shop'] }],
      },
    });
    expect(resourceLogsJson(translateEvents(events, RECEIVED, createTranslatorCaches()))).toEqual({
      resourceLogs: [
        {
          resource: {
            attributes: [
              { key: 'deployment.environment.name', value: { stringValue: 'prod' } },
              { key: 'host.name', value: { stringValue: 'web-1' } },
              // no service: tag: the source type names the service
              { key: 'service.name', value: { stringValue: 'nagios' } },
            ],
          },
          scopeLogs: [
            {
              scope: expect.objectContaining({ name: 'dd-otlp-bridge' }),
              logRecords: [
                {
                  timeUnixNano: '1700000000000000000',
                  observedTimeUnixNano: RECEIVED.toString(),
                  severityNumber: 17,
                  severityText: 'error',
                  body: { stringValue: 'Disk full\n/var at 99%' },
                  attributes: [
                    { key: 'team', value: { stringValue: 'ops' } },
                    { key: 'datadog.event.title', value: { stringValue: 'Disk full' } },
                    { key: 'datadog.event.priority', value: { stringValue: 'normal' } },
                    { key: 'datadog.event.alert_type', value: { stringValue: 'error' } },
                    { key: 'datadog.event.aggregation_key', value: { stringValue: 'disk' } },
                    { key: 'datadog.event.source_type_name', value: { stringValue: 'nagios' } },
                  ],
                },
              ],
            },
          ],
        },
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'shop' } }] },
          scopeLogs: [
            {
              scope: expect.objectContaining({ name: 'dd-otlp-bridge' }),
              logRecords: [
                {
                  timeUnixNano: '1700000100000000000',
                  observedTimeUnixNano: RECEIVED.toString(),
                  severityNumber: 9,
                  severityText: 'info',
                  body: { stringValue: 'Deploy' },
                  attributes: [
                    { key: 'datadog.event.title', value: { stringValue: 'Deploy' } },
                    { key: 'datadog.event.alert_type', value: { stringValue: 'success' } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
  });

  it('finds no events in host metadata', () => {
    expect(intakeEvents({ internalHostname: 'h', uuid: 'u', os: 'linux', gohai: '{}' })).toEqual([]);
  });

  it('names the failing field', () => {
    expect(() => intakeEvents({ events: { nagios: [{ msg_title: 5 }] } })).toThrow(/events\.nagios\[0\]\.msg_title: expected a string/);
    expect(() => apiEvent({ title: 't', tags: 'env:prod' })).toThrow(/event\.tags: expected an array/);
  });

  it('API events: date_happened, warning severity; no time → receive time', () => {
    const [withTime] = translateEvents([apiEvent({ title: 'T', text: 'x', date_happened: 1700000000, alert_type: 'warning' })], RECEIVED, createTranslatorCaches());
    expect(withTime!.scopeLogs[0]!.logRecords[0]).toMatchObject({ timeUnixNano: 1_700_000_000_000_000_000n, severityNumber: 13, severityText: 'warn', eventName: 'datadog.event' });
    const [noTime] = translateEvents([apiEvent({ title: 'T' })], RECEIVED, createTranslatorCaches());
    expect(noTime!.scopeLogs[0]!.logRecords[0]!.timeUnixNano).toBe(RECEIVED);
  });

  it('service: the service: tag, else the source type; a host alone names none: unnamed-service, as a span without one', () => {
    const serviceOf = (event: Record<string, never> | Record<string, unknown>): unknown => {
      const [resource] = translateEvents([apiEvent(event as never)], RECEIVED, createTranslatorCaches());
      return resource!.resource.attributes.find((kv) => kv.key === 'service.name')?.value;
    };
    expect(serviceOf({ title: 'T', tags: ['service:billing'], source_type_name: 'jenkins' })).toEqual({ string: 'billing' });
    expect(serviceOf({ title: 'T', source_type_name: 'jenkins', host: 'ci-1' })).toEqual({ string: 'jenkins' });
    expect(serviceOf({ title: 'T', host: 'ci-1' })).toEqual({ string: 'unnamed-service' });
  });
});
