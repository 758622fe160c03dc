/**
 * API-key checks. Keys are compared as SHA-256 digests with timingSafeEqual, so neither a key's
 * content nor its length leaks through response timing. Keys are never logged or echoed.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

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

/**
 * Where senders put the key: the DD-API-KEY header (agents, API clients), the `api_key` query
 * parameter (/api/v1/validate), `dd-api-key` (ancient logs agents) or the `/v1/input/<key>` path.
 */
export function presentedKey(headers: IncomingHttpHeaders, query: URLSearchParams, path: string): string | undefined {
  const fromPath = /^\/v1\/input\/([^/]+)\/?$/.exec(path)?.[1];
  return first(headers['dd-api-key']) ?? query.get('api_key') ?? query.get('dd-api-key') ?? (fromPath ? decodeURIComponent(fromPath) : undefined);
}

/** The request path as it may be logged: ancient logs agents put the key in `/v1/input/<key>`. */
export const loggablePath = (path: string): string => path.replace(/^(\/v1\/input\/)[^/]+/, '$1<redacted>');
