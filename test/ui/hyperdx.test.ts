/**
 * The HyperDX UI (local mode, built from the shared snapshot) in a real browser, looking at data
 * that real clients sent through the sidecar and the collector into a real ClickHouse:
 * dd-trace for Node (an HTTP server with a database-like span, an error span and pino logs under
 * log injection, shipped as the logs agent ships them) and agent-format metrics (a gauge and a
 * sketch). Then, as a new user: the connection form, the logs search, a log's side panel and its
 * trace, the services page and Chart Explorer. Every wait is on an element; screenshots go to
 * .cache/ui-screenshots/.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { EXP_HISTOGRAM_TABLE, startHyperdx, type RunningHyperdx } from '../../src/tools/hyperdx/serve';
import type { HyperdxBuild } from '../../src/tools/hyperdx/build';
import { AGENT_PROTOBUF_HEADERS, agentZstd, encodeMetricPayload, encodeSketchPayload } from '../fixtures/metrics/agent-payloads';
import { shipAsAgent } from '../helpers/agent-logs';
import { freePort } from '../helpers/ports';
import { startTestClickHouse, type TestClickHouse } from '../helpers/clickhouse';
import { startStack, type TestStack } from '../helpers/stack';
import { launchBrowser, type Browser } from './browser';

const RUN = randomUUID().slice(0, 8);
const SERVICE = `ui-shop-${RUN}`;
const GAUGE = `ui.${RUN}.queue.depth`;
const SKETCH = `ui.${RUN}.request.latency`;
const KEY = 'ui-suite-key';
const VISIBLE = 30_000;

interface AppRun {
  lines: string[];
  orders: { traceId: string; spanId: string };
  checkout: { traceId: string; spanId: string };
}

let ch: TestClickHouse;
let stack: TestStack;
let hyperdx: RunningHyperdx;
let browser: Browser;
let page: Page;
let app: AppRun;

function runShopApp(intakeUrl: string): AppRun {
  const out = execFileSync(process.execPath, [join(__dirname, '..', 'fixtures', 'ui', 'shop-app.js')], {
    env: { PATH: process.env.PATH, SHOP_APP_URL: intakeUrl, SHOP_APP_SERVICE: SERVICE, DD_TRACE_TELEMETRY_ENABLED: 'false', DD_INSTRUMENTATION_TELEMETRY_ENABLED: 'false', DD_REMOTE_CONFIGURATION_ENABLED: 'false' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(out.trim().split('\n').pop() as string) as AppRun;
}

/** A gauge (v2 series) and a latency sketch, as the agent's forwarder sends them, for the last few minutes. */
async function sendAgentMetrics(intakeUrl: string): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  const minutes = [240, 180, 120, 60, 0].map((ago) => now - ago);
  const post = async (path: string, body: Buffer): Promise<void> => {
    const res = await fetch(intakeUrl + path, { method: 'POST', body: await agentZstd(body), headers: { 'DD-Api-Key': KEY, ...AGENT_PROTOBUF_HEADERS } });
    if (res.status !== 202) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  };
  const tags = [`service:${SERVICE}`, 'env:ui'];
  await post('/api/v2/series', encodeMetricPayload({ series: [{ resources: [{ type: 'host', name: 'ui-host' }], metric: GAUGE, tags, points: minutes.map((t, i) => ({ value: 5 + i * 3, timestamp: t })), type: 3 }] }));
  // the reference's worked example of a DDSketch: key 1338 ≈ 1, 1442 ≈ 5 (γ = 1.015625)
  const sketch = { cnt: 13, min: 1, max: 6, avg: 3, sum: 39, k: [1338, 1383, 1409, 1427, 1442, 1454], n: [2, 3, 2, 2, 2, 2] };
  await post('/api/beta/sketches', encodeSketchPayload({ sketches: [{ metric: SKETCH, host: 'ui-host', tags, dogsketches: minutes.map((ts) => ({ ts, ...sketch })) }], metadata: {} }));
}

/** Every signal's rows are in ClickHouse, in the tables HyperDX reads. */
async function waitForRows(): Promise<void> {
  const checks = [
    `SELECT 1 FROM otel_logs WHERE ServiceName = '${SERVICE}'`,
    `SELECT 1 FROM otel_traces WHERE ServiceName = '${SERVICE}'`,
    `SELECT 1 FROM otel_metrics_gauge WHERE MetricName = '${GAUGE}'`,
    `SELECT 1 FROM ${EXP_HISTOGRAM_TABLE} WHERE MetricName = '${SKETCH}'`,
  ];
  for (const query of checks) await ch.waitForRows(query, 1, 60_000);
}

beforeAll(async () => {
  ch = await startTestClickHouse();
  stack = await startStack({ sink: 'clickhouse', clickhouse: ch });
  app = runShopApp(stack.intakeUrl);
  expect((await shipAsAgent(stack.intakeUrl, KEY, app.lines, 'env:ui,filename:/var/log/shop.log', SERVICE)).status).toBe(202);
  await sendAgentMetrics(stack.intakeUrl);
  await waitForRows();
  const build = JSON.parse(process.env.DD_BRIDGE_TEST_HYPERDX ?? 'null') as HyperdxBuild | null;
  if (!build) throw new Error('DD_BRIDGE_TEST_HYPERDX is unset: the ui globalSetup did not build HyperDX');
  hyperdx = await startHyperdx({ build, port: await freePort(), logFile: join(stack.sinkDir, '..', 'hyperdx.log') });
  browser = await launchBrowser();
  page = browser.page;
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await hyperdx?.stop();
  await stack?.stop();
  await ch?.stop();
});

const visible = (locator: Locator): Promise<void> => locator.first().waitFor({ state: 'visible', timeout: VISIBLE });

// the page's own function: the callback below runs in the browser (the tests' lib has no DOM types)
declare function getComputedStyle(element: unknown): { color: string };

/** The computed text colour of an element, as "rgb(r, g, b)". */
const colourOf = (locator: Locator): Promise<string> => locator.evaluate((el) => getComputedStyle(el).color);

const isReddish = (rgb: string): boolean => {
  const [r = 0, g = 0, b = 0] = (rgb.match(/\d+/g) ?? []).map(Number);
  return r > 150 && r > g * 1.5 && r > b * 1.5;
};

/** A Lucene search on the search page, waiting for the first matching row. */
async function search(query: string): Promise<Locator> {
  const input = page.getByTestId('search-input');
  await visible(input);
  await input.fill(query);
  await page.keyboard.press('Escape');
  await page.getByTestId('search-submit-button').click();
  const rows = page.locator('[data-testid^="table-row-"]');
  await visible(rows);
  return rows;
}

async function selectSource(name: string): Promise<void> {
  await page.getByTestId('source-selector').click();
  await page.getByRole('option', { name, exact: true }).click();
}

/**
 * A view that issue 25 (translation fixes in progress on other branches) makes appear, inside a
 * part of the page that must be showing either way. Until the bridge writes the attribute HyperDX
 * reads, ClickHouse must lack it and the view must be absent; from then on the view must be there.
 */
describe('HyperDX UI on data from real clients through the bridge', () => {
  it('a new user connects with the connection form; HyperDX finds the Logs and Traces tables', async () => {
    await page.goto(hyperdx.url);
    const host = page.getByTestId('connection-host-input');
    await visible(host);
    await host.fill(ch.httpUrl);
    await browser.screenshot('01-connection-form');
    await page.getByTestId('connection-save-button').click();
    await visible(page.getByTestId('search-input'));
    await page.getByTestId('source-selector').click();
    // the search page offers the log and trace sources; Chart Explorer below uses the Metrics one
    for (const name of ['Logs', 'Traces']) await visible(page.getByRole('option', { name, exact: true }));
    await page.keyboard.press('Escape');
  });

  it('logs search: our service’s rows, error levels in red', async () => {
    await selectSource('Logs');
    const rows = await search(`ServiceName:"${SERVICE}"`);
    await visible(rows.filter({ hasText: 'checkout failed: card declined' }));
    await visible(rows.filter({ hasText: 'order 42 loaded' }));
    const errorLevel = rows.filter({ hasText: 'checkout failed' }).getByText('error', { exact: true });
    await visible(errorLevel);
    expect(isReddish(await colourOf(errorLevel.first()))).toBe(true);
    const infoLevel = rows.filter({ hasText: 'order 42 loaded' }).getByText('info', { exact: true });
    expect(isReddish(await colourOf(infoLevel.first()))).toBe(false);
    await browser.screenshot('02-logs-search');
  });

  it('a correlated log’s side panel: "View Trace" opens the waterfall of its own trace', async () => {
    const rows = await search(`ServiceName:"${SERVICE}"`);
    await rows.filter({ hasText: 'checkout failed: card declined' }).first().click();
    const panel = page.getByTestId('row-side-panel');
    await visible(panel);
    await browser.screenshot('03-log-side-panel');
    await page.getByTestId('side-panel-view-trace').click();
    // the checkout trace: its server span, the failing payment span; not the orders trace's query
    await visible(panel.getByText('charge card'));
    expect(await panel.getByText('SELECT id, total FROM orders').count()).toBe(0);
    await browser.screenshot('04-trace-waterfall');
  });

  it('the HTTP section of the server span (HyperDX shows it when the span has http.url)', async () => {
    const panel = page.getByTestId('row-side-panel');
    await visible(panel.getByText('Span Attributes'));
    await visible(panel.getByText('HTTP Request'));
  });

  it('services page: endpoints of our service, the Errors tab, the Database tab with the query text', async () => {
    // the link a user shares for one service of the Traces source
    await page.goto(`${hyperdx.url}/services?source=Traces&service=${SERVICE}`);
    await visible(page.getByTestId('services-dashboard-page'));
    const endpoints = page.getByTestId('services-top-endpoints-table');
    for (const endpoint of ['GET', 'POST']) await visible(endpoints.getByRole('link', { name: endpoint, exact: true }));
    await browser.screenshot('05-services-http');
    await page.getByRole('tab', { name: 'Errors' }).click();
    await visible(page.getByText('Error Events per Service'));
    await browser.screenshot('06-services-errors');
    await page.getByRole('tab', { name: 'Database' }).click();
    await visible(page.getByText('Top 20 Most Time Consuming Queries'));
    await visible(page.getByText('SELECT id, total FROM orders'));
    await browser.screenshot('07-services-database');
  });

  it.each([
    ['the Datadog gauge', GAUGE, 'gauge'],
    ['the Datadog sketch (an exponential histogram)', SKETCH, 'exponential histogram'],
  ])('Chart Explorer draws %s', async (_what, metric, type) => {
    await page.goto(`${hyperdx.url}/chart`);
    await selectSource('Metrics');
    const selector = page.getByTestId('metric-name-selector');
    await visible(selector);
    await selector.click();
    await selector.fill(metric);
    await page.locator(`[data-combobox-option="true"][value="${metric}:::::::${type}"]`).click();
    await page.getByTestId('chart-run-query-button').click();
    await visible(page.locator('.recharts-responsive-container .recharts-curve'));
    await browser.screenshot(`08-chart-${type.replace(' ', '-')}`);
  });
});
