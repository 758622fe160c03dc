/**
 * The management API client piece by piece (URLs, credentials, error bodies, totals), then whole
 * against the OpenAPI-checking test server: pages are followed, invalid requests never leave,
 * and replies that break the document are refused.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../tools/src/collector/build';
import { authorization, InvalidRequest, InvalidResponse, operationUrl, RATE_LIMIT_RETRIES, rateLimitWait, secretsOf, serviceMessage, ServiceError, StackApiClient, totalOf, type StackMode } from '../../tools/src/stack-api/client';
import type { AlertInterval, AlertRequest } from '../../tools/src/stack-api/types';
import { startOpenApiServer, type OpenApiServer } from '../helpers/openapi-server';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'stack-api');
const fixture = <T>(name: string): T => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as T;

const CLOUD: StackMode = { kind: 'cloud', baseUrl: 'https://api.clickhouse.cloud/v1', org: 'org 1', service: 'svc/2', keyId: 'kid', keySecret: 'ks3cret' };
const OSS: StackMode = { kind: 'oss', baseUrl: 'http://hyperdx:8000', apiKey: 'pk-123456' };

describe('request building', () => {
  it('mounts the document paths under /clickstack of the organization and service for Managed ClickStack', () => {
    expect(operationUrl(CLOUD, { path: '/api/v2/alerts/{id}' }, 'a b')).toBe('https://api.clickhouse.cloud/v1/organizations/org%201/services/svc%2F2/clickstack/alerts/a%20b');
    expect(operationUrl(CLOUD, { path: '/api/v2/alerts' }, undefined, { limit: 1000, offset: 0 })).toBe('https://api.clickhouse.cloud/v1/organizations/org%201/services/svc%2F2/clickstack/alerts?limit=1000&offset=0');
  });

  it('uses the document paths as they are on an open-source instance', () => {
    expect(operationUrl(OSS, { path: '/api/v2/dashboards/{id}' }, '65f5')).toBe('http://hyperdx:8000/api/v2/dashboards/65f5');
    expect(operationUrl({ ...OSS, baseUrl: 'http://hyperdx:8080/api' }, { path: '/api/v2/sources' })).toBe('http://hyperdx:8080/api/api/v2/sources');
  });

  it('refuses a template whose id is missing', () => {
    expect(() => operationUrl(OSS, { path: '/api/v2/alerts/{id}' })).toThrow(InvalidRequest);
  });

  it('authenticates with Basic key id:secret (Cloud) or Bearer personal key (open source), and knows what to mask', () => {
    expect(authorization(CLOUD)).toBe(`Basic ${Buffer.from('kid:ks3cret').toString('base64')}`);
    expect(authorization(OSS)).toBe('Bearer pk-123456');
    expect(secretsOf(CLOUD)).toEqual(['ks3cret', Buffer.from('kid:ks3cret').toString('base64')]);
    expect(secretsOf(OSS)).toEqual(['pk-123456']);
  });
});

describe('reading replies', () => {
  it("takes the service's own words from {message} or a plain-text body", () => {
    expect(serviceMessage('{"message":"Body validation failed: name: Required"}')).toBe('Body validation failed: name: Required');
    expect(serviceMessage('Unauthorized\n')).toBe('Unauthorized');
    expect(serviceMessage('{"error":"x"}')).toBe('{"error":"x"}');
    expect(serviceMessage('x'.repeat(5000))).toHaveLength(2000);
  });

  it('takes a total from meta, else from X-Total-Count', () => {
    expect(totalOf({ data: [], meta: { total: 7, limit: 2, offset: 0 } }, new Headers({ 'x-total-count': '9' }))).toBe(7);
    expect(totalOf({ data: [] }, new Headers({ 'x-total-count': '9' }))).toBe(9);
    expect(totalOf({ data: [] }, new Headers({ 'x-total-count': 'lots' }))).toBeUndefined();
    expect(totalOf({ data: [] }, new Headers())).toBeUndefined();
  });

  it("takes a 429's wait from RateLimit-Reset, else Retry-After (seconds or a date), else one minute", () => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    // the open-source API sends both: its Retry-After is the whole window, RateLimit-Reset what is left of it
    expect(rateLimitWait(new Headers({ 'ratelimit-reset': '37', 'retry-after': '60' }), now)).toEqual({ seconds: 37, from: 'RateLimit-Reset' });
    expect(rateLimitWait(new Headers({ 'ratelimit-reset': '0' }), now)).toEqual({ seconds: 1, from: 'RateLimit-Reset' });
    expect(rateLimitWait(new Headers({ 'retry-after': '12' }), now)).toEqual({ seconds: 12, from: 'Retry-After' });
    expect(rateLimitWait(new Headers({ 'retry-after': 'Thu, 26 Nov 2026 12:00:30 GMT' }), now)).toEqual({ seconds: 30, from: 'Retry-After' });
    expect(rateLimitWait(new Headers({ 'retry-after': 'soon', 'ratelimit-reset': '-3' }), now)).toEqual({ seconds: 60, from: 'no RateLimit-Reset or Retry-After header' });
  });

  it('ServiceError shows status, reason and message', () => {
    expect(new ServiceError(429, 'Too many requests, please try again later.').message).toBe('429 Too Many Requests: Too many requests, please try again later.');
    expect(new ServiceError(502, '').message).toBe('502 Bad Gateway');
  });
});

describe.each(['cloud', 'oss'] as const)('client against the OpenAPI test server (%s)', (kind) => {
  let server: OpenApiServer;
  let mode: StackMode;
  let client: StackApiClient;
  const alert = fixture<AlertRequest>('alert.json');

  beforeEach(async () => {
    const auth = kind === 'cloud' ? ({ kind, org: 'org-1', service: 'svc-1', keyId: 'kid-1', keySecret: 'secret-1' } as const) : ({ kind, apiKey: 'personal-key-1' } as const);
    server = await startOpenApiServer({ auth, sources: fixture('sources.json'), pageCap: 2 });
    mode = { ...auth, baseUrl: server.baseUrl };
    client = new StackApiClient({ mode });
  });
  afterEach(async () => {
    expect(server.problems).toEqual([]);
    await server.close();
  });

  it('follows limit/offset pages to the reported total, whatever page size the server picks', async () => {
    for (let i = 0; i < 5; i++) await client.create('alerts', { ...alert, name: `a${i}` });
    const sent = server.requests.length;
    const all = await client.list('alerts');
    expect(all.items.map((a) => a.name)).toEqual(['a0', 'a1', 'a2', 'a3', 'a4']);
    expect(all.total).toBe(5);
    expect(server.requests.slice(sent).map((r) => r.url.replace(/^.*\?/, ''))).toEqual(['limit=1000&offset=0', 'limit=1000&offset=2', 'limit=1000&offset=4']);
  });

  it('fetches one page when asked', async () => {
    for (let i = 0; i < 3; i++) await client.create('alerts', { ...alert, name: `a${i}` });
    const page = await client.list('alerts', { limit: 1, offset: 1 });
    expect(page).toMatchObject({ items: [{ name: 'a1' }], total: 3, offset: 1 });
  });

  it('fetches unpaged lists in one request and refuses paging them', async () => {
    expect((await client.list('sources')).items.map((s) => s.kind)).toEqual(['log', 'trace', 'metric']);
    await expect(client.list('dashboards', { limit: 10 })).rejects.toThrow(/the API does not page dashboards/);
    expect(server.requests).toHaveLength(1);
  });

  it('sends nothing for a body or a query the document refuses', async () => {
    await expect(client.create('alerts', { ...alert, interval: '2h' as AlertInterval })).rejects.toThrow(InvalidRequest);
    await expect(client.list('alerts', { limit: 5000 })).rejects.toThrow(/limit: must be <= 1000/);
    expect(server.requests).toEqual([]);
  });

  it("raises the service's status and message", async () => {
    await expect(client.get('dashboards', 'nope')).rejects.toMatchObject({ status: 404, serviceMessage: 'Dashboard not found' });
  });

  describe('on 429', () => {
    const tooMany = (headers: Record<string, string>) => ({ status: 429, body: 'Too many requests, please try again later.', contentType: 'text/html', headers });
    const waits: number[] = [];
    const notices: string[] = [];
    const patient = () => new StackApiClient({ mode, sleep: async (ms) => void waits.push(ms), notice: (line) => void notices.push(line) });
    beforeEach(() => {
      waits.length = 0;
      notices.length = 0;
    });

    it('waits as asked and sends the request again, saying so', async () => {
      server.replyNext(tooMany({ 'ratelimit-limit': '100', 'ratelimit-remaining': '0', 'ratelimit-reset': '7', 'retry-after': '60' }));
      server.replyNext(tooMany({ 'retry-after': '2' }));
      expect((await patient().list('sources')).items).toHaveLength(3);
      expect(waits).toEqual([7000, 2000]);
      expect(server.requests.map((r) => r.status)).toEqual([429, 429, 200]);
      expect(notices).toEqual([
        'GET /api/v2/sources: 429 Too Many Requests (rate limit 100 requests per window); retrying in 7 s (RateLimit-Reset), retry 1 of 3',
        'GET /api/v2/sources: 429 Too Many Requests (rate limit); retrying in 2 s (Retry-After), retry 2 of 3',
      ]);
    });

    it(`gives up after ${RATE_LIMIT_RETRIES} retries, and at once when asked to wait longer than the limit`, async () => {
      for (let i = 0; i <= RATE_LIMIT_RETRIES; i++) server.replyNext(tooMany({ 'ratelimit-reset': '1' }));
      await expect(patient().list('sources')).rejects.toMatchObject({ status: 429, serviceMessage: 'Too many requests, please try again later.' });
      expect(waits).toEqual(Array(RATE_LIMIT_RETRIES).fill(1000));
      expect(server.requests).toHaveLength(RATE_LIMIT_RETRIES + 1);

      server.replyNext(tooMany({ 'retry-after': '3600' }));
      await expect(patient().list('sources')).rejects.toMatchObject({ status: 429 });
      expect(waits).toHaveLength(RATE_LIMIT_RETRIES);
      expect(server.requests).toHaveLength(RATE_LIMIT_RETRIES + 2);
    });
  });

  it('refuses a reply that is not what the document promises, naming the field', async () => {
    server.replyNext({ status: 200, body: JSON.stringify({ data: { id: 'x', interval: 'weekly' } }) });
    await expect(client.get('alerts', 'x')).rejects.toThrow(new InvalidResponse('the reply to GET /api/v2/alerts/{id} does not match the OpenAPI document (getAlert):\nresponse.data.interval: must be one of 1m, 5m, 15m, 30m, 1h, 6h, 12h, 1d'));
    server.replyNext({ status: 200, body: '<html>', contentType: 'text/html' });
    await expect(client.list('sources')).rejects.toThrow(/is not JSON: <html>/);
  });

  it('calls trace once per request and reply, with no credential', async () => {
    const lines: string[] = [];
    const traced = new StackApiClient({ mode, trace: (l) => lines.push(l) });
    await traced.list('sources');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^> GET ${server.baseUrl.replace(/[.]/g, '\\.')}.*/sources \\((Basic|Bearer) auth\\)$`));
    expect(lines[1]).toMatch(/^< 200 OK \(\d+ bytes, \d+ ms\)$/);
  });
});

it('says which address it cannot reach', async () => {
  const client = new StackApiClient({ mode: { ...OSS, baseUrl: 'http://127.0.0.1:9' }, timeoutMs: 2000 });
  await expect(client.list('sources')).rejects.toThrow(/^cannot reach http:\/\/127\.0\.0\.1:9\/api\/v2\/sources: /);
});
