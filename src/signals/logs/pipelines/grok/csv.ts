/**
 * Grok's `csv(headers[, separator[, quote]])` filter: one line of values named by the headers.
 * A quoted value may hold the separator, a doubled quote is one quote; missing values and extra
 * ones are left out; integers and decimals become numbers.
 */
import type { JsonValue } from '../../../../core/wire/json';

function fieldsOf(line: string, separator: string, quote: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quoted) {
      if (c === quote && line[i + 1] === quote) {
        field += quote;
        i++;
      } else if (c === quote) quoted = false;
      else field += c;
    } else if (c === quote && field === '') quoted = true;
    else if (c === separator) {
      fields.push(field);
      field = '';
    } else field += c;
  }
  fields.push(field);
  return fields;
}

const toValue = (text: string): JsonValue => (/^[+-]?\d+(?:\.\d+)?$/.test(text) && text.length <= 15 ? Number(text) : text);

export function csvRecord(line: string, headers: readonly string[], separator: string, quote: string): Record<string, JsonValue> {
  const values = fieldsOf(line, separator, quote);
  const out: Record<string, JsonValue> = {};
  for (let i = 0; i < headers.length && i < values.length; i++) {
    const value = values[i] as string;
    if (value !== '') out[headers[i] as string] = toValue(value);
  }
  return out;
}
