/**
 * Evaluates migrated alerts the way HyperDX's alert checker does, with its own code: the installed
 * API's `processAlert` (its checkAlerts task), loaded as the API runs it (ts-node), as
 * ./render-server.js loads the API's tile conversion. One long-lived process, one JSON request a
 * line on stdin, one JSON reply a line on stdout (./renderer.ts drives it, `script` argument).
 *
 * A request is `{ id, alert, tile | savedSearch, source, now }`: `alert` as the management API
 * takes it (interval, threshold, thresholdType, groupBy, numConsecutiveWindows), `tile` as the API
 * takes it (converted by the API's own `convertToInternalTileConfig`) or `savedSearch`
 * (`{ where, whereLanguage }`), `source` as the API stores it, `now` (ms) the time the check runs,
 * or `nows`: the times of successive checks, each reading the histories the ones before recorded
 * (a multi-window alert counts them).
 * `processAlert` builds the chart config of the alert's window and interval from the tile or the
 * saved search, runs it through common-utils' ClickhouseClient, compares each group's value in
 * each window with the threshold and records one history per group; the provider here keeps those
 * histories instead of writing them to MongoDB. The alert is silenced, so nothing is sent (the
 * checker still records the state it reached). With no previous history, the checker evaluates
 * the one window that ended at `now` rounded down to the interval.
 *
 * The reply is `{ id, rows, meta: [] }` or `{ id, error }`: a row per group the checker recorded,
 * `{ group, values, fromData, value, state }` (`values`: the group's columns in order, from the
 * query's rows, joined to the checker's group key as the checker forms it; `fromData`: whether the
 * query returned the group, or the checker recorded an empty window; `value` the last value it
 * recorded for the group).
 * Run as ./render-server.js is (the API's Node, from `packages/api`, ts-node and tsconfig-paths).
 */
'use strict';
const { join } = require('node:path');
const readline = require('node:readline');
const ms = require('ms');

const apiDir = process.cwd();
const commonUtils = join(apiDir, '..', 'common-utils', 'dist');
const { ClickhouseClient } = require(join(commonUtils, 'clickhouse', 'node.js'));
const { convertCHDataTypeToJSType, JSDataType } = require(join(commonUtils, 'clickhouse', 'index.js'));
const { convertToInternalTileConfig } = require(join(apiDir, 'src', 'routers', 'external-api', 'v2', 'utils', 'dashboards.ts'));
const { processAlert } = require(join(apiDir, 'src', 'tasks', 'checkAlerts', 'index.ts'));
const { AlertTaskType } = require(join(apiDir, 'src', 'tasks', 'checkAlerts', 'providers', 'index.ts'));

const clickhouseUrl = process.argv[2];
const client = new ClickhouseClient({ host: clickhouseUrl, username: process.env.RENDER_CLICKHOUSE_USER, password: process.env.RENDER_CLICKHOUSE_PASSWORD });

/** An ObjectId's hex form: the checker makes one of the alert's id for each history. */
const ALERT_ID = '0123456789abcdef01234567';
const SILENCED_UNTIL = new Date('2999-01-01T00:00:00Z');

/**
 * The group key the checker forms of a row (`column:value, …` of its columns that are neither the
 * value nor the time bucket), to join its histories to the rows' group values.
 */
function groupsOf(result) {
  const types = new Map(result.meta.map((m) => [m.name, convertCHDataTypeToJSType(m.type)]));
  const isGroup = (name) => types.get(name) !== JSDataType.Number && types.get(name) !== JSDataType.Date;
  const byKey = new Map();
  for (const row of result.data) {
    const fields = Object.entries(row).filter(([k]) => isGroup(k));
    byKey.set(
      fields.map(([k, v]) => `${k}:${v}`).join(', '),
      fields.map(([, v]) => `${v}`),
    );
  }
  return byKey;
}

/** The key the checker files a group's history under (computeHistoryMapKey: the alert id, `||`, the group). */
const historyKey = (group) => (group ? `${ALERT_ID}||${group}` : ALERT_ID);

/**
 * What the checker reads of the histories earlier checks recorded, as its MongoDB queries select
 * them (written out: they need the database): the latest per group (getPreviousAlertHistories),
 * and per group, newest first, those of the windows a multi-window alert looks back over
 * (getConsecutiveWindowHistories: from `numConsecutiveWindows - 1` windows before the current
 * one, errors left out).
 */
function previousOf(recorded, alert, windowStart) {
  const previousMap = new Map();
  const recentHistoryMap = new Map();
  const windowMs = ms(alert.interval);
  const earliest = windowStart.getTime() - ((alert.numConsecutiveWindows ?? 1) - 1) * windowMs;
  for (const h of [...recorded].sort((a, b) => b.createdAt - a.createdAt)) {
    const key = historyKey(h.group);
    if (!previousMap.has(key)) previousMap.set(key, h);
    if ((alert.numConsecutiveWindows ?? 1) > 1 && h.createdAt >= earliest && h.createdAt < windowStart.getTime() && h.state !== 'ERROR') recentHistoryMap.set(key, [...(recentHistoryMap.get(key) ?? []), h]);
  }
  return { previousMap, recentHistoryMap };
}

/** One check at `now` over the histories recorded before: the histories it records. */
async function checkOnce(request, now, recorded) {
  let queried = { data: [], meta: [] };
  const recording = Object.create(client);
  recording.queryChartConfig = async (args) => {
    queried = await client.queryChartConfig(args);
    return queried;
  };
  let histories;
  let errors = [];
  const provider = {
    updateAlertState: async (_id, written, executionErrors) => {
      histories = written;
      errors = executionErrors;
    },
    recordAlertErrors: async (_id, written) => {
      errors = written;
    },
  };
  const alert = { ...request.alert, id: ALERT_ID, source: request.tile ? 'tile' : 'saved_search', silenced: { at: new Date(0), until: SILENCED_UNTIL }, channel: { type: 'webhook' }, state: 'OK' };
  const windowStart = new Date(Math.floor(now / ms(alert.interval)) * ms(alert.interval));
  const common = { alert, ...previousOf(recorded, alert, windowStart), source: request.source };
  const details = request.tile
    ? { ...common, taskType: AlertTaskType.TILE, tile: { id: 'tile', ...convertToInternalTileConfig(request.tile) }, dashboard: { id: 'dashboard', filters: [] } }
    : { ...common, taskType: AlertTaskType.SAVED_SEARCH, savedSearch: { id: 'search', ...request.savedSearch } };
  await processAlert(new Date(now), details, recording, 'connection', provider, new Map());
  if (errors.length > 0) throw new Error(errors.map((e) => `${e.type}: ${e.message}`).join('; '));
  if (histories === undefined) throw new Error('the checker recorded no state (it failed before the comparison; the API logs say why)');
  return { histories: histories.map((h) => ({ ...h, group: h.group ?? '' })), groups: groupsOf(queried) };
}

/** The checks at `request.nows` (or once at `request.now`), in turn; the last one's groups. */
async function evaluate(request) {
  const recorded = [];
  let last;
  for (const now of request.nows ?? [request.now]) {
    last = await checkOnce(request, now, recorded);
    recorded.push(...last.histories);
  }
  return last.histories.map((h) => ({ group: h.group, values: last.groups.get(h.group) ?? [], fromData: last.groups.has(h.group), value: h.lastValues.at(-1)?.count ?? null, state: h.state }));
}

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const request = JSON.parse(line);
  evaluate(request)
    .then((rows) => process.stdout.write(`${JSON.stringify({ id: request.id, rows, meta: [] })}\n`))
    .catch((err) => process.stdout.write(`${JSON.stringify({ id: request.id, error: String(err?.message ?? err) })}\n`));
});
lines.on('close', () => process.exit(0));
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
