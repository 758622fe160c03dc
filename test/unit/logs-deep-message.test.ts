/**
 * A log line whose message is JSON nested absurdly deep (issue 21, item 6): the message stays its
 * string body, the other lines of its batch go through, and nothing overflows the stack. Checked
 * through the real logs route in process (fake exporter), the records read back from the encoded
 * OTLP request.
 */
import { loadConfig, parseArgs } from '../../src/config';
import type { Exporter } from '../../src/core/export/exporter';
import { createLogger } from '../../src/core/observability/log';
import type { EncodedExport } from '../../src/core/otlp/encode';
import { MAX_JSON_DEPTH } from '../../src/core/wire/json';
import { startSidecar, type Sidecar } from '../../src/cli/sidecar';
import { lookupType } from '../helpers/otlp-proto';

const LOGS_REQUEST = lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest');

interface ExportedRecord {
  body?: { stringValue?: string };
  attributes?: { key: string }[];
}

class FakeExporter implements Exporter {
  batches: EncodedExport[][] = [];
  async export(requests: EncodedExport[]) {
    this.batches.push(requests);
    return { accepted: requests.reduce((n, r) => n + r.records, 0), rejected: 0 };
  }
  async close() {}
  records(): ExportedRecord[] {
    return this.batches.flat().flatMap((r) => {
      const decoded = LOGS_REQUEST.toObject(LOGS_REQUEST.decode(r.body)) as { resourceLogs?: { scopeLogs?: { logRecords?: ExportedRecord[] }[] }[] };
      return (decoded.resourceLogs ?? []).flatMap((rl) => (rl.scopeLogs ?? []).flatMap((sl) => sl.logRecords ?? []));
    });
  }
}

let sidecar: Sidecar;
let base: string;
const exporter = new FakeExporter();

beforeAll(async () => {
  const config = loadConfig(parseArgs(['--enable', '--listen', '127.0.0.1:0', '--admin-listen', '127.0.0.1:0']), {});
  sidecar = await startSidecar(
    config,
    createLogger('error', {}, () => undefined),
    { exporter },
  );
  base = `http://127.0.0.1:${sidecar.intakeAddress!.port}`;
});
afterAll(() => sidecar.stop());
beforeEach(() => (exporter.batches = []));

/** `{"a":{"a":…{"a":1}…}}` with `depth` objects. */
const nestedObjects = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

/** 99 ordinary lines with `message` as the 51st. */
const batchAround = (message: string): object[] => Array.from({ length: 100 }, (_, i) => ({ message: i === 50 ? message : `line ${i}`, service: 'web' }));

const postLogs = (entries: object[] | string) => fetch(`${base}/api/v2/logs`, { method: 'POST', body: typeof entries === 'string' ? entries : JSON.stringify(entries), headers: { 'Content-Type': 'application/json' } });

describe('a deeply nested JSON message', () => {
  it.each([6_000, 100_000])('%i levels: the batch is accepted, 100 records, the deep one keeps its message as sent', async (depth) => {
    const deep = ` ${nestedObjects(depth)}`;
    const res = await postLogs(batchAround(deep));
    expect(res.status).toBe(202);
    const records = exporter.records();
    expect(records).toHaveLength(100);
    expect(records[50]!.body?.stringValue).toBe(deep);
    expect(records[49]!.body?.stringValue).toBe('line 49');
  });

  it('is unpacked up to the depth a body may have, and kept as a string one level past it', async () => {
    const atLimit = nestedObjects(MAX_JSON_DEPTH);
    const pastLimit = nestedObjects(MAX_JSON_DEPTH + 1);
    expect((await postLogs([{ message: atLimit }, { message: pastLimit }])).status).toBe(202);
    const [unpacked, kept] = exporter.records();
    expect(unpacked!.attributes?.map((a) => a.key)).toEqual([Array(MAX_JSON_DEPTH).fill('a').join('.')]);
    expect(kept!.body?.stringValue).toBe(pastLimit);
    expect(kept!.attributes ?? []).toEqual([]);
  });

  it('in the envelope itself is a clear 400, not a stack overflow', async () => {
    // written as text: JSON.stringify itself recurses once per level
    const res = await postLogs(`[{"message":"x","attrs":${nestedObjects(100_000)}}]`);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/nested deeper than 64 levels/);
  });
});
