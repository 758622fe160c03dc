/**
 * Finds the intake route for a request path. Paths match the way senders have always been
 * served (express's defaults, which the sidecar used before): case-insensitively, with or
 * without a trailing slash, `:name` standing for one path segment and `*name` for one or more.
 * Runs of slashes count as one, as behind nginx (`merge_slashes`). Exact paths, all but two, are
 * one Map lookup.
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

/** A path pattern turned into a test of a lower-cased normalised path. */
type Matcher = (path: string) => boolean;

/** `/v1/input/:key` → one non-empty segment after the prefix; `/telemetry/proxy/*path` → anything non-empty after it. */
function patternMatcher(pattern: string): Matcher | undefined {
  const at = pattern.search(/[:*]/);
  if (at < 0) return undefined;
  const prefix = pattern.slice(0, at).toLowerCase();
  if (!prefix.endsWith('/') || pattern.indexOf('/', at) >= 0) throw new Error(`route pattern ${pattern}: only a last-segment :name or *name is supported`);
  const oneSegment = pattern[at] === ':';
  return (path) => path.length > prefix.length && path.startsWith(prefix) && (!oneSegment || path.indexOf('/', prefix.length) < 0);
}

export class RouteTable<R extends { paths: readonly string[] }> {
  private readonly exact = new Map<string, R>();
  private readonly patterns: [Matcher, R][] = [];

  constructor(routes: readonly R[]) {
    for (const route of routes) {
      for (const path of route.paths) {
        const matcher = patternMatcher(path);
        if (matcher) this.patterns.push([matcher, route]);
        else this.exact.set(normalizePath(path.toLowerCase()), route);
      }
    }
  }

  /** The route serving `path` (a normalizePath result), whatever the method. */
  match(path: string): R | undefined {
    const key = path.toLowerCase();
    return this.exact.get(key) ?? this.patterns.find(([matches]) => matches(key))?.[1];
  }
}
