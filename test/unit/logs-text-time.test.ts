/**
 * A plain-text line's own time (src/signals/logs/text-time.ts): the layouts text_correlation reads
 * for their level, a stated zone taken as written, a zone-less time only near the agent's read
 * time, a time without a date on the read time's nearest day. The captured clients' lines are in
 * test/unit/logs-captured-golden.test.ts; these are the edges.
 */
import { textTime, WINDOW_NS } from '../../src/signals/logs/text-time';

const ns = (iso: string): bigint => BigInt(Date.parse(iso)) * 1_000_000n;
const READ = ns('2026-11-26T13:39:28.347Z');

it.each([
  ['Python asctime', '2026-11-26 13:39:25,879 WARNING [shop] [app.py:66] - large order', '2026-11-26T13:39:25.879Z'],
  ['logback with a date', '2026-11-26 13:39:25.522 [main] DEBUG shop.X - looking up', '2026-11-26T13:39:25.522Z'],
  ['logback default, time only', '13:39:24.734 [http-nio-auto-1-exec-1] INFO  shop.X -- created', '2026-11-26T13:39:24.734Z'],
  ['Go log', '2026/11/26 13:39:27 ERROR boom', '2026-11-26T13:39:27.000Z'],
  ['slog text, zone stated', 'time=2026-11-26T14:39:27.701+01:00 level=INFO msg="order created"', '2026-11-26T13:39:27.701Z'],
  ['logrus, quoted', 'time="2026-11-26T13:39:27Z" level=warning msg=x', '2026-11-26T13:39:27.000Z'],
  ['Ruby Logger', 'E, [2026-11-26T13:39:27.123 #123] ERROR -- : boom', '2026-11-26T13:39:27.123Z'],
  ['Monolog', '[2026-11-26T13:39:27.123+00:00] app.ERROR: boom', '2026-11-26T13:39:27.123Z'],
  ['Serilog', '[13:39:27 ERR] boom', '2026-11-26T13:39:27.000Z'],
  ['winston text', 'warn: large order {"item":"widget","timestamp":"2026-11-26T13:39:25.981Z"}', '2026-11-26T13:39:25.981Z'],
])('%s', (_name, line, expected) => {
  expect(textTime(line, READ)).toBe(ns(expected));
});

it('keeps every digit of a fraction down to the nanosecond', () => {
  expect(textTime('time=2026-11-26T13:39:27.701465951Z level=INFO', READ)).toBe(ns('2026-11-26T13:39:27.701Z') + 465_951n);
  expect(textTime('E, [2026-11-26T13:39:27.123456 #123] ERROR -- : boom', READ)).toBe(ns('2026-11-26T13:39:27.123Z') + 456_000n);
});

it('a stated zone is taken however far from the read time (a file read late is still dated right)', () => {
  expect(textTime('time=2026-11-25T08:00:00Z level=INFO msg=old', READ)).toBe(ns('2026-11-25T08:00:00Z'));
});

it('a zone-less time further than the window from the read time is not taken: local time, or an old line', () => {
  // a logger writing local time an hour ahead of UTC
  expect(textTime('2026-11-26 14:39:25,879 INFO [shop] - x', READ)).toBeUndefined();
  // a file read a day after it was written
  expect(textTime('2026-11-25 13:39:25,879 INFO [shop] - x', READ)).toBeUndefined();
  // just inside the window
  const edge = READ - WINDOW_NS;
  expect(textTime('2026-11-26 13:34:28,347 INFO [shop] - x', READ)).toBe(edge);
});

it('a time without a date takes the read time’s nearest day, across midnight too', () => {
  expect(textTime('23:59:59.900 [main] INFO x', ns('2026-11-27T00:00:01.000Z'))).toBe(ns('2026-11-26T23:59:59.900Z'));
  expect(textTime('00:00:00.100 [main] INFO x', ns('2026-11-26T23:59:58.000Z'))).toBe(ns('2026-11-27T00:00:00.100Z'));
});

it('reads no time where the layouts put none, and no impossible date', () => {
  expect(textTime('fail: Shop.Checkout[0]', READ)).toBeUndefined();
  expect(textTime('\tat shop.InvoiceController.pay(InvoiceController.java:51)', READ)).toBeUndefined();
  expect(textTime('order 2026-11-26 13:39:25 created', READ)).toBeUndefined();
  expect(textTime('2026-02-30 13:39:25,879 INFO x', READ)).toBeUndefined();
});
