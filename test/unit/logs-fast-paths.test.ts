/**
 * The logs path's shortcuts (issue #7) must be invisible, each checked against the plain way it
 * replaces: field tables with consumed-key bits against copied maps, the per-request promotion
 * memo and identity grouping against promoting and grouping every record on its own, the JSON
 * message merge against copy-delete-set, the id parsers against the regular expressions they
 * replace, the id bytes against trace-id.ts's, the big-id pre-check against the regular
 * expression, and the allocation-free depth check.
 */
import fc from 'fast-check';
import { RESERVED_GROUPS, TAGS_KEYS, type DatadogLogEntry } from '../../src/signals/logs/datadog';
import { parseJsonBody, type JsonValue } from '../../src/core/wire/json';
import { parseLogsBody, quoteBigIds } from '../../src/signals/logs/parse';
import { anyValue, flattenValue, scalarText } from '../../src/signals/shared/attributes';
import { runLogSteps, translateLogsToModel } from '../../src/signals/logs/chain';
import { decodeJsonMessage } from '../../src/signals/logs/decode-json-message';
import { PromotionMemo } from '../../src/signals/logs/promotion-memo';
import { createTranslatorCaches } from '../../src/signals/caches';
import { createDraft, type LogDraft } from '../../src/signals/logs/draft';
import { severityOf } from '../../src/signals/logs/severity';
import { attributeName } from '../../src/signals/shared/known-keys';
import { consume, FieldsBuilder } from '../../src/signals/logs/fields';
import { toLogRecord } from '../../src/signals/logs/finish';
import { traceCorrelation } from '../../src/signals/logs/trace-correlation';
import { resourceKey, toKeyValues } from '../../src/signals/shared/resource-promotion';
import { SCOPE } from '../../src/signals/shared/scope';
import type { KeyValue, LogRecord, ResourceLogs } from '../../src/core/otlp/model';
import { parseSpanIdText, parseTraceIdText, spanIdBytes, traceIdBytes, TraceIdCache } from '../../src/signals/shared/trace-id';
import { resourceLogsJson } from '../helpers/otlp-json';
import { translationContext } from '../helpers/translation';

/** Nested objects flattened into a plain Map, as the log chain did before its field table: the reference. */
function flatten(fields: Record<string, JsonValue>): Map<string, JsonValue> {
  const into = new Map<string, JsonValue>();
  for (const key in fields) flattenValue(key, fields[key] as JsonValue, into);
  return into;
}

/** The plain way to group: one resourceKey per record, equal keys share a ResourceLogs, first seen first. */
function groupLogRecords(entries: { resource: KeyValue[]; record: LogRecord }[]): ResourceLogs[] {
  const groups = new Map<string, ResourceLogs>();
  for (const { resource, record } of entries) {
    const key = resourceKey(resource);
    if (!groups.has(key)) groups.set(key, { resource: { attributes: resource }, scopeLogs: [{ scope: SCOPE, logRecords: [] }] });
    groups.get(key)!.scopeLogs[0]!.logRecords.push(record);
  }
  return [...groups.values()];
}

const RUNS = { numRuns: 300 };

describe('logs fields: a table with consumed-key bits', () => {
  const key = fc.oneof(
    fc.constantFrom('a', 'b', 'a.b', 'message', 'status', 'dd.trace_id', ''),
    fc.integer({ min: 0, max: 45 }).map((i) => `k${i}`),
  );
  const value = fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.constant(null), fc.boolean());

  it('behaves like a copied map with the keys deleted, also past 31 fields and when views are stacked', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.array(fc.tuple(key, value), { maxLength: 60 }), fc.array(fc.array(key, { maxLength: 6 }), { maxLength: 5 }), (wide, more, consumptions) => {
        const builder = new FieldsBuilder();
        const copy = new Map<string, JsonValue>();
        // wide: 40 fields first, so that consumed keys sit past the bit mask too
        const sets: [string, JsonValue][] = [...(wide ? Array.from({ length: 40 }, (_, i): [string, JsonValue] => [`k${(i * 17) % 46}`, i]) : []), ...more];
        for (const [k, v] of sets) {
          builder.set(k, v);
          copy.set(k, v);
        }
        let view: ReadonlyMap<string, JsonValue> = builder.build();
        for (const keys of consumptions) {
          const before = [...view];
          const next = consume(view, keys);
          expect([...view]).toEqual(before); // the input is left as it was
          if (!keys.some((k) => copy.has(k))) expect(next).toBe(view);
          for (const k of keys) copy.delete(k);
          view = next;
          expect([...view]).toEqual([...copy]);
          expect([...view.keys()]).toEqual([...copy.keys()]);
          expect([...view.values()]).toEqual([...copy.values()]);
          expect(view.size).toBe(copy.size);
          const seen: [string, JsonValue][] = [];
          view.forEach((v, k) => {
            seen.push([k, v]);
          });
          expect(seen).toEqual([...copy]);
          for (const [k] of sets) expect([view.has(k), view.get(k)]).toEqual([copy.has(k), copy.get(k)]);
        }
      }),
      RUNS,
    );
  });

  it('consumes from a plain map too', () => {
    const plain = new Map<string, JsonValue>([
      ['a', 1],
      ['b', 2],
    ]);
    expect([...consume(plain, ['a', 'x'])]).toEqual([['b', 2]]);
    expect(consume(plain, ['x'])).toBe(plain);
    expect([...plain.keys()]).toEqual(['a', 'b']);
  });

  it('flattens as attributes.ts does', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('a', 'b', 'a.b', '', 'c'), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }), (object) => {
        const builder = new FieldsBuilder();
        for (const k in object) builder.flatten(k, object[k] as JsonValue);
        expect([...builder.build()]).toEqual([...flatten(object as Record<string, JsonValue>)]);
      }),
      RUNS,
    );
  });
});

describe('decode_json_message merges as copy, delete the named groups, set', () => {
  /** The step as first written: every map copied. */
  function referenceFields(outer: ReadonlyMap<string, JsonValue>, inner: Record<string, JsonValue>): [string, JsonValue][] {
    const innerFields = flatten(inner);
    const fields = new Map(outer);
    for (const group of RESERVED_GROUPS) if (group.some((k) => innerFields.has(k))) for (const k of group) fields.delete(k);
    const tags = [scalarText(outer.get(TAGS_KEYS[0])), scalarText(innerFields.get(TAGS_KEYS[0]))].filter((t) => t).join(',');
    for (const [k, v] of innerFields) fields.set(k, v);
    if (tags) fields.set(TAGS_KEYS[0], tags);
    if (!fields.has('message') && !fields.has('msg') && !fields.has('log')) fields.set('message', outer.get('message') ?? '');
    return [...fields];
  }

  const names = ['message', 'msg', 'log', 'status', 'level', 'time', 'timestamp', 'hostname', 'host', 'service', 'ddsource', 'ddtags', 'syslog', 'severity', 'hostname', '', 'x', 'syslog.severity', 'syslog.hostname'];
  const leaf = fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.constant(null));
  const inner = fc.dictionary(fc.constantFrom(...names), fc.oneof(leaf, fc.dictionary(fc.constantFrom(...names), fc.oneof(leaf, fc.dictionary(fc.constantFrom(...names), leaf, { maxKeys: 2 })), { maxKeys: 3 })), { maxKeys: 6 });
  const outer = fc.dictionary(fc.constantFrom(...names.filter((n) => n !== 'message')), leaf, { maxKeys: 8 });

  it('leaves the same fields in the same order', () => {
    fc.assert(
      fc.property(outer, inner, (envelope, message) => {
        const draft = createDraft({ ...envelope, message: JSON.stringify(message) } as DatadogLogEntry, 1n);
        // the step writes into the draft: the envelope's fields are the ones before it runs
        const envelopeFields = draft.fields;
        const decoded = decodeJsonMessage(draft, { traceIds: new TraceIdCache(), decodeJsonMessage: true, textCorrelation: true, queryTags: undefined });
        expect([...decoded.fields]).toEqual(referenceFields(envelopeFields, message as Record<string, JsonValue>));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('promotion memo and identity grouping', () => {
  /** Every record promoted and grouped on its own, as before the memo. */
  function reference(body: Buffer, query: URLSearchParams): unknown {
    const payload = parseLogsBody(body, query);
    const ctx = { traceIds: new TraceIdCache(), decodeJsonMessage: true, textCorrelation: true, queryTags: payload.queryTags };
    return resourceLogsJson(
      groupLogRecords(
        payload.entries.map((entry) => {
          const draft = runLogSteps(createDraft(entry, 7n), ctx);
          return { resource: toKeyValues(draft.promoted.resource), record: toLogRecord(draft) };
        }),
      ),
    );
  }
  /** one process's caches, shared by every request of these tests as the sidecar shares them */
  const caches = createTranslatorCaches();
  const translated = (body: Buffer, query: URLSearchParams): unknown => resourceLogsJson(translateLogsToModel(parseLogsBody(body, query), translationContext(caches, 7n, { decodeJsonMessage: true, logTextCorrelation: true })));

  const tags = fc.array(fc.constantFrom('env:a', 'env:b', 'team:x', 'image_tag:1', 'image_tag:2', 'foo', 'service:s', 'host:h', 'pod_name:p', 'filename:f', ''), { maxLength: 5 }).map((t) => t.join(','));
  const text = fc.oneof(fc.constantFrom('a', 'b', '', 'h1'), fc.integer({ min: 0, max: 2 }), fc.constant(null));
  const entry = fc.record(
    {
      ddtags: tags,
      ddsource: text,
      hostname: text,
      host: text,
      service: text,
      env: text,
      version: text,
      'dd.service': text,
      'dd.version': text,
      team: text,
      message: fc.constantFrom('plain', '{"hostname":"in","msg":"m","dd":{"env":"e"}}', '{"ddtags":"team:y","msg":"m"}'),
    },
    { requiredKeys: ['message'] },
  );

  it('gives what promoting and grouping each record on its own gives', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 40 }), fc.option(tags), (entries, query) => {
        const body = Buffer.from(JSON.stringify([...entries, ...entries]));
        const q = new URLSearchParams(query === null ? {} : { ddtags: query });
        expect(translated(body, q)).toEqual(reference(body, q));
      }),
      RUNS,
    );
  });

  it('tells apart entries that differ in any one of the texts it reads', () => {
    const base: Record<string, JsonValue> = { ddtags: 'env:a,team:x', ddsource: 'src', hostname: 'h', service: 's', env: 'e', version: 'v', 'dd.service': 'ds', 'dd.env': 'de', 'dd.version': 'dv', message: 'm' };
    const entries = [
      base,
      ...Object.keys(base).flatMap((k) => [
        { ...base, [k]: 'other' },
        { ...base, [k]: 7 },
        { ...base, [k]: '' },
        { ...base, [k]: null },
      ]),
    ];
    const body = Buffer.from(JSON.stringify([...entries, ...entries]));
    expect(translated(body, new URLSearchParams())).toEqual(reference(body, new URLSearchParams()));
  });

  it('still does with more combinations than it remembers, and more same-length ddtags than it compares in turn', () => {
    const entries = Array.from({ length: 600 }, (_, i) => ({ message: 'm', hostname: `h${i % 151}`, ddtags: i % 5 ? `env:e${String(i % 40).padStart(2, '0')}` : 'team:t' }));
    const body = Buffer.from(JSON.stringify(entries));
    expect(translated(body, new URLSearchParams())).toEqual(reference(body, new URLSearchParams()));
  });

  it("keeps a container's promotion from one request to the next, and its resource's KeyValues", () => {
    const model = (): ResourceLogs[] => translateLogsToModel(parseLogsBody(Buffer.from(JSON.stringify([{ message: 'm', hostname: 'kept', ddtags: 'env:kept,team:x' }])), new URLSearchParams()), translationContext(caches, 7n));
    const [first, second] = [model(), model()];
    expect(second[0]!.resource.attributes).toBe(first[0]!.resource.attributes);
  });

  it('starts afresh past its bound, with the same promotions as before', () => {
    const memo = new PromotionMemo(undefined, 2);
    const texts = (host: string): (string | undefined)[] => ['env:a', undefined, host, undefined, undefined, undefined, undefined, undefined, undefined];
    const [a, b] = [memo.promotionFor(texts('a'), undefined), memo.promotionFor(texts('b'), undefined)];
    expect(memo.promotionFor(texts('a'), undefined)).toBe(a);
    memo.promotionFor(texts('c'), undefined);
    const again = memo.promotionFor(texts('a'), undefined);
    expect(again).not.toBe(a);
    expect(again).toEqual(a);
    expect(b).toBeDefined();
  });

  it("gives the same records across the process-wide memo's fresh starts", () => {
    const entries = Array.from({ length: 2500 }, (_, i) => ({ message: 'm', hostname: `h${i}`, ddtags: `env:e${i % 3}` }));
    const body = Buffer.from(JSON.stringify([...entries, ...entries]));
    expect(translated(body, new URLSearchParams())).toEqual(reference(body, new URLSearchParams()));
  });
});

describe('record attributes', () => {
  /** toLogRecord's attributes as first written: the promoted map copied, each field set into it. */
  function referenceAttributes(draft: LogDraft): unknown {
    const attributes = new Map(draft.promoted.attributes);
    for (const [key, value] of draft.fields) {
      // `message` is the body (the property always sends one); an empty alias beside it says nothing
      if (key === 'message' || ((key === 'msg' || key === 'log') && (value === '' || value === null))) continue;
      const name = attributeName(key);
      if (name !== 'rr-web.event') attributes.set(name, anyValue(value));
    }
    return toKeyValues(attributes);
  }
  const keys = ['http.method', 'HTTP.METHOD', 'http.request.method', 'error.stack', 'err.stack', 'exception.stacktrace', 'http.request.headers.x', 'http.request.header.x', 'team', 'filename', 'datadog.ddsource', 'rr-web.event', 'msg', 'x', 'status'];

  it('are what setting each field into a copy of the promoted attributes gives', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...keys), fc.oneof(fc.string({ maxLength: 2 }), fc.integer()), { maxKeys: 10 }), fc.constantFrom('', 'team:t,filename:f', 'team:t'), (fields, ddtags) => {
        const body = Buffer.from(JSON.stringify([{ ...fields, ddtags, ddsource: 'src', message: 'm' }]));
        const payload = parseLogsBody(body, new URLSearchParams());
        const ctx = { traceIds: new TraceIdCache(), decodeJsonMessage: true, textCorrelation: true, queryTags: undefined };
        const plain = runLogSteps(createDraft(payload.entries[0] as DatadogLogEntry, 7n), ctx);
        expect(toLogRecord(plain).attributes).toEqual(referenceAttributes(plain));
        const memoised = translateLogsToModel(payload, translationContext(createTranslatorCaches(), 7n, { decodeJsonMessage: true, logTextCorrelation: true }));
        expect(memoised[0]?.scopeLogs[0]?.logRecords[0]?.attributes).toEqual(referenceAttributes(plain));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('severity', () => {
  it('reads a lower-case name or a number as the general path reads its padded, upper-cased text', () => {
    const value = fc.oneof(fc.constantFrom('info', 'warn', 'err', 'emerg', 'notice', 'http', '7', '30', '8', '-1', 'x', ''), fc.integer({ min: -2, max: 70 }), fc.double(), fc.string({ maxLength: 4 }));
    fc.assert(
      fc.property(value, (v) => {
        // BY_NAME holds lower-case names only: the padded text always takes the general path
        expect(severityOf(v)).toEqual(v === '' ? severityOf(undefined) : severityOf(` ${String(v).toUpperCase()} `));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('trace and span ids', () => {
  /** The parsers as first written, by regular expressions. */
  function referenceTraceId(text: string): bigint | undefined {
    const t = text.trim();
    let id: bigint | undefined;
    if (/^[0-9a-fA-F]{1,32}$/.test(t) && (/[a-fA-F]/.test(t) || t.length === 32)) id = BigInt('0x' + t);
    else if (/^\d{1,39}$/.test(t)) id = BigInt(t);
    return id !== undefined && id > 0n && id < 1n << 128n ? id : undefined;
  }
  function referenceSpanId(text: string): bigint | undefined {
    const t = text.trim();
    let id: bigint | undefined;
    if (/^[0-9a-fA-F]{1,16}$/.test(t) && /[a-fA-F]/.test(t)) id = BigInt('0x' + t);
    else if (/^\d{1,20}$/.test(t)) id = BigInt(t);
    return id !== undefined && id > 0n && id < 1n << 64n ? id : undefined;
  }
  const idText = fc.oneof(
    fc.string({ maxLength: 42 }),
    fc.stringMatching(/^\s?[0-9a-fA-Fg]{0,41}\s?$/),
    fc.bigInt({ min: 0n, max: 1n << 130n }).map(String),
    fc.bigInt({ min: 0n, max: 1n << 130n }).map((b) => b.toString(16)),
    fc.bigInt({ min: 0n, max: 1n << 70n }).map((b) => b.toString(16).padStart(32, '0')),
  );

  it('are parsed as the regular expressions parsed them', () => {
    fc.assert(
      fc.property(idText, (t) => {
        expect(parseTraceIdText(t)).toBe(referenceTraceId(t));
        expect(parseSpanIdText(t)).toBe(referenceSpanId(t));
      }),
      { numRuns: 5000 },
    );
  });

  it('are written as trace-id.ts writes them', () => {
    const cache = new TraceIdCache();
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: (1n << 128n) - 1n }), fc.bigInt({ min: 1n, max: (1n << 64n) - 1n }), (traceId, spanId) => {
        const draft = createDraft({ 'dd.trace_id': traceId.toString(16).padStart(32, '0'), 'dd.span_id': spanId.toString(), message: 'm' }, 1n);
        const out = traceCorrelation(draft, { traceIds: cache, decodeJsonMessage: true, textCorrelation: true, queryTags: undefined });
        expect(Buffer.from(out.traceId ?? []).toString('hex')).toBe(Buffer.from(traceIdBytes(traceId)).toString('hex'));
        expect(Buffer.from(out.spanId ?? []).toString('hex')).toBe(Buffer.from(spanIdBytes(spanId)).toString('hex'));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('big ids', () => {
  const BIG_ID = /("(?:dd\.)?(?:trace_id|span_id)"\s*:\s*)(\d{16,})(?=\s*[,}\]])/g;
  const piece = fc.oneof(fc.constantFrom('"trace_id"', '"dd.span_id"', '"x_id"', '_id"', ':', ' ', '\u00a0', '\n', ',', '}', '"', '1234567890123456789', '12', 'a'), fc.string({ maxLength: 3 }));

  const space = fc.constantFrom('', ' ', '\n', '\t', '\u00a0', '\u2028', '\ufeff');
  const id = fc.oneof(fc.constantFrom('1234567890123456789', '9876543210987654', '987654321098765', '0000000000000000'), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map(String));
  const pair = fc.tuple(fc.constantFrom('trace_id', 'span_id', 'dd.trace_id', 'x_id', 'dd.span'), space, space, id, space, fc.constantFrom(',', '}', ']', 'x', '')).map(([k, a, b, digits, c, end]) => `"${k}"${a}:${b}${digits}${c}${end}`);

  it('are quoted exactly where the regular expression would quote them', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(piece, pair), { maxLength: 14 }), (pieces) => {
        const text = pieces.join('');
        expect(quoteBigIds(text)).toBe(text.replace(BIG_ID, '$1"$2"'));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('JSON depth', () => {
  const arrays = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
  const objects = (depth: number): string => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);

  it('accepts 64 levels and refuses 65, in arrays and objects', () => {
    expect(() => parseJsonBody(arrays(64), 'x')).not.toThrow();
    expect(() => parseJsonBody(objects(64), 'x')).not.toThrow();
    expect(() => parseJsonBody(arrays(65), 'x')).toThrow(/nested deeper than 64 levels/);
    expect(() => parseJsonBody(objects(65), 'x')).toThrow(/nested deeper than 64 levels/);
    expect(() => parseJsonBody(`[1,{"a":[${arrays(63)}]}]`, 'x')).toThrow(/nested deeper than 64 levels/);
    expect(() => parseJsonBody(arrays(100_000), 'x')).toThrow(/nested deeper than 64 levels/);
  });
});
