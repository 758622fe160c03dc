/**
 * `migrate --metric-types`: integrations-core metadata.csv files say which table each metric is
 * in (the sum table for a count, the gauge table for a gauge or a check's rate, the
 * exponential-histogram table for a distribution), where a Datadog query alone only hints at it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundledMetricTypes, NO_METRIC_TYPES, parseMetadataCsv, readMetricTypes } from '../../tools/src/migrate/metric-types';
import { parseMetricExpression } from '../../tools/src/migrate/metric-query';
import { addExpression, DEFAULT_SETTINGS, defaultsContext, emptySeries } from '../../tools/src/migrate/series';

const POSTGRES = join(__dirname, '..', 'fixtures', 'migrate', 'metadata', 'postgres-metadata.csv');

/** The table the first select of `query` reads, with the postgres check's types known or not. */
function tableOf(query: string, metricTypes = DEFAULT_SETTINGS.metricTypes): string | undefined {
  const series = emptySeries();
  addExpression(series, parseMetricExpression(query), defaultsContext([], { ...DEFAULT_SETTINGS, metricTypes }));
  return series.selects[0]?.metricType;
}

describe('metadata.csv', () => {
  it("reads the postgres check's types, quoted descriptions with commas included", () => {
    const types = parseMetadataCsv(readFileSync(POSTGRES, 'utf8'), 'postgres-metadata.csv');
    expect(types.size).toBe(26);
    expect(types.get('postgresql.connections')).toBe('gauge');
    expect(types.get('postgresql.buffer_hit')).toBe('gauge');
    expect(types.get('postgresql.deadlocks.count')).toBe('count');
    expect(types.get('postgresql.bgwriter.sync_time')).toBe('count');
  });

  it('reads doubled quotes, line breaks in quotes and CRLF records', () => {
    const text = 'metric_type,metric_name,description\r\nrate,a.rate,"says ""hi"",\nover two lines"\r\ndistribution,a.dist,x\r\n';
    expect([...parseMetadataCsv(text, 'f.csv')]).toEqual([
      ['a.rate', 'rate'],
      ['a.dist', 'distribution'],
    ]);
  });

  it.each([
    ['a file without the columns', 'name,type\na,gauge\n', 'f.csv: not an integrations-core metadata.csv (its header has no metric_name and metric_type columns)'],
    ['an unknown type, with its record', 'metric_name,metric_type\na,gauge\nb,counter\n', 'f.csv: record 3 (b): metric_type "counter" is none of gauge, count, rate, distribution'],
    ['an unclosed quote', 'metric_name,metric_type\n"a,gauge\n', 'f.csv: a quoted field is not closed'],
  ])('refuses %s', (_what, text, message) => {
    expect(() => parseMetadataCsv(text, 'f.csv')).toThrow(message);
  });

  it('reads every metadata.csv under a directory; a missing path is named', () => {
    const dir = mkdtempSync(join(tmpdir(), 'metric-types-'));
    writeFileSync(join(dir, 'metadata.csv'), readFileSync(POSTGRES));
    expect(readMetricTypes([dir]).get('postgresql.bgwriter.checkpoints_timed')).toBe('count');
    expect(() => readMetricTypes([join(dir, 'nope')])).toThrow(`--metric-types ${join(dir, 'nope')}: ENOENT`);
  });
});

describe('the table a query reads', () => {
  const types = readMetricTypes([POSTGRES]);

  it('a count metric queried without .as_count() reads the sum table once its type is known', () => {
    expect(tableOf('avg:postgresql.bgwriter.checkpoints_timed{*}', NO_METRIC_TYPES)).toBe('gauge');
    expect(tableOf('avg:postgresql.bgwriter.checkpoints_timed{*}', types)).toBe('sum');
  });

  it("a known gauge stays in the gauge table whatever the query's methods say", () => {
    expect(tableOf('sum:postgresql.connections{*}.as_count()', NO_METRIC_TYPES)).toBe('sum');
    expect(tableOf('sum:postgresql.connections{*}.as_count()', types)).toBe('gauge');
  });

  it("integrations-core's types are known without --metric-types, and agree with the check's own file", () => {
    const bundled = bundledMetricTypes();
    expect(bundled.size).toBe(31_357);
    expect(bundled.get('postgresql.bgwriter.checkpoints_timed')).toBe('count');
    expect(bundled.get('postgresql.connections')).toBe('gauge');
    expect(tableOf('avg:postgresql.bgwriter.checkpoints_timed{*}')).toBe('sum');
  });

  it("a check's rate reads the gauge table, a distribution the exponential-histogram table", () => {
    const more = new Map([
      ['postgresql.function.calls', 'rate'],
      ['request.latency', 'distribution'],
    ] as const);
    expect(tableOf('sum:postgresql.function.calls{*}.as_count()', more)).toBe('gauge');
    expect(tableOf('count:request.latency{*}', more)).toBe('exponential histogram');
  });
});
