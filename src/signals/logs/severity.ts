/**
 * Severity: Datadog status names (and syslog / logger aliases) → OTel SeverityNumber, with the
 * text lower-cased (ClickStack lower-cases it anyway, and HyperDX colours by the lower-case name).
 * Numbers: 0–7 are syslog levels; 10–60 in steps of 10 are pino/bunyan levels (the two ranges do
 * not overlap, so no guess about the source is needed). Unknown text keeps its text with number 0
 * (UNSPECIFIED) rather than inventing a level. No status at all means info, as Datadog's intake does.
 */
import { STATUS_KEYS } from './datadog';
import type { JsonValue } from '../../core/wire/json';
import { isEmptyValue, type LogDraft, type LogStep } from './draft';
import { consume, consumeOne } from './fields';

export interface Severity {
  number: number;
  text: string;
}

const TRACE = 1,
  DEBUG = 5,
  INFO = 9,
  INFO2 = 10,
  WARN = 13,
  ERROR = 17,
  ERROR2 = 18,
  ERROR3 = 19,
  FATAL = 21;

const BY_NAME: ReadonlyMap<string, Severity> = new Map(
  (
    [
      [['trace', 'silly'], TRACE, 'trace'],
      [['debug', 'dbug', 'verbose'], DEBUG, 'debug'],
      [['info', 'informational', 'information', 'ok', 'success', 'http'], INFO, 'info'],
      [['notice'], INFO2, 'notice'],
      [['warn', 'warning'], WARN, 'warn'],
      [['error', 'err'], ERROR, 'error'],
      [['critical', 'crit'], ERROR2, 'critical'],
      [['alert'], ERROR3, 'alert'],
      [['emergency', 'emerg', 'fatal', 'panic'], FATAL, 'fatal'],
    ] as const
  ).flatMap(([names, number, text]) => names.map((n) => [n, { number, text }] as const)),
);

/** RFC 5424 numeric levels. */
const SYSLOG: readonly Severity[] = [
  { number: FATAL, text: 'fatal' },
  { number: ERROR3, text: 'alert' },
  { number: ERROR2, text: 'critical' },
  { number: ERROR, text: 'error' },
  { number: WARN, text: 'warn' },
  { number: INFO2, text: 'notice' },
  { number: INFO, text: 'info' },
  { number: DEBUG, text: 'debug' },
];

/** pino / bunyan: 10 trace, 20 debug, 30 info, 40 warn, 50 error, 60 fatal. */
const NODE_LOGGER: ReadonlyMap<number, Severity> = new Map([
  [10, { number: TRACE, text: 'trace' }],
  [20, { number: DEBUG, text: 'debug' }],
  [30, { number: INFO, text: 'info' }],
  [40, { number: WARN, text: 'warn' }],
  [50, { number: ERROR, text: 'error' }],
  [60, { number: FATAL, text: 'fatal' }],
]);

export const DEFAULT_SEVERITY: Severity = { number: INFO, text: 'info' };

export function severityOf(value: JsonValue | undefined): Severity {
  if (value === undefined || value === null || value === '') return DEFAULT_SEVERITY;
  // the usual cases first, without building text: a lower-case name, a pino / syslog number
  if (typeof value === 'string') {
    const named = BY_NAME.get(value);
    if (named) return named;
  } else if (typeof value === 'number') {
    const known = SYSLOG[value] ?? NODE_LOGGER.get(value);
    if (known) return known;
  }
  const text = String(value).trim().toLowerCase();
  const n = typeof value === 'number' ? value : /^\d+$/.test(text) ? Number(text) : undefined;
  if (n !== undefined) return SYSLOG[n] ?? NODE_LOGGER.get(n) ?? { number: 0, text };
  return BY_NAME.get(text) ?? { number: 0, text };
}

/**
 * The first alias whose value is a level wins and is consumed: a Go slog line's `"status":503`
 * beside `"level":"ERROR"` is an application field, kept as an attribute, and the record is an
 * error. When no alias holds a level, the first one with text keeps its text with number 0 (as
 * before); with none the record is info. Empty aliases say nothing and are consumed with the winner.
 */
export const severity: LogStep = (draft) => {
  const { fields } = draft;
  let unknown: string | undefined;
  let empties: string[] | undefined;
  for (let i = 0; i < STATUS_KEYS.length; i++) {
    const key = STATUS_KEYS[i] as string;
    const value = fields.get(key);
    if (value === undefined) continue;
    if (isEmptyValue(value)) {
      empties ??= [];
      empties.push(key);
    } else {
      const s = severityOf(value);
      if (s.number !== 0) return setSeverity(draft, key, empties, s);
      unknown ??= key;
    }
  }
  return setSeverity(draft, unknown, empties, severityOf(unknown === undefined ? undefined : fields.get(unknown)));
};

function setSeverity(draft: LogDraft, key: string | undefined, empties: string[] | undefined, s: Severity): LogDraft {
  if (empties !== undefined) draft.fields = consume(draft.fields, key === undefined ? empties : [key, ...empties]);
  else if (key !== undefined) draft.fields = consumeOne(draft.fields, key);
  draft.severityNumber = s.number;
  draft.severityText = s.text;
  return draft;
}
