/**
 * The embedded ClickHouse (tools/src/clickhouse/) attacked as another local process and a web page
 * would (issue 33): no login without a password, over HTTP or the native port; with either of the
 * stack's credentials, no file read or written through ClickHouse and no other server reached; a
 * browser may query it only from the HyperDX UI the stack serves, and from no page at all without
 * one. Real servers from the launcher, as `stack` starts them.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uiOriginsFor } from '../../../tools/src/clickhouse/config';
import type { ClickHouseLogin } from '../../../tools/src/clickhouse/credentials';
import { startTestClickHouse, type TestClickHouse } from '../../helpers/clickhouse';
import { nativeLogin } from '../../helpers/clickhouse-native';
import { freePort } from '../../helpers/ports';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

interface Call {
  method?: 'GET' | 'POST' | 'OPTIONS';
  /** Added to the query string (user, password, settings, query). */
  params?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string;
}

/** One HTTP request with exactly these headers (a browser's Origin, a forged Host): node's http, which sets none of its own but Host. */
function call(ch: TestClickHouse, { method = 'POST', params = {}, headers = {}, body }: Call = {}): Promise<Reply> {
  const url = new URL(`${ch.httpUrl}/`);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('ClickHouse did not answer')));
    req.end(body);
  });
}

/** As HyperDX's local mode sends a query: the login in the URL, CORS asked for. */
const asBrowser = (login: ClickHouseLogin, origin: string, sql: string): Call => ({
  params: { user: login.user, password: login.password, add_http_cors_header: '1' },
  headers: { Origin: origin, 'Content-Type': 'text/plain;charset=UTF-8' },
  body: sql,
});

const tcpPort = (ch: TestClickHouse): number => Number(new URL(ch.tcpEndpoint).port);

/**
 * Why ClickHouse refuses: a missing grant, the sandbox (EACCES), a setting the user may not change,
 * INTO OUTFILE over HTTP. Anything else (a typo's syntax error) would make a refusal test pass for
 * nothing.
 */
const REFUSED = /ACCESS_DENIED|errno: 13, strerror: Permission denied|SETTING_CONSTRAINT_VIOLATION|INTO_OUTFILE_NOT_ALLOWED/;

/** Refused, for one of those reasons (the reply in the failure message otherwise). */
async function expectRefused(reply: Promise<Reply>, sql: string): Promise<Reply> {
  const answer = await reply;
  const verdict = answer.status !== 200 && REFUSED.test(answer.body) ? 'refused' : `${answer.status}: ${answer.body.trim()}`;
  expect({ sql, verdict }).toEqual({ sql, verdict: 'refused' });
  return answer;
}

let withUi: TestClickHouse;
let noUi: TestClickHouse;
let uiOrigins: string[];
/** What stands for an SSH key: a file only this test knows the content of. */
let secretFile: string;
let secret: string;
let scratch: string;

beforeAll(async () => {
  uiOrigins = uiOriginsFor(await freePort());
  [withUi, noUi] = await Promise.all([startTestClickHouse({ uiOrigins }), startTestClickHouse()]);
  scratch = mkdtempSync(join(tmpdir(), 'dd-bridge-hostile-ch-'));
  secret = `secret-${randomBytes(12).toString('hex')}`;
  secretFile = join(scratch, 'id_ed25519');
  writeFileSync(secretFile, `${secret}\n`);
}, 60_000);

afterAll(async () => {
  await Promise.all([withUi?.stop(), noUi?.stop()]);
});

describe('no login without a password', () => {
  it('HTTP: no credentials, `default`, an unknown user or a wrong password are refused', async () => {
    const attempts: Call[] = [{}, { params: { user: 'default' } }, { params: { user: 'default', password: '' } }, { params: { user: 'admin', password: 'admin' } }, { params: { user: 'reader', password: 'wrong' } }];
    for (const attempt of attempts) {
      const reply = await call(noUi, { ...attempt, body: 'SELECT 42' });
      expect({ attempt, status: reply.status }).not.toEqual({ attempt, status: 200 });
      expect(reply.body).toMatch(/USER_SESSION_LIMIT_EXCEEDED|AUTHENTICATION_FAILED|REQUIRED_PASSWORD/);
    }
  });

  it('native port: only the reader and the collector with their passwords log in', async () => {
    const { reader, collector } = noUi.credentials;
    expect(await nativeLogin(tcpPort(noUi), reader.user, reader.password)).toEqual({ accepted: true });
    expect(await nativeLogin(tcpPort(noUi), collector.user, collector.password)).toEqual({ accepted: true });
    for (const [user, password] of [
      ['default', ''],
      ['reader', ''],
      ['collector', 'wrong'],
      ['control', ''],
    ] as const) {
      expect({ user, login: await nativeLogin(tcpPort(noUi), user, password) }).toMatchObject({ user, login: { accepted: false } });
    }
  });

  it('the passwords sit in the home with mode 0600, one per user', () => {
    const { reader, collector, file, netrc } = noUi.credentials;
    expect(reader.password).not.toBe(collector.password);
    expect(reader.password.length).toBeGreaterThanOrEqual(32);
    for (const f of [file, netrc]) expect((statSync(f).mode & 0o777).toString(8)).toBe('600');
  });
});

describe.each(['reader', 'collector'] as const)('as the %s: nothing outside the telemetry tables', (who) => {
  const login = (): ClickHouseLogin => noUi.credentials[who];
  const query = (sql: string): Promise<Reply> => call(noUi, { params: { user: login().user, password: login().password }, body: sql });

  it('reads no file: /etc/hostname and a private file through file(), the file() function, the Template format, a File table, the credentials', async () => {
    const hostname = readFileSync('/etc/hostname', 'utf8').trim();
    const reads = [
      "SELECT * FROM file('/etc/hostname', 'LineAsString')",
      "SELECT file('/etc/hostname')",
      `SELECT * FROM file('${secretFile}', 'LineAsString')`,
      `SELECT file('${secretFile}')`,
      `SELECT 1 FORMAT Template SETTINGS format_template_resultset = '${secretFile}'`,
      `SELECT * FROM sqlite('${secretFile}', 't')`,
      `CREATE TABLE otel_hostile (s String) ENGINE = File(LineAsString, '${secretFile}')`,
      `SELECT file('${noUi.credentials.file}')`,
    ];
    for (const sql of reads) {
      const reply = await expectRefused(query(sql), sql);
      expect(reply.body).not.toContain(secret);
      expect(reply.body).not.toContain(noUi.credentials.reader.password);
      if (hostname.length >= 4) expect(reply.body).not.toContain(hostname);
    }
  });

  it('writes no file: INSERT INTO FUNCTION file(), INTO OUTFILE, a Protobuf schema file', async () => {
    const targets = ['function', 'outfile', 'schema'].map((name) => join(scratch, `${who}-${name}`));
    const writes = [`INSERT INTO FUNCTION file('${targets[0]}', 'LineAsString') VALUES ('pwned')`, `SELECT 'pwned' INTO OUTFILE '${targets[1]}'`, `SELECT 1 AS x FORMAT Protobuf SETTINGS output_format_schema = '${targets[2]}', format_schema = ':Message'`];
    for (const sql of writes) await expectRefused(query(sql), sql);
    expect(targets.filter(existsSync)).toEqual([]);
  });

  it('reaches no other server, runs no program, makes no dictionary or user', async () => {
    const reach = [
      `SELECT * FROM url('http://127.0.0.1:${new URL(noUi.httpUrl).port}/ping', 'LineAsString')`,
      `SELECT * FROM remote('127.0.0.1:${tcpPort(noUi)}', system.one)`,
      "SELECT * FROM s3('http://127.0.0.1:1/bucket/key', 'LineAsString')",
      "SELECT * FROM executable('ls', 'TSV', 'x String')",
      `CREATE DICTIONARY otel_hostile_dict (k UInt64, v String) PRIMARY KEY k SOURCE(FILE(path '${secretFile}' format 'TSV')) LAYOUT(FLAT()) LIFETIME(0)`,
      "CREATE USER hostile IDENTIFIED BY 'hostile'",
      'SYSTEM STOP LISTEN HTTP',
    ];
    for (const sql of reach) await expectRefused(query(sql), sql);
    expect((await query('SELECT 1')).body.trim()).toBe('1');
  });
});

describe('browsers', () => {
  const reader = (): ClickHouseLogin => withUi.credentials.reader;

  it("the UI's origin (127.0.0.1 and localhost) gets its own CORS allowance, for the preflight and the query", async () => {
    for (const origin of uiOrigins) {
      const preflight = await call(withUi, { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' } });
      expect(preflight.status).toBe(200);
      expect(preflight.headers['access-control-allow-origin']).toBe(origin);
      const reply = await call(withUi, asBrowser(reader(), origin, 'SELECT 42'));
      expect(reply.status).toBe(200);
      expect(reply.body.trim()).toBe('42');
      expect(reply.headers['access-control-allow-origin']).toBe(origin);
    }
  });

  it('any other origin is refused before any login, with no CORS allowance', async () => {
    const uiPort = Number(new URL(uiOrigins[0] as string).port);
    const foreign = ['http://evil.example', `http://127.0.0.1:${uiPort + 1}`, `https://127.0.0.1:${uiPort}`, 'null'];
    for (const origin of foreign) {
      for (const attempt of [asBrowser(reader(), origin, 'SELECT 42'), { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' } } as Call]) {
        const reply = await call(withUi, attempt);
        expect({ origin, status: reply.status, allow: reply.headers['access-control-allow-origin'] }).toEqual({ origin, status: 403, allow: undefined });
      }
    }
  });

  it("the issue's attack: a plain-text cross-origin POST that writes a file is refused, no file written", async () => {
    const target = join(scratch, 'cross-origin-pwned');
    const reply = await call(withUi, { headers: { Origin: 'http://evil.example', 'Content-Type': 'text/plain' }, body: `INSERT INTO FUNCTION file('${target}', 'LineAsString') VALUES ('pwned')` });
    expect(reply.status).toBe(403);
    expect(existsSync(target)).toBe(false);
  });

  it("a page's request without an Origin (an image, a script) and a forged Host (DNS rebinding) are refused", async () => {
    const params = { user: reader().user, password: reader().password, query: 'SELECT 42' };
    for (const site of ['cross-site', 'same-site']) expect((await call(withUi, { method: 'GET', params, headers: { 'Sec-Fetch-Site': site } })).status).toBe(403);
    expect((await call(withUi, { method: 'GET', params, headers: { 'Sec-Fetch-Site': 'none' } })).status).toBe(200);
    expect((await call(withUi, { method: 'GET', params, headers: { Host: `evil.example:${new URL(withUi.httpUrl).port}` } })).status).toBe(403);
  });

  it('without a UI, no origin at all: the would-be UI origin is refused, and a client asking for CORS gets no allowance', async () => {
    for (const origin of uiOrigins) {
      const reply = await call(noUi, asBrowser(noUi.credentials.reader, origin, 'SELECT 42'));
      expect({ status: reply.status, allow: reply.headers['access-control-allow-origin'] }).toEqual({ status: 403, allow: undefined });
    }
    const curl = await call(noUi, { params: { user: noUi.credentials.reader.user, password: noUi.credentials.reader.password, add_http_cors_header: '1' }, body: 'SELECT 42' });
    expect(curl.status).toBe(200);
    expect(curl.headers['access-control-allow-origin']).toBeUndefined();
  });
});
