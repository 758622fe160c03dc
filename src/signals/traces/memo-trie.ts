/**
 * A memo keyed by a sequence of values (compared as Map keys compare them), walked one value at a
 * time: a lookup that hits allocates nothing, where joining the values into one string key
 * allocated a key per lookup. It lives as long as the payload it memoises for.
 */
export class MemoTrie<T> {
  value: T | undefined;
  private readonly children = new Map<unknown, MemoTrie<T>>();

  next(key: unknown): MemoTrie<T> {
    let child = this.children.get(key);
    if (!child) {
      child = new MemoTrie();
      this.children.set(key, child);
    }
    return child;
  }
}
