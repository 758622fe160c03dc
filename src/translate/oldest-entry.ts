/**
 * The oldest entry of a Map kept as an LRU (a key is deleted and set again when used, so Map order
 * is least recently used first), for bounded caches that evict or expire from the front.
 *
 * `map.keys().next()` would be the obvious way, but a fresh iterator walks every deleted slot at
 * the front of the Map until V8 compacts it, and an LRU deletes at every use: a full 100k-entry
 * cache paid ~16 µs per insert for that walk instead of ~1. One live iterator keeps its place
 * across deletions and compaction instead, and everything it has passed is gone or was moved
 * behind it, so the entry it holds (while still current) or yields next is the oldest.
 */
export class OldestEntry<K, V extends object> {
  private cursor: Iterator<[K, V]>;
  /** The last entry the cursor yielded; stale once its key was deleted or set again. */
  private held: [K, V] | undefined;

  constructor(private readonly map: Map<K, V>) {
    this.cursor = map.entries();
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
