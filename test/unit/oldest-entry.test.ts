import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { StreamStartTimes } from '../../src/translate/metrics/start-times';
import { OldestEntry } from '../../src/translate/oldest-entry';
import { TraceIdCache } from '../../src/translate/trace-id';

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

  it('equals a plain LRU through thousands of uses and evictions (many compactions and fresh cursors)', () => {
    const map = new Map<number, { n: number }>();
    const oldest = new OldestEntry(map);
    const reference: number[] = [];
    let seed = 11;
    const random = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let i = 0; i < 20_000; i++) {
      const key = random(3) === 0 ? random(200) : 1000 + i;
      oldest.set(key, entry(i));
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

  it('keeps its place when its cursor is made afresh between peeks', () => {
    const map = new Map<number, { n: number }>();
    const oldest = new OldestEntry(map);
    for (let i = 0; i < 3000; i++) oldest.set(i, entry(i));
    expect(oldest.peek()?.[0]).toBe(0);
    for (let i = 0; i < 2500; i++) oldest.set(i, entry(-i));
    expect(oldest.peek()?.[0]).toBe(2500);
    oldest.drop();
    expect(oldest.peek()?.[0]).toBe(2501);
  });

  describe('memory of caches that only ever re-set their entries', () => {
    // a cursor that never moved pinned every table V8 rehashed the Map into since
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const retainedMiB = (work: () => void): number => {
      gc();
      const before = process.memoryUsage().heapUsed;
      work();
      gc();
      return (process.memoryUsage().heapUsed - before) / 2 ** 20;
    };

    it('metric start times: 1605 streams, 300k points', () => {
      const streams = new StreamStartTimes();
      const ids = Array.from({ length: 1605 }, (_, i) => `exponential_histogram\0db.latency\0${'x'.repeat(40)}${i}`);
      const retained = retainedMiB(() => {
        for (let r = 0; r < 300_000; r++) streams.startFor(`${ids[r % ids.length]}`, BigInt(1 + Math.floor(r / ids.length)));
      });
      expect(streams.size).toBe(1605);
      // 25 MiB and growing before; the entries themselves are well under 1 MiB
      expect(retained).toBeLessThan(4);
    });

    it('trace ids: 2000 traces remembered again and again', () => {
      const cache = new TraceIdCache();
      const retained = retainedMiB(() => {
        for (let r = 0; r < 300_000; r++) cache.remember(BigInt(1 + (r % 2000)), 7n);
      });
      expect(cache.size).toBe(2000);
      expect(retained).toBeLessThan(4);
    });
  });
});
