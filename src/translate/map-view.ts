/**
 * A map minus some keys, for translator steps that consume keys and must leave their input as it
 * was. Copying the map at every step was a large share of the logs and traces paths (a 10–25
 * entry Map per step per record); this view shares the original and remembers only which keys
 * are gone, so a step costs what it consumes rather than what the record holds.
 */
class MapWithout<V> implements ReadonlyMap<string, V> {
  constructor(
    private readonly base: ReadonlyMap<string, V>,
    /** distinct keys of `base` hidden by this view; an array because it holds a handful */
    private readonly gone: readonly string[],
  ) {}

  get size(): number {
    return this.base.size - this.gone.length;
  }

  has(key: string): boolean {
    return !this.gone.includes(key) && this.base.has(key);
  }

  get(key: string): V | undefined {
    return this.gone.includes(key) ? undefined : this.base.get(key);
  }

  /** Iteration copies the visible entries out: a generator here cost more than the copy. */
  private visible(): [string, V][] {
    const out: [string, V][] = [];
    this.base.forEach((value, key) => {
      if (!this.gone.includes(key)) out.push([key, value]);
    });
    return out;
  }

  entries(): MapIterator<[string, V]> {
    return this.visible().values();
  }

  keys(): MapIterator<string> {
    return this.visible()
      .map(([key]) => key)
      .values();
  }

  values(): MapIterator<V> {
    return this.visible()
      .map(([, value]) => value)
      .values();
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(callback: (value: V, key: string, map: ReadonlyMap<string, V>) => void): void {
    this.base.forEach((value, key) => {
      if (!this.gone.includes(key)) callback(value, key, this);
    });
  }

  /** Views do not stack: hiding more keys extends this view's set over the same base. */
  hide(keys: readonly string[]): MapWithout<V> {
    const gone = [...this.gone];
    for (const k of keys) if (this.has(k) && !gone.includes(k)) gone.push(k);
    return new MapWithout(this.base, gone);
  }
}

/** `map` without `keys`; the same map when none of them is present (the common case). */
export function without<V>(map: ReadonlyMap<string, V>, ...keys: string[]): ReadonlyMap<string, V> {
  if (!keys.some((k) => map.has(k))) return map;
  return (map instanceof MapWithout ? map : new MapWithout(map, [])).hide(keys);
}
