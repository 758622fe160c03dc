/**
 * Grok's `xml` filter: elements become objects, attributes their keys, text beside attributes a
 * `value` key, repeated elements arrays (Datadog's documented shape). A small reader for the
 * well-formed XML a log line holds: no DTDs, entities beyond the five predefined ones, or
 * namespaces handling (prefixes stay in the names).
 */
import type { JsonValue } from '../../../../core/wire/json';

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const decode = (s: string): string => s.replace(/&(lt|gt|amp|quot|apos);/g, (_, e: string) => ENTITIES[e] as string);

interface Cursor {
  text: string;
  at: number;
}

function skipMisc(c: Cursor): void {
  for (;;) {
    while (/\s/.test(c.text[c.at] ?? '')) c.at++;
    if (c.text.startsWith('<?', c.at)) c.at = c.text.indexOf('?>', c.at) + 2;
    else if (c.text.startsWith('<!--', c.at)) c.at = c.text.indexOf('-->', c.at) + 3;
    else return;
    if (c.at < 2) throw new Error('unclosed');
  }
}

function add(object: Record<string, JsonValue>, key: string, value: JsonValue): void {
  const existing = object[key];
  if (existing === undefined) object[key] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else object[key] = [existing, value];
}

/** The element at the cursor: its name and value. */
function element(c: Cursor): [string, JsonValue] {
  const open = /^<([\w:.-]+)((?:\s+[\w:.-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/.exec(c.text.slice(c.at));
  if (!open) throw new Error('not an element');
  c.at += open[0].length;
  const name = open[1] as string;
  const object: Record<string, JsonValue> = {};
  for (const a of (open[2] as string).matchAll(/([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) object[a[1] as string] = decode(a[2] ?? a[3] ?? '');
  if (open[3] === '/') return [name, Object.keys(object).length > 0 ? object : ''];
  let text = '';
  let children = false;
  for (;;) {
    if (c.at >= c.text.length) throw new Error('unclosed element');
    if (c.text.startsWith('</', c.at)) {
      const close = c.text.indexOf('>', c.at);
      c.at = close + 1;
      break;
    }
    if (c.text.startsWith('<!--', c.at) || c.text.startsWith('<?', c.at)) skipMisc(c);
    else if (c.text.startsWith('<![CDATA[', c.at)) {
      const end = c.text.indexOf(']]>', c.at);
      text += c.text.slice(c.at + 9, end);
      c.at = end + 3;
    } else if (c.text[c.at] === '<') {
      const [childName, childValue] = element(c);
      add(object, childName, childValue);
      children = true;
    } else {
      const next = c.text.indexOf('<', c.at);
      text += decode(c.text.slice(c.at, next < 0 ? c.text.length : next));
      c.at = next < 0 ? c.text.length : next;
    }
  }
  const trimmed = text.trim();
  if (!children && Object.keys(object).length === 0) return [name, trimmed];
  if (trimmed !== '') object.value = trimmed;
  return [name, object];
}

export function xmlToJson(text: string): JsonValue | undefined {
  try {
    const c: Cursor = { text, at: 0 };
    skipMisc(c);
    const [name, value] = element(c);
    return { [name]: value };
  } catch {
    return undefined;
  }
}
