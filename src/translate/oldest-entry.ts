/**
 * The oldest entry of a Map kept as an LRU (a key is deleted and set again when used, so Map order
 * is least recently used first), for bounded caches that evict or expire from the front.
 *
 * `map.keys().next()` would be the obvious way, but a fresh iterator walks every deleted slot at
 * the front of the Map until V8 compacts it, and an LRU deletes at every use: a full 100k-entry
 * cache paid ~16 µs per insert for that walk instead of ~1. One live iterator keeps its place
 * across deletions and compaction instead, and everything it has passed is gone or was moved
 * behind it, so the entry it holds (while still current) or yields next is the oldest.
 *
 * But an iterator that does not move pins every table V8 has since rehashed the Map into: each
 * obsolete table points to its successor until the iterator catches up. A Map whose entries are
 * deleted and set again at every use is rehashed every few thousand writes, and a cache that
 * neither fills up nor expires anything never moves its iterator, so the chain grew without end
 * (1605 metric streams kept 42 MiB after 500k points). Writes go through {@link set}, which makes
 * the iterator afresh once per Map's worth of writes: its first step then walks at most the
 * holes of one table, a few slots per write spread out.
 */
/** A small Map is rehashed often; a fresh cursor per this many writes at least keeps the walk rare. */
const MIN_WRITES_PER_CURSOR = 1024;

export class OldestEntry<K, V extends object> {
  private cursor: Iterator<[K, V]>;
  /** The last entry the cursor yielded; stale once its key was deleted or set again. */
  private held: [K, V] | undefined;
  private writesSinceFresh = 0;

  constructor(private readonly map: Map<K, V>) {
    this.cursor = map.entries();
  }

  /** Sets `key` as the most recently used entry (deleted first: Map order is insertion order). */
  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (++this.writesSinceFresh >= Math.max(MIN_WRITES_PER_CURSOR, this.map.size)) {
      this.writesSinceFresh = 0;
      this.cursor = this.map.entries();
      this.held = undefined;
    }
  }

  /** The least recently set entry, or undefined when the map is empty. Values are compared by identity. */
  peek(): [K, V] | undefined {
    while (this.held === undefined || this.map.get(this.held[0]) !== this.held[1]) {
      let next = this.cursor.next();
      // a cursor that once reached the end stays there, blind to later entries: start it again
      if (next.done) {
        this.cursor = this.map.entries();
        next = this.cursor.next();
        if (next.done) {
          this.held = undefined;
          return undefined;
        }
      }
      this.held = next.value;
    }
    return this.held;
  }

  /** Deletes the least recently set entry. */
  drop(): void {
    const oldest = this.peek();
    if (oldest === undefined) return;
    this.map.delete(oldest[0]);
    this.held = undefined;
  }
}
