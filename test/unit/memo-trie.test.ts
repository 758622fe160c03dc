import fc from 'fast-check';
import { LastingMemoTrie, MemoTrie } from '../../src/signals/shared/memo-trie';

describe('MemoTrie (every promotion cache)', () => {
  it('meets at one node for equal key paths and at different nodes otherwise, long string keys included', () => {
    const key = fc.oneof(fc.constantFrom(undefined, 1, 'a', ''), fc.string({ minLength: 60, maxLength: 70 }), fc.constantFrom('x'.repeat(64), 'y'.repeat(64)));
    fc.assert(
      fc.property(fc.array(fc.array(key, { maxLength: 4 }), { minLength: 1, maxLength: 40 }), (paths) => {
        const root = new MemoTrie<string>();
        const walk = (path: unknown[]) => path.reduce((node: MemoTrie<string>, k) => node.next(k), root);
        for (const path of paths) walk(path).value ??= JSON.stringify(path);
        for (const path of paths) expect(walk(path).value).toBe(JSON.stringify(path));
      }),
    );
  });

  it('keeps finding long keys past the number compared in turn for one length', () => {
    const root = new MemoTrie<number>();
    const keys = Array.from({ length: 40 }, (_, i) => `${'t'.repeat(100)}${String(i).padStart(2, '0')}`);
    keys.forEach((k, i) => {
      root.next(k).value = i;
    });
    keys.forEach((k, i) => {
      expect(root.next(k).value).toBe(i);
      expect(root.find(k)?.value).toBe(i);
    });
  });

  it('find builds nothing for a miss', () => {
    const root = new MemoTrie<number>();
    expect(root.find('a')).toBeUndefined();
    expect(root.find('a'.repeat(80))).toBeUndefined();
    root.next('b').value = 1;
    expect(root.find('a')).toBeUndefined();
    expect(root.find('b')?.value).toBe(1);
  });

  it('a lasting trie starts afresh past its bound and says so', () => {
    const trie = new LastingMemoTrie<number>(2);
    expect(trie.admit()).toBe(true);
    trie.next('a').value = 1;
    expect(trie.admit()).toBe(true);
    trie.next('b').value = 2;
    expect(trie.admit()).toBe(false);
    expect(trie.find('a')).toBeUndefined();
    expect(trie.find('b')).toBeUndefined();
    expect(trie.admit()).toBe(true);
  });
});
