import { OldestEntry } from '../../src/translate/oldest-entry';

const entry = (n: number) => ({ n });

describe('OldestEntry', () => {
  it('follows the map as an LRU: sets move a key to the back, deletes anywhere are skipped', () => {
    const map = new Map<string, { n: number }>();
    const oldest = new OldestEntry(map);
    expect(oldest.peek()).toBeUndefined();
    for (const k of ['a', 'b', 'c', 'd']) map.set(k, entry(1));
    expect(oldest.peek()?.[0]).toBe('a');
    // 'a' used again: deleted and set with a new value, so it is now the newest
    map.delete('a');
    map.set('a', entry(2));
    expect(oldest.peek()?.[0]).toBe('b');
    map.delete('c');
    oldest.drop();
    expect([...map.keys()]).toEqual(['d', 'a']);
    expect(oldest.peek()?.[0]).toBe('d');
  });

  it('starts again from the front once it has seen every entry and the map refills', () => {
    const map = new Map<number, { n: number }>([[1, entry(1)]]);
    const oldest = new OldestEntry(map);
    oldest.drop();
    expect(map.size).toBe(0);
    expect(oldest.peek()).toBeUndefined();
    map.set(2, entry(2));
    map.set(3, entry(3));
    expect(oldest.peek()?.[0]).toBe(2);
    oldest.drop();
    oldest.drop();
    oldest.drop();
    expect(map.size).toBe(0);
  });

  it('equals a plain LRU through thousands of uses and evictions (many compactions)', () => {
    const map = new Map<number, { n: number }>();
    const oldest = new OldestEntry(map);
    const reference: number[] = [];
    let seed = 11;
    const random = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let i = 0; i < 20_000; i++) {
      const key = random(3) === 0 ? random(200) : 1000 + i;
      map.delete(key);
      map.set(key, entry(i));
      const at = reference.indexOf(key);
      if (at >= 0) reference.splice(at, 1);
      reference.push(key);
      if (map.size > 40) {
        oldest.drop();
        reference.shift();
      }
      if (i % 997 === 0) expect([...map.keys()]).toEqual(reference);
    }
    expect([...map.keys()]).toEqual(reference);
    expect(oldest.peek()?.[0]).toBe(reference[0]);
  });
});
