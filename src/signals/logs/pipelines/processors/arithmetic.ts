/**
 * The arithmetic processor: `+ - * /`, parentheses and attribute paths (a `-` inside a name is
 * part of it: Datadog asks for spaces around the operator). A missing or non-numeric attribute
 * skips the processor, or counts as 0 with `replaceMissing`; the result is rounded to 9
 * decimals and written as an integer when it is one.
 */
import type { JsonValue } from '../../../../core/wire/json';
import type { PipelineLog } from '../log';
import type { ArithmeticSpec } from '../types';
import type { ProcessorStep } from './step';

export class ArithmeticError extends Error {}

type Expr = { kind: 'number'; value: number } | { kind: 'attribute'; path: string } | { kind: 'negate'; of: Expr } | { kind: 'binary'; op: '+' | '-' | '*' | '/'; left: Expr; right: Expr };

const TOKEN = /\s*(?:(\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+)|([A-Za-z_@][\w.@-]*[\w@]|[A-Za-z_@])|([-+*/()]))/y;

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  while (at < text.length) {
    if (/^\s*$/.test(text.slice(at))) break;
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(text);
    if (!m) throw new ArithmeticError(`expression "${text}": unexpected "${text.slice(at).trim()[0]}"`);
    tokens.push((m[1] ?? m[2] ?? m[3]) as string);
    at = TOKEN.lastIndex;
  }
  return tokens;
}

export function parseArithmetic(text: string): Expr {
  const tokens = tokenize(text);
  let i = 0;
  const fail = (what: string): never => {
    throw new ArithmeticError(`expression "${text}": ${what}`);
  };
  const primary = (): Expr => {
    const t = tokens[i++];
    if (t === undefined) return fail('an operand is missing');
    if (t === '(') {
      const e = sum();
      if (tokens[i++] !== ')') fail('")" is missing');
      return e;
    }
    if (t === '-') return { kind: 'negate', of: primary() };
    if (/^[\d.]/.test(t)) return { kind: 'number', value: Number(t) };
    if (/^[A-Za-z_@]/.test(t)) return { kind: 'attribute', path: t.replace(/^@/, '') };
    return fail(`unexpected "${t}"`);
  };
  const product = (): Expr => {
    let left = primary();
    while (tokens[i] === '*' || tokens[i] === '/') {
      const op = tokens[i++] as '*' | '/';
      left = { kind: 'binary', op, left, right: primary() };
    }
    return left;
  };
  const sum = (): Expr => {
    let left = product();
    while (tokens[i] === '+' || tokens[i] === '-') {
      const op = tokens[i++] as '+' | '-';
      left = { kind: 'binary', op, left, right: product() };
    }
    return left;
  };
  const e = sum();
  if (i < tokens.length) fail(`unexpected "${tokens[i]}"`);
  return e;
}

const numeric = (v: JsonValue | undefined): number | undefined => {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
};

function evaluate(e: Expr, log: PipelineLog, replaceMissing: boolean): number | undefined {
  switch (e.kind) {
    case 'number':
      return e.value;
    case 'attribute': {
      const n = numeric(log.get(e.path));
      return n ?? (replaceMissing ? 0 : undefined);
    }
    case 'negate': {
      const n = evaluate(e.of, log, replaceMissing);
      return n === undefined ? undefined : -n;
    }
    case 'binary': {
      const a = evaluate(e.left, log, replaceMissing);
      const b = evaluate(e.right, log, replaceMissing);
      if (a === undefined || b === undefined) return undefined;
      switch (e.op) {
        case '+':
          return a + b;
        case '-':
          return a - b;
        case '*':
          return a * b;
        case '/':
          return b === 0 ? undefined : a / b;
      }
    }
  }
}

export function arithmetic(spec: ArithmeticSpec): ProcessorStep {
  const expr = parseArithmetic(spec.expression);
  return (log) => {
    const n = evaluate(expr, log, spec.replaceMissing);
    if (n === undefined || !Number.isFinite(n)) return;
    // rounded in decimal: `Math.round(n * 1e9) / 1e9` would turn nagios's 1606472574 * 1000 into 1606472573999.9998
    log.set(spec.target, Number.isInteger(n) ? n : Number(n.toFixed(9)));
  };
}
