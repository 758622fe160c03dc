/**
 * (datadog.yaml text, options) → rewritten text and the changes made. Pure: no file access.
 *
 * Each change is spliced into the text (splice.ts) so the operator's file keeps its comments and
 * layout. The same changes are applied to the `yaml` Document model, and the result must mean
 * exactly what that model says, or nothing is returned: a file the agent would read differently
 * than intended is never produced. Where splicing cannot express a change, the model's own
 * rendering is used (comments kept, layout normalised) and `normalized` says so.
 */
import { isDeepStrictEqual } from 'node:util';
import { applyToDocument, parseAgentYaml } from './document';
import { planChanges, RewriteError, wantedSettings, type AgentConfigOptions, type Change } from './plan';
import { spliceChange, UnsupportedEdit } from './splice';

export interface RewriteResult {
  text: string;
  /** What this run changed. */
  changes: Change[];
  /** Every setting the switch wants, changed now or already there (for the environment form). */
  settings: Change[];
  /** The whole file was re-rendered by the Document model (some layout may differ). */
  normalized: boolean;
}

const CRLF = /\r\n/g;

/** A candidate text, or undefined when it cannot be produced or does not parse. */
function attempt(produce: () => string): { text: string; meaning: unknown } | undefined {
  try {
    const text = produce();
    return { text, meaning: parseAgentYaml(text, 'the rewritten file').toJS() };
  } catch (err) {
    if (err instanceof UnsupportedEdit || err instanceof RewriteError) return undefined;
    throw err;
  }
}

export function rewriteAgentConfig(original: string, options: AgentConfigOptions): RewriteResult {
  // Windows agents' files may use CRLF: edit with LF, give the file its own line ends back
  const crlf = original.includes('\r\n');
  const text = crlf ? original.replace(CRLF, '\n') : original;
  const model = parseAgentYaml(text, 'the file');
  const tree: unknown = model.toJS();
  const settings = wantedSettings(tree, options);
  const changes = planChanges(tree, options);
  if (changes.length === 0) return { text: original, changes, settings, normalized: false };

  for (const change of changes) applyToDocument(model, change);
  const expected: unknown = model.toJS();
  const spliced = attempt(() => changes.reduce(spliceChange, text));
  const candidates = [spliced, attempt(() => model.toString({ lineWidth: 0 }))];
  const result = candidates.find((c) => c !== undefined && isDeepStrictEqual(c.meaning, expected));
  if (result === undefined) {
    throw new RewriteError('the rewritten file would not mean what was intended (an anchor or unusual layout on the way?); nothing was changed');
  }
  return { text: crlf ? result.text.replace(/\n/g, '\r\n') : result.text, changes, settings, normalized: result !== spliced };
}
