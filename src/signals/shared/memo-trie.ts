/**
 * The one shape of every promotion cache (logs, traces and metrics resources): a trie walked
 * along the texts a promotion reads, one key at a time, with what was built for that path at its
 * node. A lookup that hits allocates nothing, where joining the texts into one key string
 * allocated a key per record; equal texts meet at one node, so their records share what was
 * built there (the groupers recognise a shared resource by identity, group.ts).
 *
 * A trie that lives as long as a request needs no bound. One that outlives requests is a
 * {@link LastingMemoTrie}: past its bound it starts afresh, so a process does not grow with every
 * container or tag list it ever saw.
 */

/** Strings this long are found by length and comparison rather than by hashing (see {@link MemoTrie.next}). */
const LONG_KEY = 64;
/** Long keys of one length compared in turn, past which they are hashed like the others. */
const MAX_PER_LENGTH = 16;

interface LongChild<T> {
  readonly key: string;
  readonly node: MemoTrie<T>;
}

export class MemoTrie<T> {
  value: T | undefined;
  private children: Map<unknown, MemoTrie<T>> | undefined;
  private longChildren: Map<number, LongChild<T>[]> | undefined;

  /**
   * The node under `key` (keys compare as Map keys do), created when missing.
   *
   * A long string key is first told apart by length and then compared: a record's ddtags is a
   * new string of some 200 characters each time, whose hash V8 computes character by character on
   * first use (≈ 0.3 µs), while comparing equal strings runs word by word.
   */
  next(key: unknown): MemoTrie<T> {
    if (typeof key === 'string' && key.length >= LONG_KEY) {
      const found = this.nextLong(key);
      if (found !== undefined) return found;
    }
    if (this.children === undefined) this.children = new Map();
    let child = this.children.get(key);
    if (child === undefined) {
      child = new MemoTrie();
      this.children.set(key, child);
    }
    return child;
  }

  /** The node under `key` if one was made: a lookup that builds nothing, for callers that may not add. */
  find(key: unknown): MemoTrie<T> | undefined {
    if (typeof key === 'string' && key.length >= LONG_KEY) {
      const list = this.longChildren?.get(key.length);
      if (list !== undefined) for (let i = 0; i < list.length; i++) if ((list[i] as LongChild<T>).key === key) return (list[i] as LongChild<T>).node;
    }
    return this.children?.get(key);
  }

  /** The node under a long key, found or added among its length's; undefined once that list is full. */
  private nextLong(key: string): MemoTrie<T> | undefined {
    if (this.longChildren === undefined) this.longChildren = new Map();
    let list = this.longChildren.get(key.length);
    if (list === undefined) {
      list = [];
      this.longChildren.set(key.length, list);
    }
    for (let i = 0; i < list.length; i++) if ((list[i] as LongChild<T>).key === key) return (list[i] as LongChild<T>).node;
    if (list.length >= MAX_PER_LENGTH) return undefined;
    const node = new MemoTrie<T>();
    list.push({ key, node });
    return node;
  }

  /** Forgets every path below this node, and its own value. */
  clear(): void {
    this.value = undefined;
    this.children = undefined;
    this.longChildren = undefined;
  }
}

/**
 * A trie kept between requests, bounded by the number of values built under it: the owner calls
 * {@link admit} before building one; past `maxValues` the trie is cleared and `admit` says so,
 * since nodes the caller walked to are no longer part of it.
 */
export class LastingMemoTrie<T> extends MemoTrie<T> {
  private built = 0;

  constructor(private readonly maxValues: number) {
    super();
  }

  /** Counts one more value; false when that started the trie afresh (walk again from the root). */
  admit(): boolean {
    if (++this.built <= this.maxValues) return true;
    this.clear();
    this.built = 0;
    return false;
  }
}
