/** The start-time memory: window semantics, retries, and the bounds that keep memory flat. */
import { StreamStartTimes, windowStarts } from '../../src/signals/metrics/start-times';

const S = 1_000_000_000n;

describe('StreamStartTimes', () => {
  it('starts a new stream at its own timestamp, then each window where the previous one ended', () => {
    const t = new StreamStartTimes();
    expect(t.startFor('a', 100n * S)).toBe(100n * S);
    expect(t.startFor('a', 110n * S)).toBe(100n * S);
    expect(t.startFor('a', 125n * S)).toBe(110n * S);
    expect(t.startFor('b', 125n * S)).toBe(125n * S);
  });

  it('answers a resent point (agent retry after 503) with the same start', () => {
    const t = new StreamStartTimes();
    t.startFor('a', 100n * S);
    expect(t.startFor('a', 110n * S)).toBe(100n * S);
    expect(t.startFor('a', 110n * S)).toBe(100n * S);
    expect(t.startFor('a', 120n * S)).toBe(110n * S);
  });

  it('gives a late point a zero-width window and leaves the stream where it was', () => {
    const t = new StreamStartTimes();
    t.startFor('a', 100n * S);
    t.startFor('a', 110n * S);
    expect(t.startFor('a', 105n * S)).toBe(105n * S);
    expect(t.startFor('a', 120n * S)).toBe(110n * S);
  });

  it('holds at most maxEntries streams, evicting the least recently seen', () => {
    const t = new StreamStartTimes({ maxEntries: 3, idleMs: 60_000 });
    for (const id of ['a', 'b', 'c']) t.startFor(id, 100n * S);
    t.startFor('a', 110n * S); // a is now the most recent
    t.startFor('d', 100n * S); // evicts b
    expect(t.size).toBe(3);
    expect(t.startFor('a', 120n * S)).toBe(110n * S);
    expect(t.startFor('b', 120n * S)).toBe(120n * S); // forgotten
  });

  it('stays bounded under any number of distinct streams', () => {
    const t = new StreamStartTimes({ maxEntries: 1000, idleMs: 60_000 });
    for (let i = 0; i < 20_000; i++) t.startFor(`series-${i}|${'x'.repeat(i % 500)}`, 1n * S);
    expect(t.size).toBe(1000);
  });

  it('forgets streams idle longer than idleMs', () => {
    let now = 0;
    const t = new StreamStartTimes({ maxEntries: 100, idleMs: 1000 }, () => now);
    t.startFor('a', 100n * S);
    t.startFor('b', 100n * S);
    now = 999;
    t.startFor('b', 110n * S);
    now = 1500;
    expect(t.startFor('c', 100n * S)).toBe(100n * S);
    expect(t.size).toBe(2); // a expired; b was touched at 999
    expect(t.startFor('a', 120n * S)).toBe(120n * S);
  });
});

describe('windowStarts', () => {
  it('uses the stated interval without computing the identity or touching the memory', () => {
    const t = new StreamStartTimes();
    const identity = jest.fn(() => 'a');
    const startOf = windowStarts(t, identity, 10);
    expect([startOf(100n * S), startOf(110n * S)]).toEqual([90n * S, 100n * S]);
    expect(identity).not.toHaveBeenCalled();
    expect(t.size).toBe(0);
  });

  it('falls back to the stream history without an interval', () => {
    const t = new StreamStartTimes();
    const startOf = windowStarts(t, () => 'a', 0);
    expect([startOf(100n * S), startOf(115n * S)]).toEqual([100n * S, 100n * S]);
  });
});
