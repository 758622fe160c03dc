/**
 * The file as the `yaml` library's Document model sees it. This model is the reference for what
 * every rewrite must mean: the text edits in splice.ts are checked against it.
 */
import { isMap, isScalar, isSeq, parseDocument, type Document, type YAMLMap } from 'yaml';
import { RewriteError, type Change, type Path } from './plan';

/** Merge keys on: agents' YAML parser honours `<<: *anchor`, so a merged value counts as set. */
export function parseAgentYaml(text: string, what: string): Document {
  const doc = parseDocument(text, { merge: true, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) throw new RewriteError(`${what} is not valid YAML: ${doc.errors.map((e) => e.message).join('; ')}`);
  return doc;
}

const isEmpty = (node: unknown): boolean => node === null || node === undefined || (isScalar(node) && node.value === null);

/** `apm_config:` with only comments under it is null; a child key turns it into a mapping. */
function ensureMappingsAlong(doc: Document, path: Path): void {
  if (isEmpty(doc.contents)) doc.contents = doc.createNode({});
  for (let i = 1; i < path.length; i++) {
    const prefix = path.slice(0, i);
    if (isEmpty(doc.getIn(prefix, true))) doc.setIn(prefix, doc.createNode({}));
  }
}

export function applyToDocument(doc: Document, change: Change): void {
  try {
    ensureMappingsAlong(doc, change.path);
    const list = change.op === 'append' ? doc.getIn(change.path, true) : undefined;
    if (change.op === 'set') doc.setIn(change.path, change.value);
    else if (isSeq(list)) list.add(doc.createNode(change.item));
    else if (isEmpty(list)) doc.setIn(change.path, doc.createNode([change.item]));
    else throw new Error('not a list');
  } catch (err) {
    throw new RewriteError(`cannot set ${change.path.join('.')}: ${(err as Error).message} (an alias or a non-mapping is in the way; edit that part by hand)`);
  }
}

export const isBlockMapping = (node: unknown): node is YAMLMap => isMap(node) && !node.flow;
