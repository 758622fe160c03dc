/**
 * Grok's filters (`%{matcher:name:filter(args)}`): what a match becomes after its matcher made a
 * value of it. A filter returning undefined drops the attribute (`nullIf` matched, `json` that is
 * not JSON); an object from a filter with no attribute name (`%{data::keyvalue}`) is merged into
 * the log's root.
 */
import { quoteUnsafeIntegers } from '../../../../core/wire/big-integers';
import type { JsonValue } from '../../../../core/wire/json';
import { queryStringOf, urlDetails } from '../processors/url';
import { prepareUserAgentParser, userAgentDetails } from '../processors/user-agent';
import { csvRecord } from './csv';
import { KeyValueParser, keyValueOptions } from './keyvalue';
import { callOf } from './syntax';
import { xmlToJson } from './xml';

export type Filter = (value: JsonValue) => JsonValue | undefined;

export class FilterError extends Error {}

const textOf = (value: JsonValue): string => (typeof value === 'string' ? value : JSON.stringify(value));

function toNumber(value: JsonValue): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

function parseJson(value: JsonValue): JsonValue | undefined {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(quoteUnsafeIntegers(value)) as JsonValue;
  } catch {
    // Datadog reads strings holding raw line breaks and tabs (wazuh's multi-line `full_log`)
    try {
      return JSON.parse(quoteUnsafeIntegers(escapeControlsInStrings(value))) as JsonValue;
    } catch {
      return undefined;
    }
  }
}

/** `text` with the control characters inside its JSON strings escaped (`\n` for a raw line break). */
function escapeControlsInStrings(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (inString && c === '\\') {
      out += c + (text[i + 1] ?? '');
      i++;
      continue;
    }
    if (c === '"') inString = !inString;
    const code = c.charCodeAt(0);
    out += inString && code < 0x20 ? `\\u${code.toString(16).padStart(4, '0')}` : c;
  }
  return out;
}

/** `{name => "John", "job" => {…}}` → JSON, then parsed; undefined when it is not such a hash. */
function parseRubyHash(value: JsonValue): JsonValue | undefined {
  if (typeof value !== 'string') return undefined;
  const json = value.replace(/("(?:[^"\\]|\\.)*")|([A-Za-z_][\w]*)\s*=>/g, (m, quoted: string | undefined, bare: string | undefined) => (quoted !== undefined ? m : `"${bare}":`)).replace(/=>/g, ':');
  return parseJson(json);
}

function decodeUri(value: JsonValue): JsonValue | undefined {
  if (typeof value !== 'string') return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** `array(",")`, `array("[]", ",")`, `array("[]", ",", integer)`: a list of tokens. */
function arrayFilter(args: readonly string[], bare: readonly string[]): Filter {
  const [first, second] = args;
  const [openClose, separator] = args.length >= 2 ? [first as string, second as string] : ['', first ?? ','];
  const inner = bare.length > 0 ? callOf(bare[0] as string) : undefined;
  const each = inner ? filterOf(inner.name, inner.args, inner.bare) : undefined;
  const sep = separator.replace(/\\n/g, '\n').replace(/\\t/g, '\t');
  return (value) => {
    let text = textOf(value);
    // a list in its brackets loses them, the ones given or `[]` (forcepoint's `["CDS","Guest"]`
    // with a separator only); a list without is read as it is (ping_federate's `UserAdmin,Admin`)
    const [open, close] = openClose.length === 2 ? [openClose[0] as string, openClose[1] as string] : ['[', ']'];
    if (text.length >= 2 && text.startsWith(open) && text.endsWith(close)) text = text.slice(1, -1);
    if (text === '') return [];
    const items: JsonValue[] = [];
    for (const part of text.split(sep)) {
      // with brackets given, elements keep their blanks (ping_federate's `array("[]", ",")` over
      // `[a, b]` gives " b"), without they are trimmed (ossec's `array(",")`); one the inner filter
      // drops stays, as null (zerofox's `array(",", nullIf(""))`)
      const text = openClose.length === 2 ? part : part.trim();
      const item = each ? each(text) : text;
      items.push(item === undefined ? null : item);
    }
    return items;
  };
}

/**
 * The filter `name(args)`. `args` are its quoted arguments, `bare` its unquoted ones (a number
 * for `scale`, a filter name inside `array`).
 */
export function filterOf(name: string, args: readonly string[], bare: readonly string[]): Filter {
  switch (name) {
    case 'number':
      return toNumber;
    case 'integer':
      return (v) => {
        const n = toNumber(v);
        return n === undefined ? undefined : Math.trunc(n);
      };
    case 'boolean':
      return (v) => (typeof v === 'boolean' ? v : /^true$/i.test(textOf(v)) ? true : /^false$/i.test(textOf(v)) ? false : undefined);
    case 'nullIf': {
      const nullValue = args[0] ?? bare[0] ?? '';
      return (v) => (textOf(v) === nullValue ? undefined : v);
    }
    case 'json':
      return parseJson;
    case 'rubyhash':
      return parseRubyHash;
    case 'useragent': {
      prepareUserAgentParser();
      const decode = /decodeuricomponent\s*:\s*true/i.test([...args, ...bare].join(','));
      return (v) => userAgentDetails(decode ? textOf(decodeUri(v) ?? v) : textOf(v));
    }
    case 'querystring':
      return (v) => queryStringOf(textOf(v));
    case 'decodeuricomponent':
      return decodeUri;
    case 'lowercase':
      return (v) => (typeof v === 'string' ? v.toLowerCase() : v);
    case 'uppercase':
      return (v) => (typeof v === 'string' ? v.toUpperCase() : v);
    case 'keyvalue': {
      const parser = new KeyValueParser(keyValueOptions(args));
      return (v) => parser.parse(textOf(v));
    }
    case 'xml':
      return (v) => xmlToJson(textOf(v));
    case 'csv': {
      if (args.length < 1) throw new FilterError('csv takes the header names');
      const headers = (args[0] as string).split(',').map((h) => h.trim());
      const separator = args[1] === 'tab' ? '\t' : (args[1] ?? ',');
      const quote = args[2] ?? '"';
      return (v) => csvRecord(textOf(v), headers, separator, quote);
    }
    case 'scale': {
      const factor = Number(args[0] ?? bare[0]);
      if (!Number.isFinite(factor)) throw new FilterError('scale takes a number');
      return (v) => {
        const n = toNumber(v);
        return n === undefined ? v : n * factor;
      };
    }
    case 'array':
      return arrayFilter(args, bare);
    case 'url':
      return (v) => urlDetails(textOf(v));
    default:
      throw new FilterError(`the filter ${name} is not supported`);
  }
}
