/**
 * Grok rules are Java regular expressions around `%{…}` blocks. This turns the Java parts into
 * JavaScript ones: the rule's own unnamed groups become non-capturing (the grok compiler numbers
 * the captures it needs itself), atomic groups `(?>…)` and possessive quantifiers become ordinary
 * ones (JavaScript has neither; the difference shows only when a later part of the rule fails
 * after an atomic part could have given back characters, which the conformance run measures),
 * `\Q…\E`, `\A`, `\z`, `\h` and the common `\p{…}` classes are spelled out, and a leading `(?i)`
 * becomes a flag of the whole expression (`(?s)` is every rule's: grok/compile.ts).
 */

export class JavaRegexError extends Error {}

export interface TranslatedRegex {
  source: string;
  ignoreCase: boolean;
  /** Names of the `(?<name>…)` groups, in order, when `namedOpen` asked for them. */
  groupNames: string[];
}

const POSIX_CLASSES: ReadonlyMap<string, string> = new Map([
  ['Lower', 'a-z'],
  ['Upper', 'A-Z'],
  ['Alpha', 'A-Za-z'],
  ['Digit', '0-9'],
  ['Alnum', 'A-Za-z0-9'],
  ['Punct', '!-\\/:-@\\[-`{-~'],
  ['Graph', '!-~'],
  ['Print', ' -~'],
  ['Blank', ' \\t'],
  ['Space', ' \\t\\n\\x0B\\f\\r'],
  ['XDigit', '0-9a-fA-F'],
  ['ASCII', '\\x00-\\x7F'],
  ['L', 'A-Za-z\\u00C0-\\u024F\\u0370-\\u03FF\\u0400-\\u04FF\\u4E00-\\u9FFF'],
  ['Lu', 'A-Z\\u00C0-\\u00DE'],
  ['Ll', 'a-z\\u00DF-\\u00FF'],
  ['N', '0-9'],
  ['C', '\\x00-\\x1F\\x7F-\\x9F\\u200B-\\u200F\\uFEFF'],
  ['Cc', '\\x00-\\x1F\\x7F-\\x9F'],
  ['Cntrl', '\\x00-\\x1F\\x7F'],
  ['Zs', ' \\xA0\\u2000-\\u200A\\u3000'],
  ['Nd', '0-9'],
  ['IsAlphabetic', 'A-Za-z\\u00C0-\\u024F'],
  ['IsDigit', '0-9'],
  ['IsLetter', 'A-Za-z\\u00C0-\\u024F'],
]);

const escapeLiteral = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/**
 * The JavaScript form of the Java expression `java`. With `namedOpen`, a named group
 * `(?<name>…)` opens with that marker instead and its name is listed (a grok rule extracts it,
 * as mesos's `(?<level>.)`); without, it is an ordinary group like the others.
 */
export function translateJavaRegex(java: string, namedOpen?: string): TranslatedRegex {
  const groupNames: string[] = [];
  let out = '';
  let ignoreCase = false;
  let inClass = false;
  let i = 0;
  const n = java.length;
  const fail = (what: string): never => {
    throw new JavaRegexError(`${what} at character ${i + 1} of ${JSON.stringify(java)}`);
  };
  while (i < n) {
    const c = java[i] as string;
    if (c === '\\') {
      const next = java[i + 1];
      if (next === undefined) fail('a trailing backslash');
      if (next === 'Q') {
        const end = java.indexOf('\\E', i + 2);
        const literal = java.slice(i + 2, end < 0 ? n : end);
        out += escapeLiteral(literal);
        i = end < 0 ? n : end + 2;
        continue;
      }
      if ((next === 'p' || next === 'P') && java[i + 2] === '{') {
        const close = java.indexOf('}', i + 3);
        if (close < 0) fail('an unclosed \\p{');
        const name = java.slice(i + 3, close);
        const chars = POSIX_CLASSES.get(name) ?? POSIX_CLASSES.get(name.replace(/^Is/, ''));
        if (chars === undefined) fail(`the class \\${next}{${name}}`);
        out += inClass ? (next === 'P' ? fail('a negated class inside a class') : chars) : `[${next === 'P' ? '^' : ''}${chars}]`;
        i = close + 1;
        continue;
      }
      if (/[1-9]/.test(next as string) && !inClass) fail('a backreference');
      if (next === 'k' && java[i + 2] === '<') fail('a named backreference');
      i += 2;
      if (next === 'A') out += '^';
      else if (next === 'z' || next === 'Z') out += '$';
      else if (next === 'h') out += inClass ? ' \\t' : '[ \\t]';
      else if (next === 'e') out += '\\x1b';
      else if (next === 'R') out += '(?:\\r\\n|[\\n\\r\\u2028\\u2029\\x0B\\f\\x85])';
      else out += `\\${next}`;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      else if (c === '[') out += '\\';
      else if (c === '&' && java[i + 1] === '&') fail('a class intersection');
      out += c;
      i++;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += '[';
      i++;
      if (java[i] === '^') {
        out += '^';
        i++;
      }
      // a `]` right after `[` or `[^` is a literal in Java
      if (java[i] === ']') {
        out += '\\]';
        i++;
      }
      continue;
    }
    if (c === '(') {
      const flags = /^\(\?([imsux-]+)\)/.exec(java.slice(i));
      if (flags) {
        const on = (flags[1] as string).split('-')[0] as string;
        if (on.includes('i')) ignoreCase = true;
        i += (flags[0] as string).length;
        continue;
      }
      const scoped = /^\(\?([imsux]+):/.exec(java.slice(i));
      if (scoped) {
        if ((scoped[1] as string).includes('i')) ignoreCase = true;
        out += '(?:';
        i += (scoped[0] as string).length;
        continue;
      }
      if (java.startsWith('(?:', i) || java.startsWith('(?>', i)) {
        out += '(?:';
        i += 3;
      } else if (java.startsWith('(?=', i) || java.startsWith('(?!', i)) {
        out += java.slice(i, i + 3);
        i += 3;
      } else if (java.startsWith('(?<=', i) || java.startsWith('(?<!', i)) {
        out += java.slice(i, i + 4);
        i += 4;
      } else if (java.startsWith('(?<', i)) {
        const close = java.indexOf('>', i);
        if (close < 0) fail('an unclosed group name');
        if (namedOpen === undefined) out += '(?:';
        else {
          out += namedOpen;
          groupNames.push(java.slice(i + 3, close));
        }
        i = close + 1;
      } else if (java[i + 1] === '?') {
        fail('an unknown group kind');
      } else {
        out += '(?:';
        i++;
      }
      continue;
    }
    if (c === '{') {
      const quantifier = /^\{\d+(?:,\d*)?\}/.exec(java.slice(i));
      if (quantifier) {
        out += quantifier[0];
        i += quantifier[0].length;
        if (java[i] === '+') i++;
        continue;
      }
      out += '\\{';
      i++;
      continue;
    }
    if (c === '}') {
      out += '\\}';
      i++;
      continue;
    }
    out += c;
    i++;
    // a possessive quantifier (`*+`, `++`, `?+`) is an ordinary one here
    if ((c === '*' || c === '+' || c === '?') && java[i] === '+' && out.length > 1) i++;
  }
  if (inClass) fail('an unclosed class');
  return { source: out, ignoreCase, groupNames };
}
