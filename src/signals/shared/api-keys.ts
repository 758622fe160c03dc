/**
 * API-key checks. Keys are compared as SHA-256 digests with timingSafeEqual, so neither a key's
 * content nor its length leaks through response timing. Keys are never logged or echoed: paths are
 * logged as loggablePath leaves them, and configured keys are taken out of every log line and
 * refusal by keyRedactor.
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

/** Rounds of percent-decoding that loggablePath undoes: `%2569` is `%69` after one, `i` after two. */
const DECODING_ROUNDS = 4;
const ENCODED_RUN = /(?:%[0-9a-f]{2})+/gi;
const HAS_ENCODED = /%[0-9a-f]{2}/i;

/** `text` with each run of percent-encoded bytes decoded once, as UTF-8 (a byte that is no UTF-8 becomes U+FFFD). */
const decodedOnce = (text: string): string => text.replace(ENCODED_RUN, (run) => Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'));

/** `path` with nothing percent-encoded left, or undefined when it is encoded more than DECODING_ROUNDS times over. */
function fullyDecoded(path: string): string | undefined {
  let decoded = path;
  for (let round = 0; round < DECODING_ROUNDS && HAS_ENCODED.test(decoded); round++) decoded = decodedOnce(decoded);
  return HAS_ENCODED.test(decoded) ? undefined : decoded;
}

/** `path` split at slashes and backslashes, without empty and `.` segments, each `..` taking the one before it away. */
function resolved(path: string): string {
  const segments: string[] = [];
  for (const segment of path.split(/[/\\]/)) {
    if (segment === '..') segments.pop();
    else if (segment !== '' && segment !== '.') segments.push(segment);
  }
  return `/${segments.join('/')}`;
}

/** All that follows the first `input` of a path, in any case: where ancient logs agents put the key (`/v1/input/<key>`). */
const AFTER_INPUT = /(input)(\/?).+$/is;

/**
 * The request path as it may be logged: the path only (no query string, fragment, scheme or host),
 * in the form a server or proxy that decodes it would see — percent-decoded however often it was
 * encoded, backslashes as slashes, dot segments resolved — with all that follows its first `input`
 * replaced. Any spelling of `/v1/input/<key>` (`/v1/%69nput/<key>`, `/v1/input%2F<key>`,
 * `/./v1/input/x/<key>`, `/v1/input\<key>`) thus loses its key, whatever the route table makes of
 * it and whether the key is configured or not. Configured keys are also taken out of every log
 * line and refusal wherever they are (keyRedactor). Replies do not echo the path at all.
 */
export function loggablePath(url: string): string {
  const decoded = fullyDecoded(normalizePath(url).split('#', 1)[0] as string);
  return decoded === undefined ? `<a path encoded more than ${DECODING_ROUNDS} times over>` : resolved(decoded).replace(AFTER_INPUT, '$1$2<redacted>');
}

/** A regex matching `byte` percent-encoded once or more (`%69`, `%2569`). */
const encodedByte = (byte: number): string => `%(?:25)*${byte.toString(16).padStart(2, '0')}`;

/** A regex matching `c` as it is or as its UTF-8 bytes percent-encoded once or more. */
const eitherSpelling = (c: string): string => `(?:${c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')}|${[...Buffer.from(c, 'utf8')].map(encodedByte).join('')})`;

/**
 * Replaces each of `keys` in a text by `<redacted>`: as it is, in any case (a Datadog key is
 * lower-case hex, so a key echoed lower-cased, as a Content-Encoding name is, is the key), and with
 * any of its characters percent-encoded once or more, hex digits in any case. The sidecar applies it
 * to every log line and every refusal, so that a configured key gets out nowhere, wherever a sender
 * put it.
 */
export function keyRedactor(keys: readonly string[]): (text: string) => string {
  const present = keys.filter((key) => key.length > 0);
  if (present.length === 0) return (text) => text;
  // the longest first, so that a key that starts another one never leaves the other's tail behind
  const alternatives = [...present].sort((a, b) => b.length - a.length).map((key) => [...key].map(eitherSpelling).join(''));
  const anyKey = new RegExp(alternatives.join('|'), 'gi');
  return (text) => text.replace(anyKey, '<redacted>');
}

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
