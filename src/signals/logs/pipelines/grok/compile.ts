/**
 * A grok parser: match rules tried in order, the first that matches the whole text wins (an
 * implicit `^…$`). Each rule compiles to one JavaScript expression in which every `%{…}` block
 * that extracts is a numbered group; rules referenced by name (support rules, or match rules
 * defined above) are inlined. A rule that cannot be compiled (an unknown matcher, a regex feature
 * JavaScript lacks) is left out and reported; the others still run.
 */
import type { JsonValue } from '../../../../core/wire/json';
import type { RecordBudget } from '../budget';
import type { Unsupported } from '../types';
import { filterOf, type Filter } from './filters';
import { translateJavaRegex } from './java-regex';
import { builtInMatcher } from './matchers';
import { enableLinearFallback, runsInLinearTime, UNBOUNDED_INPUT_LIMIT } from './regex-safety';
import { piecesOf, ruleLines, type Block, type RuleText } from './syntax';

interface Capture {
  group: number;
  /** Attribute path; '' merges an object result into the root. */
  name: string;
  convert: (text: string) => JsonValue | undefined;
  filter: Filter | undefined;
}

export interface CompiledRule {
  name: string;
  regex: RegExp;
  captures: Capture[];
  /** Whether V8's linear-time engine can take over this expression when it backtracks too much (regex-safety.ts). */
  bounded: boolean;
}

/** What a rule's pattern expands to before numbering: source with placeholders and its captures. */
interface Expanded {
  source: string;
  captures: Omit<Capture, 'group'>[];
  ignoreCase: boolean;
}

const MAX_DEPTH = 16;
/** Marks where a capture's group opens in an expanded source, replaced by `(` once groups are numbered. */
const OPEN_CAPTURE = '\u0000';

class RuleCompiler {
  private readonly expanded = new Map<string, Expanded>();
  private readonly texts = new Map<string, RuleText>();

  constructor(support: RuleText[]) {
    for (const rule of support) this.texts.set(rule.name, rule);
  }

  define(rule: RuleText): void {
    this.texts.set(rule.name, rule);
  }

  expand(name: string, depth: number): Expanded {
    const known = this.expanded.get(name);
    if (known) return known;
    const rule = this.texts.get(name);
    if (!rule) throw new Error(`no rule or matcher named ${name}`);
    if (depth > MAX_DEPTH) throw new Error(`rule ${name} refers to itself`);
    const out: Expanded = { source: '', captures: [], ignoreCase: false };
    const pieces = piecesOf(rule.pattern);
    for (const [i, piece] of pieces.entries()) {
      if (piece.kind === 'regex') {
        // a quantifier opening a rule quantifies nothing (symantec's `scan_results ?((Scan Complete|…)`)
        const t = translateJavaRegex(i === 0 ? piece.text.replace(/^[?*+]+/, '') : piece.text, OPEN_CAPTURE);
        out.source += t.source;
        for (const name of t.groupNames) out.captures.push({ name, convert: (text) => text, filter: undefined });
        out.ignoreCase ||= t.ignoreCase;
      } else this.expandBlock(piece.block, depth, out);
    }
    this.expanded.set(name, out);
    return out;
  }

  private expandBlock(block: Block, depth: number, out: Expanded): void {
    const filter = block.filter ? filterOf(block.filter.name, block.filter.args, block.filter.bare) : undefined;
    const matcher = builtInMatcher(block.matcher.name, block.matcher.args);
    if (matcher) {
      out.ignoreCase ||= matcher.ignoreCase === true;
      if (block.extract === '' && !filter) {
        out.source += `(?:${matcher.source})`;
        return;
      }
      out.source += `${OPEN_CAPTURE}${matcher.source})`;
      out.captures.push({ name: block.extract, convert: matcher.convert, filter });
      return;
    }
    const inner = this.expand(block.matcher.name, depth + 1);
    out.ignoreCase ||= inner.ignoreCase;
    if (block.extract === '' && !filter) {
      out.source += `(?:${inner.source})`;
      out.captures.push(...inner.captures);
      return;
    }
    // `%{rule:name}`: the rule's whole text under `name`, its own extractions beside it
    out.source += `${OPEN_CAPTURE}${inner.source})`;
    out.captures.push({ name: block.extract, convert: (t) => t, filter }, ...inner.captures);
  }
}

/** Numbers the capture groups in source order (placeholders open them left to right, captures list them in that order). */
function numbered(expanded: Expanded, name: string): CompiledRule {
  const source = expanded.source.split(OPEN_CAPTURE).join('(');
  const captures = expanded.captures.map((c, i) => ({ ...c, group: i + 1 }));
  // `.` matches line breaks in Datadog's rules: airflow's `.*(\n|\t)%{notSpace:error.kind}` finds the
  // last line of a stack trace, confluent's `%{data:error.message}(\n|\t).*` stops at the first
  const flags = `${expanded.ignoreCase ? 'i' : ''}s`;
  // Java's `$` also matches before a final line break
  const full = `^(?:${source})(?:\\r?\\n)?$`;
  const regex = new RegExp(full, flags);
  // V8 compiles an expression on its first run and to machine code on its second: done here, at
  // load, that work is not charged to the time budget of the first records
  regex.exec('');
  regex.exec('');
  return { name, regex, captures, bounded: runsInLinearTime(full, flags) };
}

export interface GrokCompileResult {
  rules: CompiledRule[];
  unsupported: Unsupported[];
}

export function compileGrok(supportRules: string, matchRules: string, path: string): GrokCompileResult {
  enableLinearFallback();
  const unsupported: Unsupported[] = [];
  let support: RuleText[] = [];
  let match: RuleText[] = [];
  try {
    support = ruleLines(supportRules);
    match = ruleLines(matchRules);
  } catch (e) {
    unsupported.push({ path, reason: (e as Error).message });
  }
  const compiler = new RuleCompiler(support);
  const rules: CompiledRule[] = [];
  // a match rule may use one defined below it (strimzi's `strimzi_raw_log` uses `strimzi_k8s`)
  for (const rule of match) compiler.define(rule);
  for (const rule of match) {
    try {
      rules.push(numbered(compiler.expand(rule.name, 0), rule.name));
    } catch (e) {
      unsupported.push({ path: `${path} > rule ${rule.name}`, reason: (e as Error).message });
    }
  }
  return { rules, unsupported };
}

/** What a grok parser extracted, in order: attribute paths ('' for a root merge) and values. */
export type Extracted = [string, JsonValue][];

/** The extraction of the first rule that matches `text`; undefined when none does. */
export function runGrok(rules: readonly CompiledRule[], text: string, budget: RecordBudget): Extracted | undefined {
  for (const rule of rules) {
    budget.check();
    if (!rule.bounded && text.length > UNBOUNDED_INPUT_LIMIT) continue;
    const m = rule.regex.exec(text);
    if (m) return extract(rule, m);
  }
  return undefined;
}

/** Datadog leaves out null and empty values: '', [] and {}. */
export function isEmpty(value: JsonValue | undefined): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') {
    for (const _ in value) return false;
    return true;
  }
  return false;
}

function extract(rule: CompiledRule, m: RegExpExecArray): Extracted {
  const out: Extracted = [];
  for (const capture of rule.captures) {
    const raw = m[capture.group];
    if (raw === undefined) continue;
    let value = capture.convert(raw);
    if (value !== undefined && capture.filter) value = capture.filter(value);
    if (isEmpty(value)) continue;
    out.push([capture.name, value as JsonValue]);
  }
  return out;
}
