/**
 * Unified diff of two texts by lines (Myers' shortest edit script, so an edit of a few lines in a
 * file of thousands costs little), with `diff -u` hunk headers and three lines of context.
 */

type Op = { kind: ' ' | '-' | '+'; line: string };

const splitLines = (text: string): string[] => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));

/** Myers: furthest-reaching paths per diagonal, one snapshot per edit distance for the walk back. */
function editScript(a: readonly string[], b: readonly string[]): Op[] {
  const max = a.length + b.length;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
      let x = down ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < a.length && y < b.length && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= a.length && y >= b.length) {
        found = true;
        break;
      }
    }
  }
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d >= 0; d--) {
    const snapshot = trace[d]!;
    const k = x - y;
    const down = k === -d || (k !== d && snapshot[offset + k - 1]! < snapshot[offset + k + 1]!);
    const prevK = down ? k + 1 : k - 1;
    const prevX = snapshot[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      ops.push({ kind: ' ', line: a[x]! });
    }
    if (d > 0) ops.push(down ? { kind: '+', line: b[--y]! } : { kind: '-', line: a[--x]! });
  }
  return ops.reverse();
}

const CONTEXT = 3;

/** `@@ -l,s +l,s @@` counts as diff(1) writes them: an empty side starts one line earlier. */
const range = (start: number, count: number): string => `${count === 0 ? start : start + 1}${count === 1 ? '' : `,${count}`}`;

/** Unified diff of `before` → `after`; empty when they are equal. */
export function unifiedDiff(before: string, after: string, fromName: string, toName: string): string {
  const ops = editScript(splitLines(before), splitLines(after));
  const changed = ops.flatMap((op, i) => (op.kind === ' ' ? [] : [i]));
  if (changed.length === 0) return '';
  const out = [`--- ${fromName}`, `+++ ${toName}`];
  let i = 0;
  while (i < changed.length) {
    // a hunk spans changes whose gaps are short enough to share their context
    let j = i;
    while (j + 1 < changed.length && changed[j + 1]! - changed[j]! <= 2 * CONTEXT + 1) j++;
    const from = Math.max(0, changed[i]! - CONTEXT);
    const to = Math.min(ops.length, changed[j]! + CONTEXT + 1);
    const aStart = ops.slice(0, from).filter((op) => op.kind !== '+').length;
    const bStart = ops.slice(0, from).filter((op) => op.kind !== '-').length;
    const hunk = ops.slice(from, to);
    const aCount = hunk.filter((op) => op.kind !== '+').length;
    const bCount = hunk.filter((op) => op.kind !== '-').length;
    out.push(`@@ -${range(aStart, aCount)} +${range(bStart, bCount)} @@`, ...hunk.map((op) => op.kind + op.line));
    i = j + 1;
  }
  return out.join('\n') + '\n';
}
