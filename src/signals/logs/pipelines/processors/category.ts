/** The category processor: the name of the first category whose query the log matches, under the target. */
import { parseQuery } from '../query';
import { matches } from '../query-match';
import type { CategorySpec } from '../types';
import type { ProcessorStep } from './step';

export function category(spec: CategorySpec): ProcessorStep {
  const categories = spec.categories.map((c) => ({ query: parseQuery(c.query), name: c.name }));
  return (log) => {
    for (const c of categories) {
      if (!matches(c.query, log)) continue;
      log.set(spec.target, c.name);
      return;
    }
  };
}
