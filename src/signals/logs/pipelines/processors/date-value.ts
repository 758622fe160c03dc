/**
 * The date remapper's reading of a value: epoch milliseconds (a number or numeric text, always
 * milliseconds: Datadog's results read `1604933654` as a 1970 date), ISO 8601, and RFC 3164's
 * `Mmm dd HH:mm:ss` (this year, UTC).
 */
import type { JsonValue } from '../../../../core/wire/json';

/** A date, optionally a time with seconds, fraction and zone: what Date.parse reads exactly, and nothing looser. */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;
const RFC3164 = /^([A-Z][a-z]{2}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2})$/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const epochMs = (n: number): number | undefined => (Number.isFinite(n) && n >= 0 ? Math.trunc(n) : undefined);

export function dateValueMs(value: JsonValue | undefined, now = new Date()): number | undefined {
  if (typeof value === 'number') return epochMs(value);
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return epochMs(Number(text));
  const syslog = RFC3164.exec(text);
  if (syslog) {
    const month = MONTHS.indexOf(syslog[1] as string);
    if (month < 0) return undefined;
    return Date.UTC(now.getUTCFullYear(), month, Number(syslog[2]), Number(syslog[3]), Number(syslog[4]), Number(syslog[5]));
  }
  if (!ISO_8601.test(text)) return undefined;
  const ms = Date.parse(text.replace(' ', 'T'));
  return Number.isNaN(ms) ? undefined : ms;
}
