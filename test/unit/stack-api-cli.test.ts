/**
 * The management CLI's own pieces, without spawning it: argument parsing, how the deployment is
 * chosen from flags and environment, how bodies are assembled, the table, and the exit codes of
 * usage errors.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../src/config';
import { isStackApiCommand, parseStackApiArgs, requestBody, resolveMode, stackApiCommand, type Io } from '../../tools/src/stack-api/cli';
import { formatTable } from '../../tools/src/stack-api/table';

const CLOUD_ENV = { CLICKSTACK_ORG_ID: 'org', CLICKSTACK_SERVICE_ID: 'svc', CLICKSTACK_KEY_ID: 'kid', CLICKSTACK_KEY_SECRET: 'secret' };
const io = (stdin = ''): Io & { text: () => string } => {
  let text = '';
  return { out: (t) => (text += t), err: (t) => (text += t), stdin: () => stdin, text: () => text };
};
const flags = (...argv: string[]) => parseStackApiArgs(['alerts', 'list', ...argv]).flags;

describe('dispatch and arguments', () => {
  it('takes `stack <resource> …` and leaves bare `stack` to the local stack', () => {
    expect(isStackApiCommand(['stack', 'dashboards', 'list'])).toBe(true);
    expect(isStackApiCommand(['stack', 'sources'])).toBe(true);
    expect(isStackApiCommand(['stack'])).toBe(false);
    expect(isStackApiCommand(['stack', '--listen', '0.0.0.0:8126'])).toBe(false);
    expect(isStackApiCommand(['serve', 'dashboards'])).toBe(false);
  });

  it('reads positionals, --flag value, --flag=value and booleans', () => {
    const inv = parseStackApiArgs(['alerts', 'update', 'a1', '--threshold=5', '--name', 'x=y', '--table']);
    expect(inv).toEqual({
      resource: 'alerts',
      action: 'update',
      id: 'a1',
      flags: new Map([
        ['--threshold', '5'],
        ['--name', 'x=y'],
        ['--table', 'true'],
      ]),
    });
    expect(parseStackApiArgs(['dashboards', 'create', '--file', '-']).flags.get('--file')).toBe('-');
  });

  it('refuses unknown options, missing values and extra arguments', () => {
    expect(() => parseStackApiArgs(['alerts', 'list', '--listen', 'x'])).toThrow('unknown option --listen for stack (see stack alerts --help)');
    expect(() => parseStackApiArgs(['alerts', 'list', '--limit'])).toThrow('--limit needs a value');
    expect(() => parseStackApiArgs(['alerts', 'get', 'a', 'b'])).toThrow('unexpected argument "b"');
  });
});

describe('choosing the deployment', () => {
  it('Managed ClickStack from the environment, default Cloud API address', () => {
    expect(resolveMode(new Map(), CLOUD_ENV)).toEqual({ kind: 'cloud', baseUrl: 'https://api.clickhouse.cloud/v1', org: 'org', service: 'svc', keyId: 'kid', keySecret: 'secret' });
  });

  it('flags win over the environment; a trailing slash is dropped', () => {
    expect(resolveMode(flags('--org', 'o2', '--base-url', 'https://cloud.example/v1/'), CLOUD_ENV)).toMatchObject({ kind: 'cloud', org: 'o2', baseUrl: 'https://cloud.example/v1' });
  });

  it('open source from a personal API key, default API port on localhost', () => {
    expect(resolveMode(new Map(), { HYPERDX_PERSONAL_API_KEY: 'pk' })).toEqual({ kind: 'oss', baseUrl: 'http://localhost:8000', apiKey: 'pk' });
    expect(resolveMode(flags('--api-key', 'pk2'), { HYPERDX_API_URL: 'http://hdx:8000' })).toEqual({ kind: 'oss', baseUrl: 'http://hdx:8000', apiKey: 'pk2' });
  });

  it('names what is missing, refuses both kinds at once and bad URLs', () => {
    expect(() => resolveMode(flags('--org', 'o'), {})).toThrow('Managed ClickStack also needs --service (or CLICKSTACK_SERVICE_ID), --key-id (or CLICKSTACK_KEY_ID), --key-secret (or CLICKSTACK_KEY_SECRET)');
    expect(() => resolveMode(new Map(), { ...CLOUD_ENV, HYPERDX_PERSONAL_API_KEY: 'pk' })).toThrow(/give one$/);
    expect(() => resolveMode(new Map(), {})).toThrow(/^no credentials/);
    expect(() => resolveMode(flags('--base-url', 'ftp://x'), { HYPERDX_PERSONAL_API_KEY: 'pk' })).toThrow('--base-url: expected an http(s) URL, got "ftp://x"');
    expect(() => resolveMode(new Map(), { HYPERDX_PERSONAL_API_KEY: 'pk', HYPERDX_API_URL: 'http://u:p@h' })).toThrow('HYPERDX_API_URL: give the base URL without query, fragment or credentials');
  });

  it('ignores empty environment variables', () => {
    expect(resolveMode(new Map(), { ...CLOUD_ENV, HYPERDX_PERSONAL_API_KEY: ' ', CLICKSTACK_API_URL: '' })).toMatchObject({ kind: 'cloud', baseUrl: 'https://api.clickhouse.cloud/v1' });
  });
});

describe('request bodies', () => {
  const body = (...argv: string[]) => requestBody(parseStackApiArgs(argv), io('{"from":"stdin"}'));

  it('builds an alert from its field flags; --tile-id implies source tile', () => {
    expect(body('alerts', 'create', '--threshold', '2.5', '--interval', '5m', '--threshold-type', 'below', '--tile-id', 't', '--webhook-id', 'w')).toEqual({
      threshold: 2.5,
      interval: '5m',
      thresholdType: 'below',
      tileId: 't',
      source: 'tile',
      channel: { type: 'webhook', webhookId: 'w' },
    });
    expect(body('alerts', 'create', '--tile-id', 't', '--source', 'saved_search')).toMatchObject({ source: 'saved_search' });
  });

  it('lays the flags over a --file or --body object', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ddb-body-'));
    writeFileSync(join(dir, 'a.json'), '{"threshold":1,"name":"old"}');
    expect(body('alerts', 'update', 'id', '--file', join(dir, 'a.json'), '--name', 'new')).toEqual({ threshold: 1, name: 'new' });
    expect(body('alerts', 'create', '--file', '-')).toEqual({ from: 'stdin' });
    expect(body('dashboards', 'create', '--body', '[1]')).toEqual([1]);
  });

  it('refuses what cannot become a body', () => {
    expect(() => body('alerts', 'create', '--threshold', 'high')).toThrow('--threshold: expected a number, got "high"');
    expect(() => body('alerts', 'create', '--body', '[]', '--name', 'n')).toThrow('the alert flags need a JSON object body to add to');
    expect(() => body('dashboards', 'create', '--body', '{nope')).toThrow(/^--body: not JSON/);
    expect(() => body('dashboards', 'create', '--file', '/nonexistent/x.json')).toThrow('--file /nonexistent/x.json: ENOENT');
    expect(() => body('dashboards', 'create', '--file', 'a', '--body', '{}')).toThrow('give --file or --body, not both');
    expect(() => body('dashboards', 'create')).toThrow(new ConfigError('needs a body: --file PATH or --body JSON'));
  });
});

describe('exit codes of usage errors (nothing is sent)', () => {
  it.each([
    [['dashboards'], 'stack dashboards: an action is missing: dashboards takes create|list|get|update|delete'],
    [['dashboards', 'get', 'x', '--limit', '2'], 'stack dashboards get: --limit applies to list only'],
    [['dashboards', 'create', '--name', 'x'], 'stack dashboards create: --name applies to alerts create and update only'],
    [['alerts', 'list', '--file', 'x'], 'stack alerts list: --file applies to create and update only'],
    [['alerts', 'list', 'x'], 'stack alerts list: takes no id (got "x")'],
    [['alerts', 'list', '--limit', '-1'], 'stack alerts list: --limit: expected a whole number, got "-1"'],
    [['alerts', 'list', '--limit', '0'], 'stack alerts list: the request does not match the OpenAPI document (listAlerts); nothing was sent:\nlimit: must be >= 1'],
  ])('%j', async (argv, message) => {
    const out = io();
    expect(await stackApiCommand(argv, { HYPERDX_PERSONAL_API_KEY: 'k', HYPERDX_API_URL: 'http://127.0.0.1:9' }, out)).toBe(2);
    expect(out.text()).toBe(`${message}\n`);
  });

  it('--help wins and needs no credentials', async () => {
    const out = io();
    expect(await stackApiCommand(['sources', 'list', '--help'], {}, out)).toBe(0);
    expect(out.text()).toMatch(/^Usage: dd-otlp-bridge-tools stack dashboards/);
  });

  it('masks the credential in anything it writes, even a message that quotes it', async () => {
    const out = io();
    expect(await stackApiCommand(['alerts', 'get', 'Bearer-s3cr3t-key', '--base-url', 'http://127.0.0.1:9'], { HYPERDX_PERSONAL_API_KEY: 's3cr3t-key' }, out)).toBe(1);
    expect(out.text()).toBe('stack alerts get: cannot reach http://127.0.0.1:9/api/v2/alerts/Bearer-********: bad port\n');
  });

  it('masks a credential given as a flag also in a usage error that comes before the deployment is known', async () => {
    const out = io();
    expect(await stackApiCommand(['sources', 'list', '--api-key', 'k3y-in-flag', '--base-url', 'k3y-in-flag'], {}, out)).toBe(2);
    expect(out.text()).toBe('stack sources list: --base-url: expected an http(s) URL, got "********"\n');
  });
});

describe('--table', () => {
  it('aligns columns, one line per item, "-" for what is absent, no line breaks from names', () => {
    expect(
      formatTable('dashboards', [
        { id: 'd1', name: 'Two\nlines', tiles: [], tags: [] },
        { id: 'd22', name: 'x', tags: ['a', 'b'] },
      ]),
    ).toBe('ID   NAME       TILES  TAGS\nd1   Two lines  0      -\nd22  x          -      a,b\n');
    expect(formatTable('alerts', [{ id: 'a', thresholdType: 'between', threshold: 1, thresholdMax: 5, source: 'saved_search', savedSearchId: 's' }])).toBe('ID  NAME  STATE  INTERVAL  CONDITION     TARGET\na   -     -      -         between 1..5  search s\n');
    expect(formatTable('sources', [])).toBe('ID  NAME  KIND  TABLE\n');
  });
});
