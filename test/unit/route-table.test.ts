/**
 * The intake's path matching keeps what senders were served under express: case-insensitive,
 * optional trailing slash, `:name` one segment, `*name` one or more. Checked against the real
 * route list too, so every path a route declares is found.
 */
import { ROUTES } from '../../src/signals/routes';
import { normalizePath } from '../../src/signals/shared/request-path';
import { RouteTable } from '../../src/http/route-table';

const route = (name: string, ...paths: string[]) => ({ name, paths });
const table = new RouteTable([route('logs', '/api/v2/logs', '/v1/input', '/v1/input/:key'), route('proxy', '/telemetry/proxy/*path'), route('intake', '/intake', '/intake/')]);
const nameOf = (url: string): string | undefined => table.match(normalizePath(url))?.name;

describe('RouteTable', () => {
  it.each([
    ['/api/v2/logs', 'logs'],
    ['/api/v2/logs/', 'logs'],
    ['/API/V2/Logs', 'logs'],
    ['/v1/input', 'logs'],
    ['/v1/input/abc123', 'logs'],
    ['/v1/input/abc123/', 'logs'],
    ['/telemetry/proxy/api/v2/apmtelemetry', 'proxy'],
    ['/telemetry/proxy/x', 'proxy'],
    ['/intake', 'intake'],
    ['/intake/', 'intake'],
    ['//v1/input/abc123', 'logs'],
    ['/v1/input//abc123', 'logs'],
    ['/V1/INPUT/abc123', 'logs'],
    ['/api//v2///logs//?x=1', 'logs'],
    ['http://bridge:8126/api/v2/logs?dd-api-key=k', 'logs'],
  ])('finds %s', (path, name) => {
    expect(nameOf(path)).toBe(name);
  });

  it.each(['/', '/api/v2', '/api/v2/logsx', '/api/v2/logs/extra', '/v1/input/a/b', '/telemetry/proxy', '/telemetry/proxy/', '/v1/inputs'])('finds nothing for %s', (path) => {
    expect(nameOf(path)).toBeUndefined();
  });

  /** request target → the path every decision takes */
  const NORMALISED: Readonly<Record<string, string>> = {
    '/api/v2/logs?api_key=k': '/api/v2/logs',
    '/': '/',
    '//': '/',
    '': '/',
    '/V1/Input//KeY/': '/V1/Input/KeY',
    'HTTP://user:pw@host:8126//v1/input/k?x': '/v1/input/k',
    'http://host': '/',
    '*': '/*',
  };

  it.each(Object.entries(NORMALISED))('normalises %p to %p, keeping case', (url, path) => {
    expect(normalizePath(url)).toBe(path);
    expect(normalizePath(path)).toBe(path);
  });

  it('refuses a pattern it cannot honour rather than matching it wrongly', () => {
    expect(() => new RouteTable([route('bad', '/a/:id/b')])).toThrow(/only a last-segment/);
  });

  it('finds every path the sidecar serves', () => {
    const real = new RouteTable(ROUTES);
    const concrete = (path: string): string => path.replace(/:[a-z]+$/i, 'k3y').replace(/\*[a-z]+$/i, 'a/b');
    for (const r of ROUTES) for (const path of r.paths) expect(real.match(normalizePath(concrete(path)))?.name).toBe(r.name);
  });
});
