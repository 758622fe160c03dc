/** RecencyMap: least-recently-set order under any mix of sets, deletes and evictions, and flat memory for the caches built on it. */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { StreamStartTimes } from '../../src/signals/metrics/start-times';
import { RecencyMap } from '../../src/signals/shared/recency-map';
import { TraceIdCache } from '../../src/signals/shared/trace-id';

/** The map's keys, oldest first, read by draining it. */
function drain<K>(map: RecencyMap<K, { key: K }>): K[] {
  const keys: K[] = [];
  for (let e = map.oldest(); e !== undefined; e = map.oldest()) {
    keys.push(e.key);
    map.dropOldest();
  }
  return keys;
}

describe('RecencyMap', () => {
  it('orders by last set: setting a key again moves it to the back, deletes anywhere close the gap', () => {
    const map = new RecencyMap<string, { key: string; n: number }>();
    expect(map.oldest()).toBeUndefined();
    map.dropOldest();
    for (const key of ['a', 'b', 'c', 'd']) map.set(key, { key, n: 1 });
    expect(map.oldest()?.key).toBe('a');
    map.set('a', { key: 'a', n: 2 });
    expect([map.oldest()?.key, map.get('a')?.n, map.size]).toEqual(['b', 2, 4]);
    map.delete('c');
    map.delete('zz');
    map.dropOldest();
    expect(drain(map)).toEqual(['d', 'a']);
    expect(map.size).toBe(0);
    map.set('e', { key: 'e', n: 3 });
    expect(drain(map)).toEqual(['e']);
  });

  it('equals a plain LRU through thousands of sets, deletes and evictions', () => {
    const map = new RecencyMap<number, { key: number }>();
    const reference: number[] = [];
    let seed = 11;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 20_000; i++) {
      const key = random(3) === 0 ? random(200) : 1000 + i;
      if (random(10) === 0) {
        map.delete(key);
        const at = reference.indexOf(key);
        if (at >= 0) reference.splice(at, 1);
        continue;
      }
      map.set(key, { key });
      const at = reference.indexOf(key);
      if (at >= 0) reference.splice(at, 1);
      reference.push(key);
      if (map.size > 40) {
        map.dropOldest();
        reference.shift();
      }
      expect([map.size, map.oldest()?.key]).toEqual([reference.length, reference[0]]);
    }
    expect(drain(map)).toEqual(reference);
  });

  describe('memory of caches that only ever re-set their entries', () => {
    // a Map kept in LRU order by delete and set, walked by a long-lived iterator, pinned every table V8 rehashed it into
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
