/**
 * The request path as routing, key finding and redaction see it. Here, below the HTTP layer,
 * because src/signals/shared/api-keys.ts needs the very form the route table matches.
 */

/** `scheme://authority` of an absolute-form request target (RFC 9112 §3.2.2), which servers must accept. */
const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/**
 * The one form of a request path that every decision about it takes — routing, finding the API
 * key in `/v1/input/<key>`, redacting that key from logs and replies — so they cannot disagree
 * about, say, `//v1/input/<key>`: no query string, no scheme or host, runs of slashes as one, no
 * trailing slash. Case is kept (keys are case-sensitive); matching ignores it.
 */
export function normalizePath(url: string): string {
  const q = url.indexOf('?');
  let path = q < 0 ? url : url.slice(0, q);
  if (!path.startsWith('/')) path = path.replace(ABSOLUTE_FORM, '');
  if (path.includes('//')) path = path.replace(/\/{2,}/g, '/');
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return path.startsWith('/') ? path : `/${path}`;
}
