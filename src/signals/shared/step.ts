/**
 * The one shape of a translator step, for every signal: a step reads the draft it is given,
 * writes what it decides into it and returns it. Writing in place rather than returning copies
 * costs no object per step and record, which the logs and traces paths (the hot ones) feel; it is
 * safe because the chain makes one draft per record and nothing else holds it. Each chain lists
 * its steps, in order, in one array (logs/chain.ts, traces/chain.ts, metrics/chain.ts).
 */
export type Step<D, C> = (draft: D, ctx: C) => D;

export interface NamedStep<D, C> {
  readonly name: string;
  readonly step: Step<D, C>;
}

/** Runs `steps` over `draft` in order. */
export function runSteps<D, C>(steps: readonly NamedStep<D, C>[], draft: D, ctx: C): D {
  for (let i = 0; i < steps.length; i++) (steps[i] as NamedStep<D, C>).step(draft, ctx);
  return draft;
}
