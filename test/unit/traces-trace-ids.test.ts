/**
 * 128-bit trace ids across what one payload cannot see: the look-ahead within a payload, the
 * shared cache across payloads (for every format that announces the high half), the logs path
 * reading the same cache, and the cache's bounds.
 */
import { decodeAgentPayload } from '../../src/signals/traces/parse/agent-payload';
import { parseLogsBody } from '../../src/signals/logs/parse';
import { parseMediaType } from '../../src/core/wire/media-type';
import { tracerPayloadFromHeaders } from '../../src/signals/traces/parse/tracer-headers';
import { parseV04Traces } from '../../src/signals/traces/parse/v04';
import { translateLogsToModel } from '../../src/signals/logs/chain';
import { translateTracesToModel } from '../../src/signals/traces/chain';
import { parseOtelHexId, TraceIdCache } from '../../src/signals/shared/trace-id';
import { createTranslatorCaches } from '../../src/signals/caches';
import { idxTracerPayload, traceIdBytes } from '../fixtures/traces/agent-payloads';
import { encodeAgentPayload } from '../fixtures/traces/datadog-proto';
import { encodeMsgpack, type Encodable } from '../fixtures/traces/msgpack-writer';
import { translationContext } from '../helpers/translation';

const LOW = 2133000431340558749n;
const FULL = 'f233b7e1421e8bde1d99f09757cf199d';
const RECEIVED = 1_700_000_000_000_000_000n;

const span = (spanId: number, parentId: number, meta: Record<string, string> = {}): Record<string, Encodable> => ({ service: 's', name: 'op', trace_id: LOW, span_id: spanId, parent_id: parentId, start: 1, duration: 1, meta });
const v04 = (...traces: Encodable[][]): ReturnType<typeof parseV04Traces> => parseV04Traces(encodeMsgpack(traces), parseMediaType('application/msgpack'), tracerPayloadFromHeaders({}), 'v0.4');
const traceIdsOf = (cache: TraceIdCache, tracer: ReturnType<typeof v04>): string[] =>
  translateTracesToModel({ tracerPayloads: [tracer] }, translationContext({ ...createTranslatorCaches(), traceIds: cache }, RECEIVED)).flatMap((r) => r.scopeSpans[0]!.spans.map((s) => Buffer.from(s.traceId).toString('hex')));

function logTraceId(cache: TraceIdCache, ddTraceId: string): string | undefined {
  const payload = parseLogsBody(Buffer.from(JSON.stringify([{ message: 'm', service: 's', dd: { trace_id: ddTraceId, span_id: '3' } }])), new URLSearchParams());
  const id = translateLogsToModel(payload, translationContext({ ...createTranslatorCaches(), traceIds: cache }, RECEIVED))[0]?.scopeLogs[0]?.logRecords[0]?.traceId;
  return id && Buffer.from(id).toString('hex');
}

describe('128-bit trace ids', () => {
  it('give every span of a payload the root high half, even spans listed before the root', () => {
    const cache = new TraceIdCache();
    expect(traceIdsOf(cache, v04([span(3, 2), span(2, 1), span(1, 0, { '_dd.p.tid': 'f233b7e1421e8bde' })]))).toEqual([FULL, FULL, FULL]);
  });

  it('reach children flushed in a later payload, and logs that carry only the decimal low half', () => {
    const cache = new TraceIdCache();
    traceIdsOf(cache, v04([span(1, 0, { '_dd.p.tid': 'f233b7e1421e8bde' })]));
    expect(traceIdsOf(cache, v04([span(4, 1)]))).toEqual([FULL]);
    expect(logTraceId(cache, LOW.toString())).toBe(FULL);
  });

  it('are learned from an idx chunk (full id in bytes) for later classic payloads', () => {
    const cache = new TraceIdCache();
    const idx = idxTracerPayload(() => ({ chunks: [{ traceID: traceIdBytes(FULL), spans: [{ spanID: '1' }] }] }));
    const agent = decodeAgentPayload(encodeAgentPayload({ idxTracerPayloads: [idx] }));
    expect(translateTracesToModel(agent, translationContext({ ...createTranslatorCaches(), traceIds: cache }, RECEIVED))[0]?.scopeSpans[0]?.spans.map((s) => Buffer.from(s.traceId).toString('hex'))).toEqual([FULL]);
    expect(traceIdsOf(cache, v04([span(5, 1)]))).toEqual([FULL]);
  });

  it('stay 64-bit when nothing announced the high half, or once the cache entry expired', () => {
    let now = 0;
    const cache = new TraceIdCache({ maxEntries: 10, ttlMs: 1000 }, () => now);
    expect(traceIdsOf(cache, v04([span(1, 0)]))).toEqual(['0000000000000000' + LOW.toString(16)]);
    traceIdsOf(cache, v04([span(1, 0, { '_dd.p.tid': 'f233b7e1421e8bde' })]));
    now = 1001;
    expect(traceIdsOf(cache, v04([span(2, 1)]))).toEqual(['0000000000000000' + LOW.toString(16)]);
  });
});

describe('parseOtelHexId', () => {
  it('reads the hex the datadog exporter writes: 32 chars for a trace id, 16 for a span id', () => {
    expect(parseOtelHexId(FULL, 32)).toBe(BigInt('0x' + FULL));
    expect(parseOtelHexId('00f067aa0ba902b7', 16)).toBe(0x00f067aa0ba902b7n);
    expect(parseOtelHexId(FULL.toUpperCase(), 32)).toBe(BigInt('0x' + FULL));
  });

  it('refuses a wrong length, a non-hex character, all zeros and an absent value', () => {
    expect(parseOtelHexId(FULL.slice(1), 32)).toBeUndefined();
    expect(parseOtelHexId(FULL, 16)).toBeUndefined();
    expect(parseOtelHexId('00f067aa0ba902bg', 16)).toBeUndefined();
    expect(parseOtelHexId('0x f067aa0ba902b7', 16)).toBeUndefined();
    expect(parseOtelHexId('0'.repeat(32), 32)).toBeUndefined();
    expect(parseOtelHexId(undefined, 32)).toBeUndefined();
  });
});

describe('TraceIdCache eviction', () => {
  /** The plain LRU it must equal: an array, oldest first. */
  class ReferenceLru {
    readonly keys: bigint[] = [];
    constructor(private readonly max: number) {}
    remember(low: bigint): void {
      const at = this.keys.indexOf(low);
      if (at >= 0) this.keys.splice(at, 1);
      this.keys.push(low);
      if (this.keys.length > this.max) this.keys.shift();
    }
  }

  it('evicts the least recently remembered id, across re-inserts and many evictions', () => {
    const max = 50;
    const cache = new TraceIdCache({ maxEntries: max, ttlMs: 1e12 }, () => 0);
    const reference = new ReferenceLru(max);
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    // enough operations for V8 to compact the Map many times under a live iterator
    for (let i = 0; i < 20_000; i++) {
      // mostly new ids, some recent ones again (moved to the back), some far-back ones
      const low = BigInt(random(4) === 0 ? Math.max(1, i - random(80)) : i + 1);
      cache.remember(low, 9n);
      reference.remember(low);
    }
    expect(cache.size).toBe(max);
    const kept = reference.keys;
    for (const low of kept) expect(cache.highFor(low)).toBe(9n);
    const gone = [...Array(20_000).keys()].map((i) => BigInt(i + 1)).filter((low) => !kept.includes(low));
    for (const low of gone) expect(cache.highFor(low)).toBeUndefined();
  });
});
