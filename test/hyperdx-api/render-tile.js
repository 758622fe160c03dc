/**
 * Runs one dashboard tile's query the way the HyperDX UI runs it, with HyperDX's own code: the
 * installed snapshot's `@hyperdx/common-utils` (its ClickhouseClient.queryChartConfig renders a
 * chart config, every select and formula of it, into one ClickHouse query). For a tile that
 * `POST /api/v2/charts/series` cannot evaluate (a formula). Run with the Node the API runs on
 * (test/hyperdx-api/setup.ts); reads `{ commonUtils, clickhouseUrl, login, config }` as JSON on stdin and
 * writes the rows ClickHouse returned as JSON on stdout.
 */
'use strict';
const { join } = require('node:path');

async function main() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const { commonUtils, clickhouseUrl, login, config } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const { ClickhouseClient } = require(join(commonUtils, 'dist', 'clickhouse', 'node.js'));
  const { getMetadata } = require(join(commonUtils, 'dist', 'core', 'metadata.js'));
  const client = new ClickhouseClient({ host: clickhouseUrl, username: login.user, password: login.password });
  const { dateRange, ...rest } = config;
  const result = await client.queryChartConfig({ config: { ...rest, dateRange: dateRange.map((ms) => new Date(ms)) }, metadata: getMetadata(client), querySettings: undefined });
  process.stdout.write(JSON.stringify(result.data));
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
