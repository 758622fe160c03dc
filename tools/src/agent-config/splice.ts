/**
 * Applies one change to the file's text by inserting or replacing only the lines it concerns, so
 * everything else (comments, blank lines, quoting, indentation, unrelated keys) stays byte for
 * byte. Shapes this cannot edit in place (flow mappings, aliases on the path, a list where a
 * mapping is expected) raise UnsupportedEdit; the caller then falls back to the Document model.
 */
import { isAlias, isScalar, isSeq, stringify, type Node, type Pair, type YAMLMap } from 'yaml';
import { isBlockMapping, parseAgentYaml } from './document';
import type { Change, Path } from './plan';

export class UnsupportedEdit extends Error {
  override name = 'UnsupportedEdit';
}

interface Located {
  start: number;
  end: number;
}
type Range = [number, number, number];

const render = (value: unknown): string => stringify(value, { lineWidth: 0 }).replace(/\n$/, '');
const indentLines = (block: string, indent: number): string => block.replace(/^/gm, ' '.repeat(indent));
const nest = (path: Path, leaf: unknown): unknown => path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), leaf);
const column = (text: string, offset: number): number => offset - (text.lastIndexOf('\n', offset - 1) + 1);
const splice = (text: string, at: Located, insert: string): string => text.slice(0, at.start) + insert + text.slice(at.end);
const point = (offset: number): Located => ({ start: offset, end: offset });

function lineEndFrom(text: string, offset: number): number {
  const nl = text.indexOf('\n', offset);
  return nl < 0 ? text.length : nl;
}

/** End of the line holding the last character before `offset` (node ranges end after their newline). */
const lineEndBefore = (text: string, offset: number): number => (offset > 0 && text[offset - 1] === '\n' ? offset - 1 : lineEndFrom(text, offset));

const rangeOf = (node: unknown): Range => {
  const range = (node as Node | null)?.range;
  if (!range) throw new UnsupportedEdit('a node without a source position');
  return range;
};

const isNullScalar = (node: unknown): boolean => isScalar(node) && node.value === null;
const keyOf = (pair: Pair): string | undefined => (isScalar(pair.key) ? String(pair.key.value) : undefined);

/** New lines at the end of a mapping, indented like its keys; top-level keys go to the end of the file. */
function appendToMapping(text: string, map: YAMLMap | null, atRoot: boolean, entry: unknown): string {
  if (atRoot || !map) {
    const sep = text === '' || text.endsWith('\n') ? '' : '\n';
    return text + sep + render(entry) + '\n';
  }
  const last = map.items[map.items.length - 1] as Pair;
  const end = lineEndBefore(text, rangeOf(last.value ?? last.key)[1]);
  return splice(text, point(end), '\n' + indentLines(render(entry), column(text, rangeOf(map.items[0]?.key)[0])));
}

/** `key:` with nothing (or an explicit null) under it: the new block goes right below the key's line. */
function fillEmptyKey(text: string, pair: Pair, entry: unknown): string {
  const [keyStart, keyEnd] = rangeOf(pair.key);
  const [valueStart, valueEnd] = rangeOf(pair.value);
  const filled = splice(text, point(lineEndFrom(text, keyEnd)), '\n' + indentLines(render(entry), column(text, keyStart) + 2));
  return valueStart === valueEnd ? filled : splice(filled, { start: text.indexOf(':', keyEnd) + 1, end: valueEnd }, '');
}

function replaceScalar(text: string, pair: Pair, value: string | boolean): string {
  if (!isScalar(pair.value) && !isAlias(pair.value)) throw new UnsupportedEdit('the value is a mapping or list');
  const [start, end] = rangeOf(pair.value);
  if (start !== end) return splice(text, { start, end }, render(value));
  // an empty value's range starts at its trailing comment, if any: write right after the colon
  return splice(text, point(text.indexOf(':', rangeOf(pair.key)[1]) + 1), ' ' + render(value));
}

function appendToList(text: string, pair: Pair, item: unknown): string {
  const list = pair.value;
  if (isNullScalar(list)) return fillEmptyKey(text, pair, [item]);
  if (!isSeq(list) || list.flow) throw new UnsupportedEdit('not a block list');
  const [start, end] = rangeOf(list);
  return splice(text, point(lineEndBefore(text, end)), '\n' + indentLines(render([item]), column(text, start)));
}

const leafOf = (change: Change): unknown => (change.op === 'set' ? change.value : [change.item]);

export function spliceChange(text: string, change: Change): string {
  const doc = parseAgentYaml(text, 'the file');
  let node: unknown = doc.contents;
  if (node === null || isNullScalar(node)) return appendToMapping(text, null, true, nest(change.path, leafOf(change)));
  for (let depth = 0; depth < change.path.length; depth++) {
    if (!isBlockMapping(node)) throw new UnsupportedEdit(`${change.path.slice(0, depth).join('.')} is not a block mapping`);
    const pair = node.items.find((p) => keyOf(p) === change.path[depth]);
    const rest = change.path.slice(depth + 1);
    if (!pair) return appendToMapping(text, node, depth === 0, nest(change.path.slice(depth), leafOf(change)));
    if (rest.length === 0) return change.op === 'set' ? replaceScalar(text, pair, change.value) : appendToList(text, pair, change.item);
    if (isNullScalar(pair.value)) return fillEmptyKey(text, pair, nest(rest, leafOf(change)));
    node = pair.value;
  }
  throw new UnsupportedEdit('empty path');
}
