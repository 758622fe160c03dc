/**
 * The string builder: a template of text and `%{path}` blocks. A scalar is written as is, an
 * array of scalars joined with `,`; a missing value, or an object, skips the processor, or is
 * written as nothing with `replaceMissing`.
 */
import type { JsonValue } from '../../../../core/wire/json';
import type { StringBuilderSpec } from '../types';
import { valueAtPath, type ProcessorStep } from './step';

type Piece = string | { path: string };

function piecesOf(template: string): Piece[] {
  const pieces: Piece[] = [];
  const re = /%\{([^}]+)\}/g;
  let last = 0;
  for (const m of template.matchAll(re)) {
    if ((m.index as number) > last) pieces.push(template.slice(last, m.index));
    pieces.push({ path: (m[1] as string).trim() });
    last = (m.index as number) + m[0].length;
  }
  if (last < template.length) pieces.push(template.slice(last));
  return pieces;
}

function textOf(value: JsonValue | undefined): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    const parts = value.map(textOf);
    return parts.every((p) => p !== undefined) ? parts.join(',') : undefined;
  }
  return undefined;
}

export function stringBuilder(spec: StringBuilderSpec): ProcessorStep {
  const pieces = piecesOf(spec.template);
  return (log) => {
    let out = '';
    for (const piece of pieces) {
      if (typeof piece === 'string') {
        out += piece;
        continue;
      }
      const text = textOf(valueAtPath(log, piece.path));
      if (text === undefined && !spec.replaceMissing) return;
      out += text ?? '';
    }
    log.set(spec.target, out);
  };
}
