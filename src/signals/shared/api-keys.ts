/**
 * API-key checks. Keys are compared as SHA-256 digests with timingSafeEqual, so neither a key's
 * content nor its length leaks through response timing. Keys are never logged or echoed.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { normalizePath } from './request-path';

const digest = (key: string): Buffer => createHash('sha256').update(key, 'utf8').digest();

export function keyChecker(keys: readonly string[]): (candidate: string | undefined) => boolean {
  const digests = keys.map(digest);
  return (candidate) => {
    if (candidate === undefined || candidate === '') return false;
    const d = digest(candidate);
    // check every key so the time taken does not depend on which one matched
    let ok = false;
    for (const k of digests) ok = timingSafeEqual(k, d) || ok;
    return ok;
  };
}

const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/** The `<key>` of `/v1/input/<key>`, in a path from normalizePath (request-path.ts), as the route table matches it: any case. */
const PATH_KEY = /^(\/v1\/input\/)([^/]+)/i;

/** The path segment as sent, percent-decoded; one that cannot be decoded (`%ZZ`) is no key at all. */
function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * Where senders put the key: the DD-API-KEY header (agents, API clients), the `api_key` query
 * parameter (/api/v1/validate), `dd-api-key` (ancient logs agents) or the `/v1/input/<key>` path.
 */
export function presentedKey(headers: IncomingHttpHeaders, query: URLSearchParams, url: string): string | undefined {
  const fromPath = PATH_KEY.exec(normalizePath(url))?.[2];
  return first(headers['dd-api-key']) ?? query.get('api_key') ?? query.get('dd-api-key') ?? (fromPath === undefined ? undefined : decodedSegment(fromPath));
}

/**
 * The request path as it may be logged or echoed: normalised, and with the key ancient logs agents
 * put in `/v1/input/<key>` replaced, under every spelling the route table accepts.
 */
export const loggablePath = (url: string): string => normalizePath(url).replace(PATH_KEY, '$1<redacted>');

/** Query parameters whose value is a credential: api_key, dd-api-key, access_token, password, … */
const SECRET_PARAM = /key|token|secret|passw|pwd|auth|signature|credential/i;

/**
 * A URL as it may be logged or served (/health): without `user:password@` and without the values
 * of query parameters that look like credentials. Works on scheme-less `host:port` too.
 */
export function redactUrl(url: string): string {
  const withoutUserinfo = url.replace(/^((?:[a-z][a-z0-9+.-]*:)?\/\/)?[^/?#]*@/i, '$1<redacted>@');
  const q = withoutUserinfo.indexOf('?');
  if (q < 0) return withoutUserinfo;
  const params = withoutUserinfo
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq > 0 && SECRET_PARAM.test(pair.slice(0, eq)) ? `${pair.slice(0, eq)}=<redacted>` : pair;
    });
  return `${withoutUserinfo.slice(0, q)}?${params.join('&')}`;
}
