/**
 * The URL parser's details (and grok's `url` / `querystring` filters): scheme, host, port, path
 * and query string of a URL, absolute or not. Query values stay as sent (not decoded), as
 * Datadog's expected results show; a key given twice keeps its last value.
 */
import type { JsonValue } from '../../../../core/wire/json';

const URL_PARTS = /^(?:([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;

export function queryStringOf(query: string): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const pair of query.replace(/^\?/, '').split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    if (eq === 0) continue;
    out[eq < 0 ? pair : pair.slice(0, eq)] = eq < 0 ? '' : pair.slice(eq + 1);
  }
  return out;
}

/** The details of `url`; undefined when it is not one. */
export function urlDetails(url: string): Record<string, JsonValue> | undefined {
  const m = URL_PARTS.exec(url.trim());
  if (!m) return undefined;
  const [, scheme, authority, path, query, fragment] = m;
  const out: Record<string, JsonValue> = {};
  if (authority !== undefined) {
    const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
    const port = /:(\d{1,5})$/.exec(hostPort);
    const host = port ? hostPort.slice(0, port.index) : hostPort;
    if (host !== '') out.host = host.replace(/^\[|\]$/g, '').toLowerCase();
    if (port) out.port = Number(port[1]);
  }
  if (path !== undefined && (path !== '' || authority !== undefined)) out.path = path;
  if (query !== undefined && query !== '') {
    const qs = queryStringOf(query);
    if (Object.keys(qs).length > 0) out.queryString = qs;
  }
  if (scheme !== undefined) out.scheme = scheme;
  // Datadog names the fragment `hash`, as browsers' location objects do (traefik_tests.yaml)
  if (fragment !== undefined && fragment !== '') out.hash = fragment;
  return out;
}
