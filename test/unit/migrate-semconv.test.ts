/**
 * `migrate --semconv-stability-opt-in` (the sidecar's own option, OTEL_SEMCONV_STABILITY_OPT_IN):
 * APM queries must read HTTP and database attributes under the names a bridge run with that
 * opt-in writes. The expectation is the data path itself: the APM-stats points the bridge builds
 * (src/signals/traces/stats.ts) for the same opt-in, not a list of names. Log attributes are
 * written under the default names whatever the opt-in (src/signals/logs/finish.ts), so log
 * searches keep those.
 */
import { parseSemconvOptIn, resolveSetting } from '../../src/config';
import { createTranslatorCaches } from '../../src/signals/caches';
import { parseClientStats } from '../../src/signals/traces/parse/stats';
import { translateStats } from '../../src/signals/traces/stats';
import { readMonitor } from '../../tools/src/migrate/datadog';
import { translateLogSearch } from '../../tools/src/migrate/log-search';
import { parseMetricExpression } from '../../tools/src/migrate/metric-query';
import { translateMonitor } from '../../tools/src/migrate/monitors';
import { addExpression, DEFAULT_SETTINGS, defaultsContext, emptySeries } from '../../tools/src/migrate/series';
import { encodeMsgpack } from '../fixtures/traces/msgpack-writer';
import { clientStatsPayload, statsGroup } from '../fixtures/traces/stats-payloads';
import { keyValueJson } from '../helpers/otlp-json';
import { attributesOf } from '../helpers/sink';

/** The attribute keys of the `dd.trace.hits` point a bridge with this opt-in writes for a GET → 200 stats group. */
function hitsPointKeys(optInText: string): string[] {
  const caches = createTranslatorCaches({ semconv: parseSemconvOptIn(optInText) });
  const [resource] = translateStats(parseClientStats(encodeMsgpack(clientStatsPayload([statsGroup()]) as never), 'v0.6 stats'), caches);
  const hits = resource!.scopeMetrics[0]!.metrics.find((m) => m.name === 'dd.trace.hits')!;
  return Object.keys(attributesOf(('sum' in hits ? hits.sum.dataPoints[0]!.attributes : []).map(keyValueJson)));
}

const APM_QUERY = 'sum:trace.express.request.hits{http.status_code:200,http.method:GET} by {http.status_code}.as_count()';

/** The point-attribute keys a select's Lucene filters on, and the group-by's. */
function keysRead(optInText: string): { where: string[]; groupBy: string[] } {
  const s = emptySeries();
  addExpression(s, parseMetricExpression(APM_QUERY), defaultsContext([], { ...DEFAULT_SETTINGS, semconv: parseSemconvOptIn(optInText) }));
  return {
    where: [...s.selects[0]!.where.matchAll(/Attributes\.([\w.]+):/g)].map((m) => m[1]!),
    groupBy: s.groupBy.map((g) => /^Attributes\['([^']+)'\]$/.exec(g)?.[1] ?? g),
  };
}

describe.each([
  ['', ['http.status_code', 'http.method']],
  ['http', ['http.response.status_code', 'http.request.method']],
  ['http/dup', ['http.status_code', 'http.method']],
])('bridge run with OTEL_SEMCONV_STABILITY_OPT_IN="%s"', (optIn, names) => {
  it('APM queries filter and group on attributes the APM-stats points carry', () => {
    const written = hitsPointKeys(optIn);
    const read = keysRead(optIn);
    expect(read.where).toEqual(['datadog.span.name', ...names]);
    for (const key of [...read.where, ...read.groupBy]) expect(written).toContain(key);
    expect(read.groupBy).toEqual([names[0]]);
  });

  it('an APM monitor reads them too, its trailing `by` included', () => {
    const monitor = readMonitor({ name: 'm', type: 'query alert', query: 'avg(last_5m):sum:trace.express.request.errors{http.method:GET}.as_count() > 5 by {http.status_code}', message: '', options: {} });
    const plan = translateMonitor(monitor, 'f', { metric: 'm1', log: 'l1' }, { byHandle: new Map(), fallback: undefined }, 0, { ...DEFAULT_SETTINGS, semconv: parseSemconvOptIn(optIn) });
    if (plan.target?.kind !== 'tile') throw new Error(`expected a tile, got ${plan.notes.join('; ')}`);
    const { config } = plan.target.tile;
    expect(config).toMatchObject({ groupBy: `Attributes['${names[0]}']` });
    expect((config!.select as { where: string }[])[0]!.where).toContain(`Attributes.${names[1]}:"GET"`);
  });
});

it('an ordinary metric tag and a log facet keep the default names whatever the opt-in', () => {
  const s = emptySeries();
  addExpression(s, parseMetricExpression('sum:nginx.requests{http.status_code:500}'), defaultsContext([], { ...DEFAULT_SETTINGS, semconv: parseSemconvOptIn('http') }));
  expect(s.selects[0]!.where).toBe('Attributes.http.status_code:"500"');
  expect(translateLogSearch('@http.status_code:500 @http.method:GET')).toBe('LogAttributes.http.status_code:500 LogAttributes.http.method:GET');
});

it('reads the opt-in as the sidecar does: flag over environment, one parser', () => {
  const env = { OTEL_SEMCONV_STABILITY_OPT_IN: 'database' };
  expect(resolveSetting('semconvOptIn', new Map([['--semconv-stability-opt-in', 'http/dup,messaging']]), env)).toEqual({ http: 'dup', database: 'old' });
  expect(resolveSetting('semconvOptIn', new Map(), env)).toEqual({ http: 'old', database: 'stable' });
  expect(resolveSetting('semconvOptIn', new Map(), {})).toEqual({ http: 'old', database: 'old' });
});
