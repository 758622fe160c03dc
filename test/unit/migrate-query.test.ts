/**
 * The pieces of `migrate` below the whole-file goldens: Datadog's metric query parser (and its
 * errors), where a tag lands (read from the data path's promotion table), and the log-search
 * translation. Hand-made queries here; the real exports are in migrate-golden.test.ts.
 */
import { attributeName, KNOWN_KEYS } from '../../src/signals/shared/known-keys';
import { tagColumn } from '../../tools/src/migrate/attributes';
import { readDashboard, readMonitor } from '../../tools/src/migrate/datadog';
import { widgetTile } from '../../tools/src/migrate/dashboards';
import { translateLogSearch } from '../../tools/src/migrate/log-search';
import { parseMetricExpression, parseMetricQueries, QueryError } from '../../tools/src/migrate/metric-query';
import { translateMonitor } from '../../tools/src/migrate/monitors';
import { handlesOf } from '../../tools/src/migrate/notifications';
import { addExpression, defaultsContext, emptySeries } from '../../tools/src/migrate/series';

const SOURCES = { metric: 'm1', log: 'l1' };
const NO_VARS = defaultsContext([]);

/** The chart series one metric expression draws. */
/** A monitor with no thresholds of its own, notifying a mapped webhook, as translated. */
const searchMonitorPlan = (type: string, query: string, sources: Parameters<typeof translateMonitor>[2]) =>
  translateMonitor(readMonitor({ name: 'm', type, query, message: '@webhook-ops', options: {} }), 'f', sources, { byHandle: new Map([['ops', 'w-ops']]), fallback: undefined }, 0);

function seriesOf(query: string, ctx: Parameters<typeof addExpression>[2] = NO_VARS) {
  const s = emptySeries();
  addExpression(s, parseMetricExpression(query), ctx);
  return s;
}

describe('metric query parser', () => {
  it('reads aggregator, metric, filters, group-by and methods', () => {
    expect(parseMetricExpression('avg:system.cpu.user{env:prod,!host:a} by {host,kube_namespace}.as_count()')).toEqual({
      kind: 'metric',
      aggregator: 'avg',
      metric: 'system.cpu.user',
      filter: {
        kind: 'and',
        filters: [
          { kind: 'tag', key: 'env', value: 'prod' },
          { kind: 'not', filter: { kind: 'tag', key: 'host', value: 'a' } },
        ],
      },
      groupBy: ['host', 'kube_namespace'],
      methods: [{ name: 'as_count', args: [] }],
    });
  });

  it('reads rollups with their arguments', () => {
    const q = parseMetricExpression('sum:nginx.net.request_per_s{*}.rollup(sum, 60)');
    expect(q).toMatchObject({ kind: 'metric', filter: { kind: 'any' }, methods: [{ name: 'rollup', args: ['sum', '60'] }] });
  });

  it('keeps arithmetic precedence and parentheses', () => {
    const q = parseMetricExpression('100 * a.b{*} / (c.d{*} + e.f{*})');
    expect(q).toMatchObject({ kind: 'binary', op: '/', left: { kind: 'binary', op: '*' }, right: { kind: 'binary', op: '+' } });
  });

  it('reads boolean filters, template variables and comma-separated series', () => {
    const [first, second] = parseMetricQueries('count:x{a:b AND (c:d OR c:e) AND $topic}, y{$scope}');
    expect(first).toMatchObject({ filter: { kind: 'and', filters: [{ kind: 'tag' }, { kind: 'or' }, { kind: 'var', name: 'topic' }] } });
    expect(second).toMatchObject({ kind: 'metric', aggregator: undefined, metric: 'y', filter: { kind: 'var', name: 'scope' } });
  });

  // Datadog's advanced filtering takes its boolean words in either case, and IN / NOT IN lists (integrations-core monitors write `phase:abort or phase:error`)
  it.each([
    [
      'avg:x{phase:abort or phase:error}',
      {
        kind: 'or',
        filters: [
          { kind: 'tag', key: 'phase', value: 'abort' },
          { kind: 'tag', key: 'phase', value: 'error' },
        ],
      },
    ],
    [
      'avg:x{not phase:running and env:prod}',
      {
        kind: 'and',
        filters: [
          { kind: 'not', filter: { kind: 'tag', key: 'phase', value: 'running' } },
          { kind: 'tag', key: 'env', value: 'prod' },
        ],
      },
    ],
    ['avg:x{state IN (open,half_open, forced_open)}', { kind: 'or', filters: ['open', 'half_open', 'forced_open'].map((value) => ({ kind: 'tag', key: 'state', value })) }],
    [
      'avg:x{env:prod AND location NOT IN (atlanta,seattle)}',
      {
        kind: 'and',
        filters: [
          { kind: 'tag', key: 'env', value: 'prod' },
          { kind: 'not', filter: { kind: 'or', filters: ['atlanta', 'seattle'].map((value) => ({ kind: 'tag', key: 'location', value })) } },
        ],
      },
    ],
    ['avg:x{state in (open)}', { kind: 'tag', key: 'state', value: 'open' }],
  ])('reads %s', (query, filter) => {
    expect(parseMetricExpression(query)).toMatchObject({ kind: 'metric', metric: 'x', filter });
  });

  it.each([
    ['avg:x{a:b', 'expected "}" at column 10'],
    ['avg:x{*} +', 'expected a metric query, number or function at column 11'],
    ['median:x{*}', 'unknown space aggregator "median" at column 1'],
    ['avg:x{*} garbage', 'unexpected text at column 10'],
  ])('rejects %s with the column', (query, message) => {
    expect(() => parseMetricExpression(query)).toThrow(QueryError);
    expect(() => parseMetricExpression(query)).toThrow(message);
  });
});

describe('where tags land', () => {
  it('follows resource promotion (and the default semantic-convention names) for every key of the shared table', () => {
    for (const [key, known] of KNOWN_KEYS) {
      if (known.resource) expect(tagColumn('metrics', key)).toEqual({ map: 'ResourceAttributes', key: known.otel, ...(known.slice ? { list: true } : {}) });
      else expect(tagColumn('metrics', key)).toEqual({ map: 'Attributes', key: attributeName(key) });
    }
  });

  it('keeps unknown tags as point or log attributes under their own name', () => {
    expect(tagColumn('metrics', 'state')).toEqual({ map: 'Attributes', key: 'state' });
    expect(tagColumn('logs', 'team')).toEqual({ map: 'LogAttributes', key: 'team' });
  });

  it('turns a filter into Lucene over those columns, and a group-by into SQL', () => {
    const s = seriesOf('sum:gunicorn.workers{env:prod,state:idle,!host:web-*} by {service}');
    expect(s.selects[0]).toEqual({
      aggFn: 'sum',
      valueExpression: 'Value',
      where: 'ResourceAttributes.deployment.environment.name:"prod" AND Attributes.state:"idle" AND NOT ResourceAttributes.host.name:web-*',
      whereLanguage: 'lucene',
      metricName: 'gunicorn.workers',
      metricType: 'gauge',
    });
    expect(s.groupBy).toEqual(["ResourceAttributes['service.name']"]);
  });

  it('reads `key:` as the empty value of that key (said: HyperDX also matches a missing tag) and a bare tag as the bridge splits it', () => {
    const s = seriesOf('sum:gunicorn.workers{state:,ready}');
    expect(s.selects[0]?.where).toBe('Attributes.state:"" AND Attributes.unnamed_ready:"ready"');
    expect(s.notes).toContain('state: (the empty value) also matches points without the tag (HyperDX reads a missing tag as empty)');
  });

  it('applies a template variable default with its prefix, negated', () => {
    const s = seriesOf(
      'sum:iis.net.bytes_rcvd{$scope,!$exclude_site}',
      defaultsContext([
        { name: 'scope', prefix: null, defaults: ['*'], availableValues: [] },
        { name: 'exclude_site', prefix: 'site', defaults: ['total'], availableValues: [] },
      ]),
    );
    expect(s.selects[0]?.where).toBe('NOT Attributes.site:"total"');
  });

  it('draws trace.* metrics from the APM-stats metrics, by operation', () => {
    const s = seriesOf('sum:trace.http.request.hits{service:web,resource_name:get_/}.as_count()');
    expect(s.selects[0]).toMatchObject({
      metricName: 'dd.trace.hits',
      metricType: 'sum',
      where: 'Attributes.datadog.span.name:"http.request" AND ResourceAttributes.service.name:"web" AND Attributes.dd.span.Resource:"get_/"',
    });
  });

  it('maps percentiles to quantiles of the distribution (exponential histogram) table', () => {
    const s = seriesOf('p95:request.latency{*}');
    expect(s.selects[0]).toMatchObject({ aggFn: 'quantile', level: 0.95, metricType: 'exponential histogram' });
  });
});

describe('log search', () => {
  it.each([
    // values quoted: HyperDX matches a bare value as text containing it, a quoted one exactly (as Datadog)
    ['service:web status:error', 'ServiceName:"web" SeverityText:"error"'],
    ['source:nginx @http.status_code:500 @error.msg:x', 'LogAttributes.datadog.ddsource:"nginx" LogAttributes.http.status_code:"500" LogAttributes.exception.message:"x"'],
    ['env:prod -host:db1 "timed out"', 'ResourceAttributes.deployment.environment.name:"prod" -ResourceAttributes.host.name:"db1" "timed out"'],
    ['status:warning OR (service:api AND @user.id:42)', 'SeverityText:"warn" OR (ServiceName:"api" AND LogAttributes.user.id:"42")'],
    // a field's group is written term by term: HyperDX reads an empty value inside one as "anything"
    ['-@categoryName:("-" OR "")', 'NOT (LogAttributes.categoryName:"-" OR LogAttributes.categoryName:"")'],
    // no `-` before a group in HyperDX's grammar
    ['service:a -(@a:b AND @c:d)', 'ServiceName:"a" NOT (LogAttributes.a:"b" AND LogAttributes.c:"d")'],
    // a log attribute is text in ClickHouse: a small integer range is matched value by value
    ['@message_id:[988 TO 990]', '(LogAttributes.message_id:"988" OR LogAttributes.message_id:"989" OR LogAttributes.message_id:"990")'],
    ['@http.url:*', 'LogAttributes.http.url:*'],
    ['host:web-*', 'ResourceAttributes.host.name:web-*'],
    ['*', ''],
  ])('%s', (datadog, hyperdx) => {
    expect(translateLogSearch(datadog)).toBe(hyperdx);
  });
});

describe('log search, what HyperDX reads otherwise', () => {
  it('a search of any attribute (`*:value`) is not migrated, said (HyperDX reads `*` as a field and its SQL fails)', () => {
    expect(() => translateLogSearch('*:(*permissions OR denied*) -status:info')).toThrow('the search matches any attribute (*:value), which HyperDX has no equivalent of');
  });

  const notesOf = (search: string): string[] => {
    const notes: string[] = [];
    translateLogSearch(search, notes);
    return notes;
  };

  it('a wildcard matches text containing it, in any case: said', () => {
    expect(notesOf('host:web-*')).toEqual(['the wildcard value web-* matches any value containing "web-" in any case (HyperDX\'s search), not only the values of its pattern']);
  });

  it('an empty value also matches a missing attribute: said', () => {
    expect(notesOf('-@x:""')).toEqual(['an empty value ("") also matches logs without the attribute (HyperDX reads a missing attribute as empty)']);
  });

  it('a range HyperDX cannot compare is not migrated', () => {
    expect(() => translateLogSearch('@duration:>500')).toThrow(/the range @duration:>500/);
  });
});

describe('widgets HyperDX cannot draw', () => {
  it('become a Markdown tile naming the reason and keeping the query', () => {
    const tile = widgetTile({ type: 'timeseries', title: 'Growth', requests: [{ q: 'derivative(sum:es.docs{*})' }] }, NO_VARS, SOURCES);
    expect(tile.migrated).toBe(false);
    expect(tile.config).toEqual({ displayType: 'markdown', markdown: expect.stringContaining('derivative(sum:es.docs{*})') });
    expect(tile.notes).toEqual(['Growth: derivative() has no HyperDX equivalent']);
  });

  it('a distribution widget becomes a table of its quantiles over the distribution table, and says so', () => {
    const tile = widgetTile({ type: 'distribution', title: 'Latency', requests: [{ query: { data_source: 'metrics', query: 'histogram:request.latency{env:prod} by {host}' } }] }, NO_VARS, SOURCES);
    expect(tile.config).toEqual({
      displayType: 'table',
      sourceId: 'm1',
      select: [0.5, 0.9, 0.95, 0.99].map((level) => ({
        aggFn: 'quantile',
        level,
        valueExpression: 'Value',
        alias: `p${Math.round(level * 100)}`,
        where: 'ResourceAttributes.deployment.environment.name:"prod"',
        whereLanguage: 'lucene',
        metricName: 'request.latency',
        metricType: 'exponential histogram',
      })),
    });
    expect(tile.notes).toEqual(['Latency: request.latency: the distribution over {host} drawn as quantiles of all its points', 'Latency: distribution drawn as a table of its p50, p90, p95 and p99 (HyperDX draws no value histogram of a metric)']);
  });

  it('a distribution of an ordinary metric takes the quantiles of its points; an expression is not migrated', () => {
    const gauge = widgetTile({ type: 'distribution', title: 'CPU', requests: [{ q: 'avg:system.cpu.user{*} by {host}' }] }, NO_VARS, SOURCES);
    expect((gauge.config.select as { metricType: string }[]).map((s) => s.metricType)).toEqual(['gauge', 'gauge', 'gauge', 'gauge']);
    const ratio = widgetTile({ type: 'distribution', title: 'Ratio', requests: [{ q: 'avg:a{*} / avg:b{*}' }] }, NO_VARS, SOURCES);
    expect(ratio.migrated).toBe(false);
    expect(ratio.notes).toEqual(['Ratio: a distribution of an expression is not migrated (HyperDX computes quantiles of one metric)']);
  });
});

describe('Datadog exports', () => {
  it('name the field that is wrong', () => {
    expect(() => readDashboard({ title: 'x', widgets: [{ definition: { requests: [] } }] })).toThrow('dashboard.widgets[0].definition.type: expected a widget type, got nothing');
    expect(() => readMonitor({ definition: { name: 'm', type: 'query alert' } })).toThrow('monitor.definition.query: expected a query, got nothing');
  });
});

describe('monitors', () => {
  const monitor = (query: string, message = '@webhook-ops', type = 'query alert') => readMonitor({ name: 'm', type, query, message, options: { thresholds: { critical: 90 } } });
  const webhooks = { byHandle: new Map([['ops', 'w-ops']]), fallback: undefined };

  it('a metric monitor becomes a tile and an above/below alert on it', () => {
    const plan = translateMonitor(monitor('avg(last_5m):avg:system.cpu.user{env:prod} by {host} > 90'), 'f', SOURCES, webhooks, 0);
    // HyperDX takes each gauge series' last point in the interval: Datadog's avg over the window is reported
    expect(plan.outcome).toBe('partial');
    expect(plan.notes).toEqual([expect.stringContaining("time aggregation avg(last_5m): HyperDX reads each gauge series' last point"), expect.stringContaining('system.cpu.user: its type is not known'), expect.stringContaining('checked once every 5m')]);
    expect(plan.target).toMatchObject({ kind: 'tile', tile: { config: { groupBy: "ResourceAttributes['host.name']" } } });
    expect(plan.alert).toMatchObject({ threshold: 90, thresholdType: 'above_exclusive', interval: '5m', source: 'tile', channel: { type: 'webhook', webhookId: 'w-ops' } });
  });

  const CHECKED_EVERY_5M = 'checked once every 5m over windows aligned to the clock, where Datadog checks the last 5m every minute: an alert can come up to 5m later, and a breach across two windows is seen in two parts';

  it("a gauge monitor on the window's last point differs only in when it is checked, which is said", () => {
    const plan = translateMonitor(monitor('last(last_5m):avg:postgresql.connections{env:prod} by {host} > 90'), 'f', SOURCES, webhooks, 0);
    expect(plan.notes).toEqual([CHECKED_EVERY_5M]);
  });

  it('a one-minute window is checked every minute, as Datadog checks it: it translates in full', () => {
    const plan = translateMonitor(monitor('last(last_1m):avg:postgresql.connections{env:prod} by {host} > 90'), 'f', SOURCES, webhooks, 0);
    expect(plan.notes).toEqual([]);
    expect(plan.outcome).toBe('full');
  });

  it("a window HyperDX widens says Datadog's own window in the checking schedule", () => {
    const plan = translateMonitor(monitor('last(last_10m):avg:postgresql.connections{env:prod} by {host} > 90'), 'f', SOURCES, webhooks, 0);
    expect(plan.notes).toEqual(expect.arrayContaining([expect.stringMatching(/^checked once every 15m .* where Datadog checks the last 10m every minute/)]));
  });

  // rendered comparison (test/hyperdx-api/migrate-monitors-rendered.test.ts): HyperDX's interval holds each series' count over the whole interval
  it.each([
    ['min(last_1h):min:godaddy.certificate.certificate_expiration_days{*} by {certificateid} <= 7', 'time aggregation min(last_1h) became one min per interval'],
    ['avg(last_5m):avg:nginx.cache.bypass.responses_count{*}.as_count() > 90', 'time aggregation avg(last_5m) became one avg per interval'],
    ['sum(last_5m):avg:nginx.cache.bypass.responses_count{*}.as_count() > 90', 'time aggregation sum(last_5m) became one avg per interval'],
  ])('%s: a count read over the window with another aggregation than a sum of sums is reported', (query, note) => {
    const plan = translateMonitor(monitor(query), 'f', SOURCES, webhooks, 0);
    expect(plan.notes).toEqual(expect.arrayContaining([expect.stringContaining(note)]));
    expect(plan.outcome).toBe('partial');
  });

  it('a window of months (metric monitors reach back a month) becomes the widest interval, said', () => {
    const plan = translateMonitor(monitor('sum(last_1mo):sum:nginx.cache.bypass.responses_count{*} by {host}.as_count() > 500'), 'f', SOURCES, webhooks, 0);
    expect(plan.alert).toMatchObject({ interval: '1d' });
    expect(plan.notes).toEqual(expect.arrayContaining([expect.stringMatching(/^evaluation window last_1mo became the 1d interval/)]));
  });

  it('a sum over the window of a count summed across series differs only in when it is checked', () => {
    const plan = translateMonitor(monitor('sum(last_5m):sum:nginx.cache.bypass.responses_count{*}.as_count() > 90'), 'f', SOURCES, webhooks, 0);
    expect(plan.notes).toEqual([CHECKED_EVERY_5M]);
  });

  // Datadog's count monitors over logs, events and spans evaluate an empty window as 0 (on_missing_data "default"), as HyperDX does
  it.each([
    [{}, false],
    [{ on_missing_data: 'default' }, false],
    [{ on_missing_data: 'show_no_data' }, true],
    [{ on_missing_data: 'resolve' }, true],
  ])('a log count monitor below a threshold, options %j: fires on no data as Datadog does unless it says otherwise (note: %s)', (options, noted) => {
    const query = 'logs("service:web").index("*").rollup("count").last("5m") < 5';
    const plan = translateMonitor(readMonitor({ name: 'm', type: 'log alert', query, message: '@webhook-ops', options: { ...options, thresholds: { critical: 5 } } }), 'f', SOURCES, webhooks, 0);
    expect(plan.notes.some((n) => n.startsWith('HyperDX counts an interval without data as 0'))).toBe(noted);
  });

  it('a log measure monitor below a threshold says it fires on no data', () => {
    const query = 'logs("service:web").index("*").rollup("avg", "@duration").last("5m") < 5';
    const plan = translateMonitor(readMonitor({ name: 'm', type: 'log alert', query, message: '@webhook-ops', options: { thresholds: { critical: 5 } } }), 'f', SOURCES, webhooks, 0);
    expect(plan.notes).toEqual(expect.arrayContaining([expect.stringMatching(/^HyperDX counts an interval without data as 0/)]));
  });

  // rendered comparison: Datadog alerts on consecutive CRITICAL runs only; an UNKNOWN run (status 3) leaves the monitor OK
  it('a service check monitor alerts on the CRITICAL status, and says an UNKNOWN one alerts too', () => {
    const check = (critical: number) => readMonitor({ name: 'm', type: 'service check', query: '"consul.check".over("*").by("host").last(3).count_by_status()', message: '@webhook-ops', options: { thresholds: { critical, ok: 1 } } });
    const once = translateMonitor(check(1), 'f', SOURCES, webhooks, 0);
    expect(once.alert).toMatchObject({ thresholdType: 'above', threshold: 2, interval: '1m' });
    expect(once.notes).toEqual([expect.stringMatching(/UNKNOWN.* also meets/)]);
    expect(once.outcome).toBe('partial');
    const twice = translateMonitor(check(2), 'f', SOURCES, webhooks, 0);
    expect(twice.alert).toMatchObject({ numConsecutiveWindows: 2 });
    expect(twice.notes).toEqual(expect.arrayContaining([expect.stringMatching(/UNKNOWN.* also meets/), '2 consecutive CRITICAL checks became 2 consecutive 1m windows with a CRITICAL status']));
  });

  it('a formula of log queries becomes a tile of their selects and the formula, and an alert on it', () => {
    const query = (name: string, search: string) => ({ name, data_source: 'logs', search: { query: search }, indexes: ['*'], group_by: [{ facet: '@recipe', limit: 10 }], compute: { aggregation: 'count' } });
    const options = { thresholds: { critical: 10 }, variables: [query('query', 'service:jobs status:error'), query('query1', 'service:jobs')] };
    const plan = translateMonitor(readMonitor({ name: 'm', type: 'log alert', query: 'formula("(query / query1) * 100").last("1h") > 10', message: '@webhook-ops', options }), 'f', SOURCES, webhooks, 0);
    expect(plan.outcome).toBe('partial');
    expect(plan.target).toMatchObject({
      kind: 'tile',
      tile: { config: { sourceId: 'l1', select: [{ aggFn: 'count', where: expect.stringContaining('SeverityText:"error"') }, { aggFn: 'count' }], formulas: [{ expression: '(A / B) * 100' }], groupBy: "LogAttributes['recipe']" } },
    });
    expect(plan.alert).toMatchObject({ source: 'tile', interval: '1h', threshold: 10, thresholdType: 'above_exclusive' });
    expect(plan.notes).toEqual(expect.arrayContaining([expect.stringMatching(/group limit of 10 .*dropped/)]));
  });

  it('a log formula monitor without its queries is skipped with the reason', () => {
    const plan = translateMonitor(readMonitor({ name: 'm', type: 'log alert', query: 'formula("query / query1").last("1h") > 10', message: '@webhook-ops', options: {} }), 'f', SOURCES, webhooks, 0);
    expect(plan.outcome).toBe('skipped');
    expect(plan.notes.join('\n')).toContain('options.variables');
  });

  it('a log monitor becomes a saved search and its alert', () => {
    const plan = translateMonitor(monitor('logs("service:web status:error").index("*").rollup("count").last("15m") > 100', '@webhook-ops', 'log alert'), 'f', SOURCES, webhooks, 0);
    expect(plan.target).toMatchObject({ kind: 'search', search: { where: '(ServiceName:"web" SeverityText:"error") AND -LogAttributes.datadog.event.title:*', sourceId: 'l1' } });
    expect(plan.alert).toMatchObject({ source: 'saved_search', interval: '15m', threshold: 90 });
  });

  it('an unmapped handle is reported and, without a fallback, no alert is made', () => {
    const plan = translateMonitor(monitor('avg(last_5m):avg:x{*} > 90', '@slack-team'), 'f', SOURCES, webhooks, 0);
    expect(plan.alert).toBeUndefined();
    expect(plan.notes).toEqual(expect.arrayContaining(['notification @slack-team not mapped (give it in --notify-map, or --webhook slack-team=ID)']));
  });

  it.each([
    ["avg(last_1h):anomalies(avg:x{*}, 'basic', 2) >= 1", 'anomalies() monitors have no HyperDX equivalent'],
    ['avg(last_1h):forecast(avg:x{*}, linear, 1) >= 1', 'forecast() monitors have no HyperDX equivalent'],
  ])('%s is skipped with the reason', (query, reason) => {
    const plan = translateMonitor(monitor(query), 'f', SOURCES, webhooks, 0);
    expect(plan.outcome).toBe('skipped');
    expect(plan.notes.join('\n')).toContain(reason);
  });

  it('finds handles, e-mail addresses included', () => {
    expect(handlesOf('Check it. @webhook-ops @slack-team-alerts\n`@pagerduty-db` mail @someone@example.com.')).toEqual(['webhook-ops', 'slack-team-alerts', 'pagerduty-db', 'someone@example.com']);
  });
});

describe('APM span queries (issue 37: a trace source)', () => {
  const SPANS = { ...SOURCES, trace: 't1' };
  const spanWidget = (query: string, extra: Record<string, unknown> = {}) => ({
    type: 'toplist',
    title: 's',
    requests: [{ response_format: 'scalar', queries: [{ name: 'query1', data_source: 'spans', search: { query }, compute: { aggregation: 'count' }, group_by: [{ facet: 'service', limit: 10 }], ...extra }], formulas: [{ formula: 'query1' }] }],
  });

  it('read the trace source: span fields where the traces translation writes them, values matched exactly', () => {
    const tile = widgetTile(spanWidget('env:prod resource_name:"GET /users" operation_name:http.request status:error @http.status_code:500'), NO_VARS, SPANS);
    expect(tile.status).toBe('exact');
    expect(tile.config).toEqual({
      displayType: 'bar',
      sourceId: 't1',
      select: [
        {
          aggFn: 'count',
          where: '(ResourceAttributes.deployment.environment.name:"prod" SpanAttributes.dd.span.Resource:"GET /users" SpanAttributes.datadog.span.name:"http.request" StatusCode:"Error" SpanAttributes.http.status_code:"500") AND ServiceName:*',
          whereLanguage: 'lucene',
        },
      ],
      // a span's own service: an integration span's is datadog.service, its process's ServiceName
      groupBy: "if(SpanAttributes['datadog.service'] != '', SpanAttributes['datadog.service'], ServiceName)",
    });
  });

  it("service:x is the span's own service, exactly", () => {
    const tile = widgetTile(spanWidget('service:shop-postgres'), NO_VARS, SPANS);
    expect((tile.config.select as { where: string }[])[0]!.where).toBe('((SpanAttributes.datadog.service:"shop-postgres" OR (ServiceName:"shop-postgres" AND NOT SpanAttributes.datadog.service:*))) AND ServiceName:*');
  });

  it('a duration measure reads the Duration column (ns, as Datadog)', () => {
    const tile = widgetTile(spanWidget('*', { compute: { aggregation: 'pc99', metric: '@duration' } }), NO_VARS, SPANS);
    expect(tile.config.select).toEqual([{ aggFn: 'quantile', level: 0.99, valueExpression: 'Duration', where: 'ServiceName:*', whereLanguage: 'lucene' }]);
  });

  it('a trace stream becomes a search over the trace source', () => {
    const tile = widgetTile({ type: 'list_stream', title: 'l', requests: [{ query: { data_source: 'trace_stream', query_string: '@_top_level:1 status:ok' } }] }, NO_VARS, SPANS);
    expect(tile.config).toEqual({ displayType: 'search', sourceId: 't1', select: '', where: 'SpanAttributes._dd.top_level:"1" (NOT StatusCode:"Error")', whereLanguage: 'lucene' });
  });

  it('without a trace source, the widget is dropped and says to give one', () => {
    const tile = widgetTile(spanWidget('*'), NO_VARS, SOURCES);
    expect(tile.status).toBe('dropped');
    expect(tile.notes).toEqual(['s: a spans query needs a trace source (the instance has not exactly one: give --trace-source)']);
  });

  it('a trace-analytics monitor becomes a saved search over the trace source and its alert', () => {
    const plan = searchMonitorPlan('trace-analytics alert', 'trace-analytics("service:web status:error").rollup("count").last("5m") > 10', SPANS);
    expect(plan.target).toMatchObject({ kind: 'search', search: { sourceId: 't1', where: '(SpanAttributes.datadog.service:"web" OR (ServiceName:"web" AND NOT SpanAttributes.datadog.service:*)) StatusCode:"Error"' } });
    expect(plan.alert).toMatchObject({ source: 'saved_search', interval: '5m', threshold: 10, thresholdType: 'above_exclusive' });
  });
});

describe('Datadog events (issue 37 item 4: log records of the Logs source)', () => {
  it('an events query counts the event records its search matches, fields where the events translation writes them', () => {
    const tile = widgetTile(
      { type: 'query_value', title: 'e', requests: [{ response_format: 'scalar', queries: [{ name: 'query1', data_source: 'events', search: { query: 'source:steadybit status:error execution_state:failed' }, compute: { aggregation: 'count' } }] }] },
      NO_VARS,
      SOURCES,
    );
    expect(tile.status).toBe('exact');
    expect(tile.config).toEqual({
      displayType: 'number',
      sourceId: 'l1',
      select: [{ aggFn: 'count', where: '(LogAttributes.datadog.event.source_type_name:"steadybit" SeverityText:"error" LogAttributes.execution_state:"failed") AND LogAttributes.datadog.event.title:*', whereLanguage: 'lucene' }],
    });
  });

  it("events split by status: success is drawn as the bridge's info, said", () => {
    const tile = widgetTile(
      { type: 'timeseries', title: 'runs', requests: [{ response_format: 'timeseries', queries: [{ name: 'query1', data_source: 'events', search: { query: 'census.syncs.completed' }, compute: { aggregation: 'count' }, group_by: [{ facet: 'status' }] }] }] },
      NO_VARS,
      SOURCES,
    );
    expect(tile.status).toBe('approximated');
    expect(tile.notes).toContain("runs: an event's success and info are one level in the bridge (info): split by status, success is drawn as info");
  });

  it("an event's success is the bridge's info: said", () => {
    const tile = widgetTile({ type: 'event_stream', title: 'stream', query: 'status:success source:isdown' }, NO_VARS, SOURCES);
    expect(tile.config).toEqual({ displayType: 'search', sourceId: 'l1', select: '', where: '(SeverityText:"info" LogAttributes.datadog.event.source_type_name:"isdown") AND LogAttributes.datadog.event.title:*', whereLanguage: 'lucene' });
    expect(tile.notes).toEqual(["stream: an event's success and info are one level in the bridge (info): either matches both"]);
  });
});

it('an event monitor becomes a saved search over the event records of the Logs source and its alert', () => {
  const plan = searchMonitorPlan('event-v2 alert', 'events("status:error source:seagence").rollup("count").last("5m") > 0', SOURCES);
  expect(plan.target).toMatchObject({ kind: 'search', search: { sourceId: 'l1', where: '(SeverityText:"error" LogAttributes.datadog.event.source_type_name:"seagence") AND LogAttributes.datadog.event.title:*' } });
  expect(plan.alert).toMatchObject({ source: 'saved_search', interval: '5m', threshold: 0, thresholdType: 'above_exclusive' });
});
