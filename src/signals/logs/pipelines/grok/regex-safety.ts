/**
 * How a grok expression is kept from running away. JavaScript's regular expressions cannot be
 * interrupted, so the bound has to come from the engine itself: V8 has a second, linear-time
 * engine (an automaton without backtracking) and, with the flags below, an ordinary expression
 * that backtracks more than BACKTRACKS_BEFORE_FALLBACK times is run again by it. An expression
 * the linear engine accepts therefore costs at most that many backtracks plus time proportional
 * to pattern size × input length. Expressions it refuses (lookarounds, backreferences) get no
 * such bound; they run only on inputs up to UNBOUNDED_INPUT_LIMIT characters, and the per-record
 * budget (run.ts) is checked between expressions. The flags are process-wide and change nothing
 * for an expression that does not backtrack that much.
 */
import { setFlagsFromString } from 'node:v8';

export const BACKTRACKS_BEFORE_FALLBACK = 10_000;
/** Inputs longer than this skip grok rules the linear engine refuses. */
export const UNBOUNDED_INPUT_LIMIT = 4096;

let enabled = false;

/** Turns the fallback on; called before any grok expression is compiled (the flags are read then). */
export function enableLinearFallback(): void {
  if (enabled) return;
  enabled = true;
  setFlagsFromString('--enable-experimental-regexp-engine');
  setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
  setFlagsFromString(`--regexp-backtracks-before-fallback=${BACKTRACKS_BEFORE_FALLBACK}`);
}

/** Whether V8's linear-time engine can run `source` (no lookaround, no backreference). */
export function runsInLinearTime(source: string, flags: string): boolean {
  enableLinearFallback();
  try {
    new RegExp(source, `${flags}l`);
    return true;
  } catch {
    return false;
  }
}
