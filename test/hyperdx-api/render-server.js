/**
 * Draws migrated tiles the way HyperDX draws them, with HyperDX's own code from the installed API
 * (test/hyperdx-api/setup.ts): one long-lived process, one JSON request a line on stdin, one JSON
 * reply a line on stdout, so thousands of tiles cost one start-up.
 *
 * A request is `{ id, tile, source, dateRange: [ms, ms], granularity, filters }`: `tile` as the
 * management API takes it (what `migrate` sends), `source` the tile's source as the API stores it.
 * Each step is HyperDX's:
 * 1. the API's own conversion of a tile into the dashboard it stores (`convertToInternalTileConfig`
 *    of the external API's dashboard utilities, loaded as the API itself runs: ts-node);
 * 2. the chart config the dashboard page builds from a stored tile and its source (connection,
 *    time column, table of the first select's metric type, metric tables, implicit column,
 *    dashboard filters), written out here: that page is UI code the API install does not hold;
 * 3. the display type's conversion: common-utils' number, table and categorical (bar, pie)
 *    conversions; for a line or stacked bar chart the time chart's (granularity, series limit,
 *    the range aligned to the granularity, end exclusive), written out here for the same reason;
 * 4. common-utils' ClickhouseClient.queryChartConfig, which renders and runs the query.
 * A search tile lists logs; it is asked for the count of the logs its search matches (its where,
 * through the same renderer), which is what the comparison needs of a list.
 * The reply is `{ id, rows, meta }` or `{ id, error }`. Run with the API's Node, from the API's
 * directory (`packages/api`), with `-r ts-node/register/transpile-only -r tsconfig-paths/register`;
 * the ClickHouse URL is its argument, the login RENDER_CLICKHOUSE_USER / RENDER_CLICKHOUSE_PASSWORD.
 */
'use strict';
const { join } = require('node:path');
const readline = require('node:readline');

const apiDir = process.cwd();
const commonUtils = join(apiDir, '..', 'common-utils', 'dist');
const { ClickhouseClient } = require(join(commonUtils, 'clickhouse', 'node.js'));
const { getMetadata } = require(join(commonUtils, 'core', 'metadata.js'));
const { convertToNumberChartConfig, convertToTableChartConfig, convertToCategoricalChartConfig, getAlignedDateRange } = require(join(commonUtils, 'core', 'utils.js'));
const { convertToInternalTileConfig } = require(join(apiDir, 'src', 'routers', 'external-api', 'v2', 'utils', 'dashboards.ts'));

const clickhouseUrl = process.argv[2];
// the read-only login HyperDX's connection uses, from the environment (not the command line)
const client = new ClickhouseClient({ host: clickhouseUrl, username: process.env.RENDER_CLICKHOUSE_USER, password: process.env.RENDER_CLICKHOUSE_PASSWORD });
const metadata = getMetadata(client);

/** The time chart's conversion (series limit only when positive; range aligned; end exclusive). */
function timeChart(config) {
  return {
    ...config,
    dateRange: getAlignedDateRange(config.dateRange, config.granularity),
    dateRangeEndInclusive: false,
    limit: { limit: 100000 },
    seriesLimit: typeof config.seriesLimit === 'number' && config.seriesLimit > 0 ? config.seriesLimit : undefined,
  };
}

/** A search tile as the count of what it lists. */
const searchCount = (config) => convertToNumberChartConfig({ ...config, select: [{ aggFn: 'count', aggCondition: '', aggConditionLanguage: 'lucene', valueExpression: '' }], orderBy: undefined });

const DISPLAY = {
  line: timeChart,
  stacked_bar: timeChart,
  number: convertToNumberChartConfig,
  table: convertToTableChartConfig,
  bar: convertToCategoricalChartConfig,
  pie: convertToCategoricalChartConfig,
  search: searchCount,
};

/** What the dashboard page queries for a stored tile over its source. */
function queriedConfig(saved, source, request) {
  const firstSelect = Array.isArray(saved.select) ? saved.select[0] : undefined;
  const metricType = source.kind === 'metric' ? firstSelect?.metricType : undefined;
  const tableName = metricType == null ? source.from.tableName : source.metricTables?.[metricType.toLowerCase()];
  const searchable = source.kind === 'log' || source.kind === 'trace';
  return {
    ...saved,
    connection: 'test',
    dateRange: request.dateRange.map((ms) => new Date(ms)),
    granularity: request.granularity,
    timestampValueExpression: source.timestampValueExpression,
    from: { databaseName: source.from.databaseName || 'default', tableName: tableName || '' },
    implicitColumnExpression: searchable ? source.implicitColumnExpression : undefined,
    bodyExpression: source.kind === 'log' ? source.bodyExpression : undefined,
    filters: request.filters ?? [],
    metricTables: source.kind === 'metric' ? source.metricTables : undefined,
  };
}

const BUCKET = '__hdx_time_bucket';
const isNumber = (type) => /Int|Float|Decimal/.test(type);

/**
 * A metric time chart's series limit, which its query does not apply (its CTE skips metric
 * sources): the time chart keeps the groups with the largest absolute value in any interval,
 * earlier groups first on a tie, written out here (UI code).
 */
function seriesCap(result, limit) {
  const groupCols = result.meta.filter((m) => m.name !== BUCKET && !isNumber(m.type)).map((m) => m.name);
  const valueCols = result.meta.filter((m) => m.name !== BUCKET && isNumber(m.type)).map((m) => m.name);
  const keyOf = (row) => JSON.stringify(groupCols.map((c) => row[c]));
  const peak = new Map();
  for (const row of result.data) {
    const key = keyOf(row);
    for (const c of valueCols) {
      const v = Math.abs(Number(row[c]));
      if (Number.isFinite(v)) peak.set(key, Math.max(peak.get(key) ?? 0, v));
      else if (!peak.has(key)) peak.set(key, 0);
    }
  }
  const first = [...peak.keys()];
  const kept = new Set([...first].sort((a, b) => peak.get(b) - peak.get(a) || first.indexOf(a) - first.indexOf(b)).slice(0, limit));
  return { ...result, data: result.data.filter((row) => kept.has(keyOf(row))) };
}

async function render(request) {
  const { config: saved } = convertToInternalTileConfig(request.tile);
  const convert = DISPLAY[saved.displayType];
  if (!convert) throw new Error(`a ${saved.displayType} tile is not drawn by this renderer`);
  const config = convert(queriedConfig(saved, request.source, request));
  let result = await client.queryChartConfig({ config, metadata, querySettings: undefined });
  if (convert === timeChart && request.source.kind === 'metric' && config.seriesLimit > 0 && config.groupBy) result = seriesCap(result, config.seriesLimit);
  return { rows: result.data, meta: result.meta };
}

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const request = JSON.parse(line);
  render(request)
    .then((reply) => process.stdout.write(`${JSON.stringify({ id: request.id, ...reply })}\n`))
    .catch((err) => process.stdout.write(`${JSON.stringify({ id: request.id, error: String(err?.message ?? err) })}\n`));
});
lines.on('close', () => process.exit(0));
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
