/** Datadog's `*` in a tag or attribute value, and what HyperDX's search makes of it. */

const glob = (pattern: string): RegExp =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );

/**
 * A wildcard value as a test of a value: Datadog's pattern, or (`contains`) what HyperDX's
 * Lucene does with a bare value: the outer `*` dropped, any value containing the rest, in any case.
 */
export function wildcardTest(value: string, contains: boolean): (v: string) => boolean {
  if (!contains) {
    const re = glob(value);
    return (v) => re.test(v);
  }
  const rest = value.replace(/^\*+|\*+$/g, '').toLowerCase();
  return (v) => v.toLowerCase().includes(rest);
}
