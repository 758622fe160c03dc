/**
 * CoalescingExporter against a scripted inner exporter (unit level; test/e2e/foundation.test.ts
 * shows concurrent requests sharing exports with the real collector).
 */
import { CoalescingExporter, packRequests } from '../../src/core/export/coalescing-exporter';
import type { ExportOutcome, Exporter } from '../../src/core/export/exporter';
import { GrpcStatus } from '../../src/core/export/grpc-client';
import { BridgeMetrics } from '../../src/core/observability/metrics';
import { encodeExportRequests, type EncodedExport } from '../../src/core/otlp/encode';
import type { ResourceLogs, SignalBatch } from '../../src/core/otlp/model';
import { ExportRefusedError } from '../../src/core/errors';
import { lookupType } from '../helpers/otlp-proto';

const resource = (service: string, bodies: string[]): ResourceLogs => ({
  resource: { attributes: [{ key: 'service.name', value: { string: service } }] },
  scopeLogs: [{ scope: { name: 's' }, logRecords: bodies.map((b) => ({ timeUnixNano: 1n, observedTimeUnixNano: 1n, severityNumber: 9, severityText: 'info', body: { string: b }, attributes: [] })) }],
});
const logsBatch = (service: string, ...bodies: string[]): SignalBatch => ({ signal: 'logs', resources: [resource(service, bodies)] });
const MAX_BYTES = 4 * 1024 * 1024;
/** A logs batch as a route hands it to the exporter: encoded. */
const logsRequests = (service: string, ...bodies: string[]): EncodedExport[] => encodeExportRequests(logsBatch(service, ...bodies), MAX_BYTES);

/** Log bodies as the collector would read them from the encoded requests. */
function bodiesOf(requests: readonly EncodedExport[]): string[] {
  const type = lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest');
  return requests.flatMap((r) => {
    const decoded = type.toObject(type.decode(r.body)) as { resourceLogs: { scopeLogs: { logRecords: { body: { stringValue: string } }[] }[] }[] };
    return decoded.resourceLogs.flatMap((rl) => rl.scopeLogs.flatMap((sl) => sl.logRecords.map((l) => l.body.stringValue)));
  });
}

/** Records every export; `refuse` decides, per export, the error it fails with. */
function scriptedInner(refuse: (requests: EncodedExport[]) => Error | undefined = () => undefined): Exporter & { calls: EncodedExport[][]; closed: boolean } {
  const inner = {
    calls: [] as EncodedExport[][],
    closed: false,
    async export(requests: EncodedExport[]): Promise<ExportOutcome> {
      inner.calls.push(requests);
      const err = refuse(requests);
      if (err) throw err;
      return { accepted: requests.reduce((n, r) => n + r.records, 0), rejected: 0 };
    },
    async close(): Promise<void> {
      inner.closed = true;
    },
  };
  return inner;
}

const SPAN = { traceId: new Uint8Array(16).fill(1), spanId: new Uint8Array(8).fill(2), name: 'op', kind: 2, startTimeUnixNano: 1n, endTimeUnixNano: 2n, attributes: [], events: [], links: [], status: { code: 0 } };
const settle = (p: Promise<ExportOutcome>): Promise<ExportOutcome | Error> => p.catch((e: Error) => e);

describe('CoalescingExporter', () => {
  it('sends batches of one signal handed over in the same turn as one export, in arrival order', async () => {
    const inner = scriptedInner();
    const metrics = new BridgeMetrics();
    const exporter = new CoalescingExporter(inner, MAX_BYTES, metrics);
    const outcomes = await Promise.all([exporter.export(logsRequests('a', 'a1', 'a2')), exporter.export(logsRequests('b', 'b1')), exporter.export(logsRequests('c', 'c1'))]);
    expect(inner.calls).toHaveLength(1);
    expect(inner.calls[0]).toHaveLength(1);
    expect(bodiesOf(inner.calls[0]!)).toEqual(['a1', 'a2', 'b1', 'c1']);
    expect(outcomes).toEqual([
      { accepted: 4, rejected: 0 },
      { accepted: 4, rejected: 0 },
      { accepted: 4, rejected: 0 },
    ]);
    expect(metrics.coalescedBatches.get({ signal: 'logs' })).toBe(3);
  });

  it('exports lone requests as they are, and those of later turns separately', async () => {
    const inner = scriptedInner();
    const metrics = new BridgeMetrics();
    const exporter = new CoalescingExporter(inner, MAX_BYTES, metrics);
    await exporter.export(logsRequests('a', 'a1'));
    await exporter.export(logsRequests('b', 'b1'));
    expect(inner.calls).toEqual([logsRequests('a', 'a1'), logsRequests('b', 'b1')]);
    expect(metrics.coalescedBatches.get({ signal: 'logs' })).toBe(0);
  });

  it('never mixes signals in one export', async () => {
    const inner = scriptedInner();
    const exporter = new CoalescingExporter(inner, MAX_BYTES, new BridgeMetrics());
    const spans: SignalBatch = { signal: 'traces', resources: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 's' }, spans: [SPAN] }] }] };
    await Promise.all([exporter.export(logsRequests('a', 'a1')), exporter.export(encodeExportRequests(spans, MAX_BYTES)), exporter.export(logsRequests('b', 'b1'))]);
    expect(inner.calls.map((c) => c[0]!.signal).sort()).toEqual(['logs', 'traces']);
    expect(bodiesOf(inner.calls.find((c) => c[0]!.signal === 'logs')!)).toEqual(['a1', 'b1']);
  });

  it('fails every caller with a retryable failure of the shared export, so each sender retries', async () => {
    const unavailable = new ExportRefusedError(GrpcStatus.UNAVAILABLE, 'UNAVAILABLE', 'collector unavailable', false);
    const inner = scriptedInner(() => unavailable);
    const exporter = new CoalescingExporter(inner, MAX_BYTES, new BridgeMetrics());
    const results = await Promise.all([settle(exporter.export(logsRequests('a', 'a1'))), settle(exporter.export(logsRequests('b', 'b1')))]);
    expect(results).toEqual([unavailable, unavailable]);
    expect(inner.calls).toHaveLength(1);
  });

  it('on a permanent refusal of the shared export, retries each batch alone so only the culprit is refused', async () => {
    const invalid = new ExportRefusedError(GrpcStatus.INVALID_ARGUMENT, 'INVALID_ARGUMENT', 'bad field', true);
    const inner = scriptedInner((requests) => (bodiesOf(requests).includes('bad') ? invalid : undefined));
    const exporter = new CoalescingExporter(inner, MAX_BYTES, new BridgeMetrics());
    const results = await Promise.all([settle(exporter.export(logsRequests('a', 'a1'))), settle(exporter.export(logsRequests('b', 'bad'))), settle(exporter.export(logsRequests('c', 'c1', 'c2')))]);
    expect(results).toEqual([{ accepted: 1, rejected: 0 }, invalid, { accepted: 2, rejected: 0 }]);
    expect(inner.calls.map(bodiesOf)).toEqual([['a1', 'bad', 'c1', 'c2'], ['a1'], ['bad'], ['c1', 'c2']]);
  });

  it('sends what is waiting before it closes the inner exporter', async () => {
    const inner = scriptedInner();
    const exporter = new CoalescingExporter(inner, MAX_BYTES, new BridgeMetrics());
    const pending = exporter.export(logsRequests('a', 'a1'));
    await exporter.close();
    expect(inner.calls).toHaveLength(1);
    expect(inner.closed).toBe(true);
    await expect(pending).resolves.toEqual({ accepted: 1, rejected: 0 });
  });

  it('packs requests in order into bodies no larger than the limit, never splitting one', () => {
    const requests = ['a', 'b', 'c', 'd'].flatMap((s) => logsRequests(s, `${s}1`));
    const size = requests[0]!.body.length;
    const packed = packRequests('logs', requests, size * 2 + 1);
    expect(packed.map((r) => r.body.length)).toEqual([size * 2, size * 2]);
    expect(packed.map((r) => r.records)).toEqual([2, 2]);
    expect(bodiesOf(packed)).toEqual(['a1', 'b1', 'c1', 'd1']);
    expect(packRequests('logs', requests, size - 1)).toEqual(requests);
  });

  it('re-points merged requests at their bytes in the merged body, so nothing is held twice', () => {
    // bodies over 4 KiB: smaller Buffers share Node's pool, where "same ArrayBuffer" proves nothing
    const long = (s: string): string => s.repeat(5000);
    const requests = ['a', 'b', 'c'].flatMap((s) => logsRequests(s, long(s), `${s}2`));
    const before = requests.map((r) => Buffer.from(r.body));
    const [merged] = packRequests('logs', requests, 1 << 20);
    const whole = merged!.body;
    expect(requests.map((r) => r.body)).toEqual(before);
    let at = whole.byteOffset;
    for (const r of requests) {
      expect(r.body.buffer).toBe(whole.buffer);
      expect(r.body.byteOffset).toBe(at);
      at += r.body.length;
    }
    // still a complete request each: the per-sender fallback sends them alone
    expect(bodiesOf([requests[1]!])).toEqual([long('b'), 'b2']);
  });
});
