'use strict';
/**
 * A tiny shop run under dd-trace to capture what it sends (see README.md here): a node:http server
 * on PostgreSQL (pg) that calls its own routes with node:http, so each request makes a client span,
 * a server span and pg spans, with pino and winston lines at every level inside them. Service, env,
 * version and the agent URL come from DD_SERVICE, DD_ENV, DD_VERSION and DD_TRACE_AGENT_URL.
 * Usage: node app.js OUT_DIR (log files are written there); PG* variables name the database.
 */
// dd-trace first, so it can instrument http, pg, pino and winston as they load (its documented rule).
const tracer = require('dd-trace').init({ logInjection: true });
const http = require('node:http');
const path = require('node:path');
const pino = require('pino');
const winston = require('winston');
const { Pool } = require('pg');

const out = process.argv[2] || '.';
const pinoLog = pino({ level: 'debug' }, pino.destination({ dest: path.join(out, 'pino.json.log'), sync: true }));
const winstonFile = (filename, format) => new winston.transports.File({ filename: path.join(out, filename), format });
const winstonLog = winston.createLogger({
  level: 'debug',
  transports: [winstonFile('winston.json.log', winston.format.combine(winston.format.timestamp(), winston.format.json())), winstonFile('winston.log', winston.format.combine(winston.format.timestamp(), winston.format.simple()))],
});
const pool = new Pool();

/** Both loggers, so each line exists in pino's and winston's form. */
const log = (level, message, fields = {}) => {
  pinoLog[level](fields, message);
  winstonLog.log(level, message, fields);
};

/** Plain node:http has no router: name the route on the server span as a framework would. */
const route = (method, pattern) => {
  const span = tracer.scope().active();
  span.setTag('http.route', pattern);
  span.setTag('resource.name', `${method} ${pattern}`);
};

const readJson = (req) =>
  new Promise((resolve, reject) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => resolve(JSON.parse(body)));
    req.on('error', reject);
  });

async function getOrder(res, id) {
  route('GET', '/orders/:id');
  log('debug', 'looking up order', { orderId: id });
  const { rows } = await pool.query('SELECT id, item, quantity FROM orders WHERE id = $1', [id]);
  log('info', `order ${id} found`, { item: rows[0].item });
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(rows[0]));
}

async function createOrder(req, res) {
  route('POST', '/orders');
  const order = await readJson(req);
  if (order.quantity > 5) log('warn', 'large order', { item: order.item, quantity: order.quantity });
  const { rows } = await pool.query('INSERT INTO orders (item, quantity) VALUES ($1, $2) RETURNING id', [order.item, order.quantity]);
  log('info', `order ${rows[0].id} created`);
  res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ id: rows[0].id }));
}

async function checkout(res) {
  route('POST', '/cart/checkout');
  await pool.query('UPDATE orders SET quantity = quantity - 1 WHERE id = $1', [1]);
  const err = new Error('payment service unavailable');
  tracer.scope().active().setTag('error', err);
  log('error', 'checkout failed', { cart: 'c-42', err: { message: err.message, stack: err.stack } });
  res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"payment service unavailable"}');
}

async function handle(req, res) {
  const order = /^\/orders\/(\d+)$/.exec(req.url);
  if (req.method === 'GET' && order) return getOrder(res, Number(order[1]));
  if (req.method === 'POST' && req.url === '/orders') return createOrder(req, res);
  if (req.method === 'POST' && req.url.startsWith('/cart/checkout')) return checkout(res);
  res.writeHead(404).end();
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((err) => res.writeHead(500).end(String(err)));
});

/** A client call to our own server: dd-trace makes it a client span and propagates the trace. */
const call = (method, urlPath, body) =>
  new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server.address().port, method, path: urlPath, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume().on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });

async function main() {
  await pool.query('CREATE TABLE IF NOT EXISTS orders (id SERIAL PRIMARY KEY, item TEXT NOT NULL, quantity INTEGER NOT NULL)');
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const created = await call('POST', '/orders', { item: 'widget', quantity: 7 });
  const fetched = await call('GET', '/orders/1');
  const failed = await call('POST', '/cart/checkout?cart=c-42');
  process.stdout.write(`POST /orders ${created}, GET /orders/1 ${fetched}, POST /cart/checkout ${failed}\n`);
  server.close();
  await pool.end();
  await new Promise((resolve) => winstonLog.on('finish', resolve).end());
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exitCode = 1;
});
