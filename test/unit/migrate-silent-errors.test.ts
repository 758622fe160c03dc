/**
 * The silent mistranslations issue 37 found (a tile-by-tile audit of public dashboards and
 * monitors), each pinned here: every construct is translated exactly, approximated with the
 * approximation stated, or dropped with its reason. Hand-made queries in the shape of the
 * audited ones; the whole-file goldens are migrate-golden.test.ts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateCommand } from '../../tools/src/migrate/cli';
import { spanSearch, translateLogSearch, translateSearch } from '../../tools/src/migrate/log-search';
import { translateDashboard, widgetTile } from '../../tools/src/migrate/dashboards';
import { readDashboard, readMonitor } from '../../tools/src/migrate/datadog';
import { translateMonitor } from '../../tools/src/migrate/monitors';
import type { TileInput } from '../../tools/src/migrate/plan';
import { DEFAULT_SETTINGS, defaultsContext } from '../../tools/src/migrate/series';

const SOURCES = { metric: 'm1', log: 'l1' };
const NO_VARS = defaultsContext([]);
const WEBHOOKS = { byHandle: new Map([['pagerduty-ops', 'w-pd']]), fallback: 'w-default' };

type Select = { aggFn: string; level?: number; metricName?: string; metricType?: string; where: string };
const selectsOf = (config: Record<string, unknown>): Select[] => config.select as Select[];

describe('1. a formula whose parts split differently', () => {
  it('is dropped with the reason, not divided group by group', () => {
    const tile = widgetTile({ type: 'timeseries', title: 'Requests by status (%)', requests: [{ q: '100 * sum:app.requests{*} by {status_code}.as_count() / sum:app.requests{*}.as_count()' }] }, NO_VARS, SOURCES);
    expect(tile.migrated).toBe(false);
    expect(tile.notes.join()).toContain('one group-by');
  });

  it('the same in the queries-and-formulas form', () => {
    const tile = widgetTile(
      {
        type: 'timeseries',
        title: 'Share',
        requests: [
          {
            queries: [
              { name: 'a', data_source: 'metrics', query: 'sum:app.requests{*} by {status_code}.as_count()' },
              { name: 'b', data_source: 'metrics', query: 'sum:app.requests{*}.as_count()' },
            ],
            formulas: [{ formula: 'a / b' }],
          },
        ],
      },
      NO_VARS,
      SOURCES,
    );
    expect(tile.migrated).toBe(false);
  });
});

describe('2. APM percentile metrics', () => {
  it('trace.<op>.duration.by.service.90p is the 0.9 quantile of the duration histogram, stated', () => {
    const tile = widgetTile({ type: 'timeseries', title: 'p90', requests: [{ q: 'avg:trace.flask.request.duration.by.service.90p{service:web}' }] }, NO_VARS, SOURCES);
    expect(tile.migrated).toBe(true);
    expect(selectsOf(tile.config)[0]).toMatchObject({ aggFn: 'quantile', level: 0.9, metricName: 'dd.trace.duration', metricType: 'histogram' });
    expect(tile.notes.join()).toContain('quantile');
  });

  it('an aggregation HyperDX cannot take of a histogram (avg of the duration) is dropped, not sent to fail', () => {
    const tile = widgetTile({ type: 'timeseries', title: 'dur', requests: [{ q: 'max:trace.flask.request.duration{*}' }] }, NO_VARS, SOURCES);
    expect(tile.migrated).toBe(false);
  });
});

describe('3. template variables in log searches', () => {
  const variables = [{ name: 'vercel_url', prefix: 'url', defaults: ['shop.vercel.app'], availableValues: [] }];
  it('take their default instead of staying as literal text', () => {
    const tile = widgetTile({ type: 'timeseries', title: 'Errors', requests: [{ queries: [{ name: 'q', data_source: 'logs', search: { query: 'status:error $vercel_url' }, compute: { aggregation: 'count' } }] }] }, defaultsContext(variables), SOURCES);
    expect(selectsOf(tile.config)[0]!.where).not.toContain('$vercel_url');
    expect(selectsOf(tile.config)[0]!.where).toContain('shop.vercel.app');
  });
});

describe('4. metrics the bridge never writes, and one metric read from two tables', () => {
  it('trace.<op>.errors.by_http_status reads the APM errors the bridge writes', () => {
    const tile = widgetTile({ type: 'timeseries', title: 'e', requests: [{ q: 'sum:trace.rack.request.errors.by_http_status{*} by {http.status_code}.as_count()' }] }, NO_VARS, SOURCES);
    expect(selectsOf(tile.config)[0]).toMatchObject({ metricName: 'dd.trace.errors', metricType: 'sum' });
  });

  it('an APM metric the bridge does not derive is dropped', () => {
    const tile = widgetTile({ type: 'timeseries', title: 'apdex', requests: [{ q: 'avg:trace.rack.request.apdex.by.service{*}' }] }, NO_VARS, SOURCES);
    expect(tile.migrated).toBe(false);
  });

  it('a metric counted with .as_count() anywhere in the dashboard is read from the sum table everywhere', () => {
    const plan = translateDashboard(
      readDashboard({
        title: 'nginx',
        layout_type: 'ordered',
        widgets: [{ definition: { type: 'timeseries', title: 'counted', requests: [{ q: 'sum:nginx.requests{*}.as_count()' }] } }, { definition: { type: 'query_value', title: 'bare', requests: [{ q: 'sum:nginx.requests{*}' }] } }],
      }),
      'f.json',
      SOURCES,
    );
    const types = (plan.body.tiles as TileInput[]).filter((t) => t.config?.displayType !== 'markdown').map((t) => selectsOf(t.config as Record<string, unknown>)[0]!.metricType);
    expect(types).toEqual(['sum', 'sum']);
  });
});

describe('5. monitor messages', () => {
  it('are converted to the alert template language; handles leave the text', () => {
    const monitor = readMonitor({
      id: 1,
      name: 'Host down',
      type: 'query alert',
      query: 'avg(last_5m):avg:system.load.1{*} by {host} > 4',
      message: '{{#is_alert}}Load {{value}} on {{host.name}} above {{threshold}}{{/is_alert}}{{#is_recovery}}back{{/is_recovery}} @pagerduty-ops',
      options: {},
    });
    const plan = translateMonitor(monitor, 'f', SOURCES, WEBHOOKS, 0);
    const message = plan.alert?.message ?? '';
    expect(message).not.toMatch(/\{\{host\.name\}\}|@pagerduty|is_alert|is_recovery/);
    expect(message).toContain('{{value}}');
    expect(message).toContain('{{alert.threshold}}');
    expect(plan.alert?.channel).toEqual({ type: 'webhook', webhookId: 'w-pd' });
  });
});

describe('6. two monitors with one name', () => {
  it('get tiles of their own', () => {
    const make = (id: number) => translateMonitor(readMonitor({ id, name: 'Same', type: 'query alert', query: 'avg(last_5m):avg:x{*} > 1', message: '', options: {} }), 'f', SOURCES, WEBHOOKS, id);
    const [a, b] = [make(1), make(2)];
    expect(a.target?.kind === 'tile' && b.target?.kind === 'tile' && a.target.tile.name !== b.target.tile.name).toBe(true);
    expect(a.marker).not.toBe(b.marker);
  });
});

describe('7. grouped status values', () => {
  it('keep their boolean operators', () => {
    expect(translateLogSearch('status:(error OR warn)')).toBe('(SeverityText:"error" OR SeverityText:"warn")');
  });
});

describe('8. what was dropped without a word', () => {
  const monitor = (query: string, options: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => translateMonitor(readMonitor({ id: 7, name: 'm', type: 'query alert', query, message: 'x', options, ...extra }), 'f', SOURCES, WEBHOOKS, 0);

  it('a below alert fires on no data in HyperDX: said', () => {
    expect(monitor('last(last_5m):avg:x{*} < 5').notes.join()).toContain('no data');
  });

  it('renotify, the escalation message and tags are said', () => {
    const notes = monitor('last(last_5m):avg:x{*} > 5', { renotify_interval: 30, escalation_message: 'still bad' }, { tags: ['team:db'] }).notes.join('\n');
    expect(notes).toContain('renotify');
    expect(notes).toContain('escalation');
    expect(notes).toContain('team:db');
  });

  it('top() inside a timeseries keeps its limit and says how it ranks', () => {
    const tile = widgetTile({ type: 'timeseries', title: 't', requests: [{ q: "top(avg:x{*} by {host}, 5, 'mean', 'desc')" }] }, NO_VARS, SOURCES);
    expect(tile.config.seriesLimit).toBe(5);
    expect(tile.notes.join()).toContain('mean');
  });

  it("a toplist's ascending order is kept or said", () => {
    const tile = widgetTile({ type: 'toplist', title: 't', requests: [{ q: "top(avg:x{*} by {host}, 10, 'mean', 'asc')" }] }, NO_VARS, SOURCES);
    expect(tile.notes.join()).toContain('asc');
  });

  it("a query_value's aggregator is said when HyperDX computes another", () => {
    const tile = widgetTile({ type: 'query_value', title: 'v', requests: [{ q: 'avg:x{*}', aggregator: 'max' }] }, NO_VARS, SOURCES);
    expect(tile.notes.join()).toContain('max');
  });
});

describe('found by drawing the held-out dashboards (integrations-extras)', () => {
  const logQuery = (compute: { aggregation: string; metric?: string }, groupBy: string[] = []) => ({
    type: 'toplist',
    title: 'unique',
    requests: [{ response_format: 'scalar', queries: [{ name: 'q', data_source: 'logs', search: { query: 'source:app' }, compute, group_by: groupBy.map((facet) => ({ facet, limit: 10 })) }], formulas: [{ formula: 'q' }] }],
  });

  it('a unique count of host counts the hosts (the resource), not an attribute named host', () => {
    const tile = widgetTile(logQuery({ aggregation: 'cardinality', metric: 'host' }), NO_VARS, SOURCES);
    const [select] = selectsOf(tile.config) as (Select & { valueExpression: string })[];
    expect(select!.valueExpression).toBe("ResourceAttributes['host.name']");
    expect(select!.where).toContain('ResourceAttributes.host.name:*');
  });

  it('a negated value in a field group is a negated term, not the value "-v" (vercel: @proxy.vercelCache:(-MISS))', () => {
    expect(translateLogSearch('@proxy.vercelCache:(-MISS)', [])).toBe('(-LogAttributes.proxy.vercelCache:"MISS")');
  });

  it('a run of * is one wildcard (jfrog: @http.status_code:4**), which HyperDX would read as the text 4*', () => {
    const notes: string[] = [];
    expect(translateLogSearch('@http.status_code:4**', notes)).toBe('LogAttributes.http.status_code:4*');
    expect(notes.join()).toContain('containing "4"');
  });

  it("an average of a measure says that HyperDX reads a value that is not a number as 0 (zscaler's scan time); a sum does not need to", () => {
    expect(widgetTile(logQuery({ aggregation: 'avg', metric: '@zscaler.scantime' }), NO_VARS, SOURCES).notes.join()).toContain('is not a number is read as 0');
    expect(widgetTile(logQuery({ aggregation: 'sum', metric: '@zscaler.scantime' }), NO_VARS, SOURCES).notes.join()).not.toContain('not a number');
  });

  it("free text with a wildcard at one end says that HyperDX matches the whole message (vercel's START*)", () => {
    const notes: string[] = [];
    expect(translateLogSearch('source:vercel START*', notes)).toBe('LogAttributes.datadog.ddsource:"vercel" START*');
    expect(notes.join()).toContain('the free text START* is matched against the whole message');
    const contains: string[] = [];
    translateLogSearch('*timeout*', contains);
    expect(contains).toEqual([]);
  });

  it('a log query leaves out the events, which share the logs table in the bridge', () => {
    const tile = widgetTile(logQuery({ aggregation: 'count' }), NO_VARS, SOURCES);
    expect(selectsOf(tile.config)[0]!.where).toBe('(LogAttributes.datadog.ddsource:"app") AND -LogAttributes.datadog.event.title:*');
    const stream = widgetTile({ type: 'list_stream', title: 'all', requests: [{ query: { data_source: 'logs_stream', query_string: '' } }] }, NO_VARS, SOURCES);
    expect(stream.config.where).toBe('-LogAttributes.datadog.event.title:*');
  });

  it('a sunburst keeps its top 10 slices, as a top list keeps its bars', () => {
    const def = { ...logQuery({ aggregation: 'count' }, ['@asset_key']), type: 'sunburst' };
    def.requests[0] = { ...def.requests[0]!, sort: { count: 10, order_by: [{ type: 'formula', index: 0, order: 'desc' }] } } as (typeof def.requests)[0];
    const tile = widgetTile(def, NO_VARS, SOURCES);
    expect(tile.config).toMatchObject({ displayType: 'pie', limit: 10 });
  });

  it("an event without a service tag is drawn under its source type's service: said where events are split or searched by service", () => {
    const events = (query: string, facets: string[]) => {
      const def = logQuery({ aggregation: 'count' }, facets);
      def.requests[0]!.queries[0]!.data_source = 'events';
      def.requests[0]!.queries[0]!.search.query = query;
      return widgetTile(def, NO_VARS, SOURCES).notes.join('\n');
    };
    expect(events('source:dr-droid', ['service'])).toContain('an event without a service tag is filed under its source type');
    expect(events('service:web', [])).toContain('service:web also matches the events of source web');
    expect(events('source:dr-droid', ['host'])).not.toContain('service tag');
  });
});

describe('found by drawing every integrations-core dashboard', () => {
  const logWidget = (title: string, query: string, facets: string[] = []) => ({
    definition: {
      type: 'query_value',
      title,
      requests: [{ response_format: 'scalar', queries: [{ name: 'q', data_source: 'logs', search: { query }, compute: { aggregation: 'count' }, group_by: facets.map((facet) => ({ facet })) }], formulas: [{ formula: 'q' }] }],
    },
  });

  it("a key named both as a tag and as an attribute is one field in the bridge: said on each tile naming it (plivo's message_type and @message_type)", () => {
    const dashboard = readDashboard({
      title: 'messages',
      layout_type: 'ordered',
      widgets: [logWidget('WhatsApp', 'source:plivo message_type:whatsapp'), logWidget('Not WhatsApp', 'source:plivo -@message_type:whatsapp'), logWidget('By type', 'source:plivo', ['@message_type']), logWidget('Other', 'source:plivo @message_state:sent')],
    });
    const plan = translateDashboard(dashboard, 'messages.json', SOURCES);
    const said = plan.widgets.map((w) => w.notes.some((n) => n.startsWith('the tag message_type and the attribute @message_type are one field in the bridge')));
    expect(said).toEqual([true, true, true, false]);
    expect(plan.widgets.slice(0, 3).map((w) => w.status)).toEqual(['approximated', 'approximated', 'approximated']);
  });

  const metricWidget = (type: string, query: string, extra: Record<string, unknown> = {}) => ({
    definition: { type, title: query, requests: [{ response_format: 'scalar', queries: [{ name: 'q', data_source: 'metrics', query, aggregator: 'sum' }], formulas: [{ formula: 'q', ...extra }] }] },
  });

  it("a metric the dashboard reads a percentile of is a distribution: its count: reads the sketches' table (langchain's request.duration)", () => {
    const plan = translateDashboard(readDashboard({ title: 'd', layout_type: 'ordered', widgets: [metricWidget('timeseries', 'p95:app.request.duration{*}'), metricWidget('timeseries', 'count:app.request.duration{*}.as_count()')] }), 'd.json', SOURCES);
    expect(selectsOf(plan.body.tiles[1]!.config as Record<string, unknown>)[0]).toMatchObject({ aggFn: 'count', metricName: 'app.request.duration', metricType: 'exponential histogram' });
  });

  it("a pie keeping its largest slices of a histogram's count is ordered by the count, which HyperDX's histogram query can order by", () => {
    const def = metricWidget('sunburst', 'count:app.request.duration{*} by {type}.as_count()', { limit: { count: 500, order: 'desc' } });
    const plan = translateDashboard(readDashboard({ title: 'd', layout_type: 'ordered', widgets: [metricWidget('timeseries', 'p95:app.request.duration{*}'), def] }), 'd.json', SOURCES);
    expect(plan.body.tiles[1]!.config).toMatchObject({ displayType: 'pie', limit: 500, orderBy: '`count(app.request.duration)` DESC' });
  });

  it("a span search's retained_by:retention_filter (databricks), which Datadog's backend sets and no stored span carries, is dropped and said", () => {
    const notes: string[] = [];
    const where = translateSearch('@_top_level:1 type:spark retained_by:retention_filter', spanSearch(DEFAULT_SETTINGS.semconv), notes);
    expect(where).not.toContain('retained_by');
    expect(notes.join()).toContain('retained_by:retention_filter dropped');
    expect(notes.join()).toContain('only when run with --keep-internal-tags');
  });

  it('a span search on @duration with a time unit (>5s, [1ms TO 2s]) compares the Duration column (ns) with nanoseconds', () => {
    const span = (q: string): string => translateSearch(q, spanSearch(DEFAULT_SETTINGS.semconv));
    expect(span('@duration:>5s')).toBe('Duration:>5000000000');
    expect(span('@duration:>=1.5s service:web')).toContain('Duration:>=1500000000');
    expect(span('@duration:[1ms TO 2s]')).toBe('Duration:[1000000 TO 2000000000]');
    expect(span('@duration:{250us TO 1m}')).toBe('Duration:{250000 TO 60000000000}');
    expect(span('@duration:<100ms')).toBe('Duration:<100000000');
    // a bare number is nanoseconds already
    expect(span('@duration:>500000000')).toBe('Duration:>500000000');
    expect(() => span('@duration:>5parsecs')).toThrow(/duration unit/);
  });

  it('a span measure of @duration (avg, p95, max) reads the Duration column, which every span has, without asking HyperDX that it exists (notEmpty of a UInt64 fails)', () => {
    const spanWidget = (aggregation: string) => ({
      definition: {
        type: 'timeseries',
        requests: [{ response_format: 'timeseries', queries: [{ data_source: 'spans', name: 'q', compute: { aggregation, metric: '@duration' }, group_by: [{ facet: 'resource_name', limit: 10 }], search: { query: 'service:web' } }] }],
      },
    });
    const plan = translateDashboard(readDashboard({ title: 'd', layout_type: 'ordered', widgets: ['avg', 'pc95', 'max'].map(spanWidget) }), 'd.json', { ...SOURCES, trace: 't1' }, DEFAULT_SETTINGS);
    const wheres = (plan.body.tiles as TileInput[]).filter((t) => t.config?.displayType !== 'markdown').map((t) => selectsOf(t.config as Record<string, unknown>)[0]!.where);
    expect(wheres).toHaveLength(3);
    for (const where of wheres) {
      expect(where).not.toContain('Duration:*');
      expect(where).toContain('SpanAttributes.dd.span.Resource:*');
    }
    expect(translateSearch('@duration:* service:web', spanSearch(DEFAULT_SETTINGS.semconv))).not.toContain('Duration:*');
  });

  it("a span search's span_id (Datadog's decimal id) matches the SpanId column, which holds it in hex", () => {
    const span = (q: string): string => translateSearch(q, spanSearch(DEFAULT_SETTINGS.semconv));
    expect(span('span_id:123')).toBe('SpanId:"000000000000007b"');
    expect(span('span_id:18446744073709551615')).toBe('SpanId:"ffffffffffffffff"');
  });

  it("a percentile of a metric listed as a count says that Datadog draws it only for a distribution (kong's p95 of a count)", () => {
    const settings = { ...DEFAULT_SETTINGS, metricTypes: new Map([['app.requests', 'count' as const]]) };
    const plan = translateDashboard(readDashboard({ title: 'd', layout_type: 'ordered', widgets: [metricWidget('timeseries', 'p95:app.requests{*}'), metricWidget('timeseries', 'p95:app.latency{*}')] }), 'd.json', SOURCES, settings);
    expect(plan.widgets.map((w) => w.notes.some((n) => n.includes('listed as a count, and Datadog computes percentiles of distributions only')))).toEqual([true, false]);
    expect(plan.widgets[0]!.status).toBe('approximated');
  });

  it.each([
    ['@severity:high', '(LogAttributes.severity:"high" OR SeverityText:"high")'],
    ['@level:WARNING', '(LogAttributes.level:"WARNING" OR SeverityText:"warn")'],
    ['-@status:error', 'NOT (LogAttributes.status:"error" OR SeverityText:"error")'],
    ['@hostname:web-1', '(LogAttributes.hostname:"web-1" OR ResourceAttributes.host.name:"web-1")'],
    ['@service:checkout', '(LogAttributes.service:"checkout" OR ServiceName:"checkout")'],
  ])("%s: an attribute the bridge takes for the log's own level, host or service is also matched there, and said", (query, where) => {
    const notes: string[] = [];
    expect(translateLogSearch(query, notes)).toBe(where);
    expect(notes.join()).toContain('by the bridge when it is the first of its group with a value');
  });

  it('a key named one way only says nothing', () => {
    const plan = translateDashboard(readDashboard({ title: 'm', layout_type: 'ordered', widgets: [logWidget('a', 'source:plivo @message_type:sms'), logWidget('b', 'source:plivo', ['@message_type'])] }), 'm.json', SOURCES);
    expect(plan.widgets.flatMap((w) => w.notes).filter((n) => n.includes('one field in the bridge'))).toEqual([]);
  });
});

describe('issue 33 item 8: one bad dashboard file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'migrate-bad-'));
  const group = '{"definition":{"type":"group","widgets":[';
  writeFileSync(join(dir, 'a-deep.json'), `{"title":"deep","layout_type":"ordered","widgets":[${group.repeat(5000)}{"definition":{"type":"note","content":"x"}}${']}}'.repeat(5000)}]}`);
  const many = Array.from({ length: 130_000 }, (_, i) => ({ definition: { type: 'timeseries', requests: [{ q: 'avg:a.b{*}' }] }, layout: { x: 0, y: i, width: 4, height: 2 } }));
  writeFileSync(join(dir, 'b-wide.json'), JSON.stringify({ title: 'wide', layout_type: 'free', widgets: many }));
  writeFileSync(join(dir, 'c-ok.json'), JSON.stringify({ title: 'ok', layout_type: 'ordered', widgets: [{ definition: { type: 'timeseries', requests: [{ q: 'avg:a.b{*}' }] } }] }));

  it('fails only that item, naming the file and the limit; the others go on', async () => {
    let out = '';
    let err = '';
    const status = await migrateCommand(
      ['dashboards', dir, '--dry-run'],
      {},
      {
        out: (t) => {
          out += t;
        },
        err: (t) => {
          err += t;
        },
        stdin: () => '',
      },
    );
    expect(err).toMatch(/a-deep\.json: .*nest.*at most/);
    expect(err).toMatch(/b-wide\.json: .*130000 widgets.*at most/);
    expect(out).toContain('"ok"');
    expect(err).toContain('1 would apply');
    expect(status).toBe(2);
  });
});
