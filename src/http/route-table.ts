/**
 * Finds the intake route for a request path. Paths match the way senders have always been
 * served (express's defaults, which the sidecar used before): case-insensitively, with or
 * without a trailing slash, `:name` standing for one path segment and `*name` for one or more.
 * Runs of slashes count as one, as behind nginx (`merge_slashes`). Exact paths, all but two, are
 * one Map lookup.
 */
import { normalizePath } from '../signals/shared/request-path';

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
