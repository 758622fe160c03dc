/**
 * The known OTLP input fed to the collector's datadog exporter (capture.ts), as OTLP/HTTP JSON.
 * Ids are fixed, times are the capture's (so a replay lands in a recent time range); the files
 * written beside the captured bytes are exactly what was posted.
 */

type Json = Record<string, unknown>;

/** A 128-bit trace id whose upper half is non-zero: the half Datadog's 64-bit ids lose. */
export const TRACE_ID = '5b8efff798038103d269b633813fc60c';
export const SERVER_SPAN_ID = 'eee19b7ec3c1b174';
export const DB_SPAN_ID = 'eee19b7ec3c1b175';
export const ERROR_SPAN_ID = 'eee19b7ec3c1b176';

const value = (v: string | number | boolean): Json => {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
};

const attributes = (o: Record<string, string | number | boolean>): Json[] => Object.entries(o).map(([key, v]) => ({ key, value: value(v) }));

const RESOURCE = {
  attributes: attributes({
    'service.name': 'otel-shop',
    'service.version': '1.0.0',
    'deployment.environment': 'capture',
    'host.name': 'capture-host',
    'telemetry.sdk.name': 'opentelemetry',
    'telemetry.sdk.language': 'go',
    'telemetry.sdk.version': '1.38.0',
  }),
};

const SCOPE = { name: 'capture.shop', version: '0.3.1' };

/** Span kinds and status codes as OTLP numbers: SERVER 2, CLIENT 3, INTERNAL 1; Ok 1, Error 2. */
export function tracesInput(startNs: bigint): Json {
  const at = (offsetMs: number): string => String(startNs + BigInt(offsetMs) * 1_000_000n + 123_456n);
  return {
    resourceSpans: [
      {
        resource: RESOURCE,
        scopeSpans: [
          {
            scope: SCOPE,
            spans: [
              {
                traceId: TRACE_ID,
                spanId: SERVER_SPAN_ID,
                name: 'GET /orders/{id}',
                kind: 2,
                startTimeUnixNano: at(0),
                endTimeUnixNano: at(40),
                attributes: attributes({
                  'http.request.method': 'GET',
                  'http.route': '/orders/{id}',
                  'url.full': 'http://capture-host:8080/orders/42',
                  'http.response.status_code': 200,
                  'server.address': 'capture-host',
                }),
                status: { code: 1 },
              },
              {
                traceId: TRACE_ID,
                spanId: DB_SPAN_ID,
                parentSpanId: SERVER_SPAN_ID,
                name: 'SELECT shop.orders',
                kind: 3,
                startTimeUnixNano: at(5),
                endTimeUnixNano: at(15),
                attributes: attributes({
                  'db.system.name': 'postgresql',
                  'db.namespace': 'shop',
                  'db.query.text': 'SELECT id, item, quantity FROM orders WHERE id = $1',
                  'db.operation.name': 'SELECT',
                }),
                status: {},
              },
              {
                traceId: TRACE_ID,
                spanId: ERROR_SPAN_ID,
                parentSpanId: SERVER_SPAN_ID,
                name: 'charge payment',
                kind: 1,
                startTimeUnixNano: at(20),
                endTimeUnixNano: at(35),
                attributes: attributes({ 'payment.provider': 'acme' }),
                events: [
                  {
                    timeUnixNano: at(34),
                    name: 'exception',
                    attributes: attributes({
                      'exception.type': 'PaymentError',
                      'exception.message': 'card declined',
                      'exception.stacktrace': 'PaymentError: card declined\n\tat charge (payment.go:42)\n\tat handle (orders.go:17)',
                    }),
                  },
                ],
                status: { code: 2, message: 'card declined' },
              },
            ],
          },
        ],
      },
    ],
  };
}

/** Severity numbers: WARN 13, ERROR 17. Times carry nanoseconds a millisecond clock would lose. */
export function logsInput(startNs: bigint): Json {
  const at = (offsetMs: number): string => String(startNs + BigInt(offsetMs) * 1_000_000n + 654_321n);
  const record = (offsetMs: number, severityNumber: number, severityText: string, body: string, spanId: string, extra: Record<string, string | number>): Json => ({
    timeUnixNano: at(offsetMs),
    observedTimeUnixNano: at(offsetMs + 1),
    severityNumber,
    severityText,
    body: { stringValue: body },
    attributes: attributes(extra),
    traceId: TRACE_ID,
    spanId,
    flags: 1,
  });
  return {
    resourceLogs: [
      {
        resource: RESOURCE,
        scopeLogs: [
          {
            scope: SCOPE,
            logRecords: [record(10, 13, 'WARN', 'order 42 is large', SERVER_SPAN_ID, { 'order.id': 42 }), record(34, 17, 'ERROR', 'payment failed: card declined', ERROR_SPAN_ID, { 'payment.provider': 'acme' })],
          },
        ],
      },
    ],
  };
}

export function metricsInput(startNs: bigint): Json {
  return {
    resourceMetrics: [
      {
        resource: RESOURCE,
        scopeMetrics: [
          {
            scope: SCOPE,
            metrics: [
              {
                name: 'shop.queue.depth',
                description: 'Orders waiting to be packed',
                unit: '{order}',
                gauge: { dataPoints: [{ timeUnixNano: String(startNs), asInt: '17', attributes: attributes({ 'queue.name': 'packing' }) }] },
              },
            ],
          },
        ],
      },
    ],
  };
}
