/**
 * A Map kept in least-recently-set order, for the bounded caches that evict or expire from the
 * front (metric stream start times, trace ids).
 *
 * The order is a list threaded through the entries, not the Map's own insertion order. Keeping a
 * Map in LRU order means deleting and setting a key at every use: a fresh `keys()` iterator then
 * walks every deleted slot at the front (~16 µs per insert in a full 100k-entry cache), a long-lived
 * one pins every table V8 has since rehashed the Map into (1605 metric streams kept 42 MiB after
 * 500k points), and the rehashing itself, every few thousand writes, made tables and entries that
 * outlived the young generation. Here setting a key that is already there only moves its node to
 * the end; the Map changes when a key is added or removed.
 */
interface Node<K, V> {
  readonly key: K;
  value: V;
  older: Node<K, V> | undefined;
  newer: Node<K, V> | undefined;
}

export class RecencyMap<K, V> {
  private readonly nodes = new Map<K, Node<K, V>>();
  private first: Node<K, V> | undefined;
  private last: Node<K, V> | undefined;

  get size(): number {
    return this.nodes.size;
  }

  get(key: K): V | undefined {
    return this.nodes.get(key)?.value;
  }

  /** Sets `key` to `value` as the most recently set entry. */
  set(key: K, value: V): void {
    let node = this.nodes.get(key);
    if (node) {
      node.value = value;
      this.unlink(node);
    } else {
      node = { key, value, older: undefined, newer: undefined };
      this.nodes.set(key, node);
    }
    this.append(node);
  }

  delete(key: K): void {
    const node = this.nodes.get(key);
    if (!node) return;
    this.unlink(node);
    this.nodes.delete(key);
  }

  /** The least recently set value, or undefined when empty. */
  oldest(): V | undefined {
    return this.first?.value;
  }

  /** Deletes the least recently set entry. */
  dropOldest(): void {
    if (this.first) this.delete(this.first.key);
  }

  private append(node: Node<K, V>): void {
    node.older = this.last;
    node.newer = undefined;
    if (this.last) this.last.newer = node;
    else this.first = node;
    this.last = node;
  }

  private unlink(node: Node<K, V>): void {
    if (node.older) node.older.newer = node.newer;
    else this.first = node.newer;
    if (node.newer) node.newer.older = node.older;
    else this.last = node.older;
    node.older = node.newer = undefined;
  }
}

/**
 * A RecencyMap bounded in entries (the least recently set is evicted) and in age (an entry set
 * more than `ttlMs` ago reads as absent, and is dropped when read): the trace-id cache and the
 * host metadata table.
 */
export class ExpiringMap<K, V> {
  private readonly entries = new RecencyMap<K, { value: V; expiresAt: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  set(key: K, value: V): void {
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
    if (this.entries.size > this.maxEntries) this.entries.dropOldest();
  }

  get(key: K): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.value;
  }

  get size(): number {
    return this.entries.size;
  }
}
