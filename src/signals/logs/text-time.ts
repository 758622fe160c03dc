/**
 * The time a plain-text line's layout writes, for the lines text_correlation reads for their
 * level. Without it such a line carries the agent's read time, a second or more after the logger
 * wrote it (2 to 4 s in the captured clients' requests), which stretches HyperDX's trace view and
 * puts the line after the span it belongs to.
 *
 * The layouts: a date and time opening the line (Python's `%(asctime)s` `2026-11-26 13:39:25,879`,
 * logback / log4j2 / NLog `2026-11-26 13:50:24.734`, Go's `log` `2026/11/26 13:47:57`), a time
 * alone opening it (logback's default `13:50:24.734`), Ruby's `E, [2026-11-26T10:00:00.123456 #1]`,
 * Monolog's `[2026-11-26T10:00:00.123456+00:00]`, Serilog's `[13:50:24 ERR]`, a `time=` / `ts=`
 * key (slog, logrus, logfmt), and the `"timestamp":"…"` winston's text format appends.
 *
 * A time that states its zone is the line's time. One that does not is read as UTC, as Datadog's
 * pipelines read a date without a zone, and is taken only when it falls within WINDOW_NS of the
 * agent's read time: a logger writing local time, or a file read long after it was written, keeps
 * the agent's time rather than land hours away. A time with no date takes the read time's day
 * nearest to it.
 */

/** How far from the agent's read time a zone-less time may be and still be the line's. */
export const WINDOW_NS = 300n * 1_000_000_000n;

const NS_PER_MS = 1_000_000n;
const DAY_NS = 86_400n * 1_000_000_000n;
/** Where the layouts put their time: the start, or a `time=` key among the first fields. */
const TIME_WINDOW = 256;

interface Found {
  /** Epoch ns, reading the wall clock as UTC when no zone was written. */
  ns: bigint;
  zoned: boolean;
  dated: boolean;
}

const DATE_TIME = '(\\d{4})[-/](\\d{2})[-/](\\d{2})[T ](\\d{2}):(\\d{2}):(\\d{2})(?:[.,](\\d{1,9}))?(Z|[+-]\\d{2}(?::?\\d{2})?)?';
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})(?:[.,](\\d{1,9}))?';

/** Date-and-time layouts, looked for in the line's first TIME_WINDOW characters. */
const DATED: readonly RegExp[] = [
  // Python, logback / log4j2 with a date, NLog, Go log, ISO at the start
  new RegExp(`^${DATE_TIME}(?=[\\s|,\\]])`),
  // Ruby Logger: `E, [2026-11-26T10:00:00.123456 #123]`
  new RegExp(`^[A-Z], \\[${DATE_TIME} #`),
  // Monolog: `[2026-11-26T10:00:00.123456+00:00]`
  new RegExp(`^\\[${DATE_TIME}\\]`),
  // slog, logrus, logfmt: `time=2026-11-26T13:47:57.701Z`, `ts="…"`
  new RegExp(`(?:^|\\s)(?:time|ts)="?${DATE_TIME}(?=[\\s"]|$)`),
];
/** winston's text format appends its metadata: `info: message {…,"timestamp":"2026-11-26T13:39:40.006Z"}`. */
const APPENDED = new RegExp(`"timestamp":"${DATE_TIME}"`);

/** Time-only layouts: logback's default `13:50:24.734 [main] INFO`, Serilog's `[13:50:24 ERR]`. */
const UNDATED: readonly RegExp[] = [new RegExp(`^${TIME}(?= )`), new RegExp(`^\\[${TIME} [A-Z]{3}\\]`)];

const fractionNs = (digits: string | undefined): bigint => BigInt((digits ?? '').padEnd(9, '0'));

/** `+01:00`, `+0100`, `+01`, `Z` as minutes east of UTC. */
function offsetMinutes(zone: string): number {
  if (zone === 'Z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'));
}

function datedAt(m: RegExpExecArray): Found | undefined {
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return undefined;
  const wallMs = Date.UTC(year, month - 1, day, hour, minute, second);
  if (new Date(wallMs).getUTCDate() !== day) return undefined;
  const zone = m[8];
  const ms = wallMs - (zone === undefined ? 0 : offsetMinutes(zone) * 60_000);
  return { ns: BigInt(ms) * NS_PER_MS + fractionNs(m[7]), zoned: zone !== undefined, dated: true };
}

function undatedAt(m: RegExpExecArray): Found | undefined {
  const [hour, minute, second] = m.slice(1, 4).map(Number) as [number, number, number];
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  return { ns: BigInt((hour * 3600 + minute * 60 + second) * 1000) * NS_PER_MS + fractionNs(m[4]), zoned: false, dated: false };
}

/** The time the line's layout writes, before it is checked against the read time. */
export function writtenTime(text: string): Found | undefined {
  const head = text.length > TIME_WINDOW ? text.slice(0, TIME_WINDOW) : text;
  for (const layout of DATED) {
    const m = layout.exec(head);
    if (m) return datedAt(m);
  }
  for (const layout of UNDATED) {
    const m = layout.exec(head);
    if (m) return undatedAt(m);
  }
  const appended = APPENDED.exec(text);
  return appended ? datedAt(appended) : undefined;
}

const distance = (a: bigint, b: bigint): bigint => (a > b ? a - b : b - a);

/**
 * The line's own time in epoch ns, `readNs` being the agent's read time; undefined when the
 * line writes none, or a zone-less one further than WINDOW_NS from `readNs`.
 */
export function textTime(text: string, readNs: bigint): bigint | undefined {
  const found = writtenTime(text);
  if (found === undefined) return undefined;
  if (found.zoned) return found.ns > 0n ? found.ns : undefined;
  let ns = found.ns;
  if (!found.dated) {
    // the read time's day, or the one before or after, whichever puts the time nearest the read
    const day = (readNs / DAY_NS) * DAY_NS;
    ns = [day - DAY_NS, day, day + DAY_NS].map((d) => d + found.ns).reduce((best, c) => (distance(c, readNs) < distance(best, readNs) ? c : best));
  }
  return distance(ns, readNs) <= WINDOW_NS ? ns : undefined;
}
