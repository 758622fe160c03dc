/**
 * JSON numbers are doubles: an integer past 2^53 (a 64-bit id, a nanosecond time) loses its last
 * digits in JSON.parse. Quoting such integers first keeps every digit, as text: ClickHouse stores
 * attributes as text anyway, so the value lands exactly as it was written (Datadog keeps these as
 * 64-bit integers: integrations-core's cisco_secure_endpoint and falco results).
 */

/** Fewer digits than this are always exact in a double (2^53 has 16). */
const EXACT_DIGITS = 15;
const DIGIT_RUN = /\d{16}/;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
/** What may follow a number's integer digits: a fraction, an exponent and their digits. */
const isNumberPart = (c: number): boolean => isDigit(c) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === MINUS;

/**
 * Whether the integer text `digits` (sign allowed) is past what a double holds for every integer
 * (2^53). Quoted even when the double would print the same digits (`18740519930145470`, as JSON
 * writers print doubles): as a double it would reach ClickHouse as `1.874051993014547e+16`.
 */
function unsafe(digits: string): boolean {
  return digits.replace('-', '').length > EXACT_DIGITS && !Number.isSafeInteger(Number(digits));
}

/**
 * `text` (JSON) with every bare integer a double cannot hold exactly written as a string; the
 * text itself when it has none (the usual case costs one scan for a run of 16 digits).
 */
export function quoteUnsafeIntegers(text: string): string {
  if (!DIGIT_RUN.test(text)) return text;
  let out = '';
  let copied = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i + 1);
      continue;
    }
    if (!isDigit(c) && c !== MINUS) {
      i++;
      continue;
    }
    let end = i + 1;
    while (end < n && isDigit(text.charCodeAt(end))) end++;
    // a fraction or an exponent makes it a double on purpose: the whole number is passed over
    let last = end;
    while (last < n && isNumberPart(text.charCodeAt(last))) last++;
    if (last === end && unsafe(text.slice(i, end))) {
      out += `${text.slice(copied, i)}"${text.slice(i, end)}"`;
      copied = end;
    }
    i = last;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** The index just past the string whose text starts at `from` (after its opening quote). */
function stringEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i += 2;
    else if (c === QUOTE) return i + 1;
    else i++;
  }
  return i;
}
