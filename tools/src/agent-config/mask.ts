/**
 * Keeps API keys off the terminal (and out of CI logs): every key a datadog.yaml holds, and the
 * keys given on the command line, are replaced wherever they would be printed.
 */
import { parse } from 'yaml';

const MASK = '********';
// catches the api_key lines of a file too broken to parse
const KEY_LINE = /^([-+ ]?\s*-?\s*["']?(?:api_?key|apikey)["']?\s*:\s*)(\S.*)$/gim;

/** Key strings a file holds: api_key, and the keys of every additional_endpoints setting. */
function keysIn(text: string): string[] {
  let tree: unknown;
  try {
    tree = parse(text, { merge: true });
  } catch {
    return [];
  }
  const found: string[] = [];
  // keys are api_key values and the bare list items of additional_endpoints ({url: [key, …]})
  const walk = (node: unknown, underEndpoints: boolean): void => {
    if (Array.isArray(node))
      node.forEach((n) => {
        if (typeof n === 'string' && underEndpoints) found.push(n);
        else walk(n, underEndpoints);
      });
    else if (node && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) {
        if (k === 'api_key' && typeof v === 'string') found.push(v);
        else walk(v, underEndpoints || k === 'additional_endpoints');
      }
    }
  };
  walk(tree, false);
  return found;
}

/** Hides every key before anything reaches the terminal (or a CI log). */
export function masker(texts: readonly string[], extra: readonly (string | undefined)[]): (s: string) => string {
  const secrets = [...new Set([...texts.flatMap(keysIn), ...extra])].filter((s): s is string => typeof s === 'string' && s.length >= 4).sort((a, b) => b.length - a.length);
  return (s) => secrets.reduce((acc, secret) => acc.split(secret).join(MASK), s).replace(KEY_LINE, `$1${MASK}`);
}
