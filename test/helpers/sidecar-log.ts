/** The sidecar's structured log (one JSON object per line) as the fault tests read it. */

export interface LogLine {
  level: string;
  msg: string;
  /** The whole line, for matching field values too. */
  text: string;
}

export function logLines(output: string): LogLine[] {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .flatMap((text) => {
      try {
        const o = JSON.parse(text) as { level?: unknown; msg?: unknown };
        return [{ level: String(o.level), msg: String(o.msg), text }];
      } catch {
        return []; // a line cut in half by the process exiting
      }
    });
}

/** Warn and error lines whose text matches `pattern`. */
export const warningsMatching = (output: string, pattern: RegExp): LogLine[] => logLines(output).filter((l) => (l.level === 'warn' || l.level === 'error') && pattern.test(l.text));
