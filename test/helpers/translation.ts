/** A translation context (src/signals/shared/chain.ts) for tests that call a chain directly. */
import { optionOf } from '../../src/config';
import type { TranslationContext, TranslationOptions } from '../../src/signals/shared/chain';

export const translationContext = <C>(caches: C, receivedAtNs: bigint, options: Partial<TranslationOptions> = {}): TranslationContext<C> => ({
  caches,
  receivedAtNs,
  options: { decodeJsonMessage: true, logTextCorrelation: true, logPipelineBudgetMs: optionOf('logPipelineBudgetMs').default, ...options },
  tally: {},
});
