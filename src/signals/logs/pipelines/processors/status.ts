/**
 * The status remapper's reading of a value (Datadog's documented table): syslog numbers 0–7,
 * then the first letters of a word (`emerg`/`f` emergency, `a` alert, `c` critical, `e` error,
 * `w` warn, `n` notice, `i` info, `d`/`t`/`v` debug, `o`/`s` ok); anything else is info.
 */
import type { JsonValue } from '../../../../core/wire/json';

const SYSLOG = ['emergency', 'alert', 'critical', 'error', 'warn', 'notice', 'info', 'debug'];

export function statusOf(value: JsonValue): string {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 && value <= 7 ? (SYSLOG[value] as string) : 'info';
  const text = String(value).trim().toLowerCase();
  if (/^[0-7]$/.test(text)) return SYSLOG[Number(text)] as string;
  if (text.startsWith('emerg') || text.startsWith('f')) return 'emergency';
  switch (text[0]) {
    case 'a':
      return 'alert';
    case 'c':
      return 'critical';
    case 'e':
      return 'error';
    case 'w':
      return 'warn';
    case 'n':
      return 'notice';
    case 'i':
      return 'info';
    case 'd':
    case 't':
    case 'v':
      return 'debug';
    case 'o':
    case 's':
      return 'ok';
    default:
      return 'info';
  }
}
