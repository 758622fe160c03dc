/**
 * The tracers' sampling bookkeeping is not written as span attributes unless asked
 * (--keep-internal-tags); other `_dd.*` tags are.
 */
import { AttributeNames, INTERNAL_TAGS } from '../../src/signals/traces/finish';
import { DEFAULT_SEMCONV } from '../../src/signals/shared/known-keys';

describe('internal tags', () => {
  it.each([...INTERNAL_TAGS])('%s is written only under --keep-internal-tags', (key) => {
    expect(new AttributeNames(DEFAULT_SEMCONV).of(key).names).toEqual([]);
    expect(new AttributeNames(DEFAULT_SEMCONV, true).of(key).names).toEqual([key]);
  });

  it('keeps the other _dd.* tags under their own names', () => {
    expect(new AttributeNames(DEFAULT_SEMCONV).of('_dd.origin').names).toEqual(['_dd.origin']);
  });
});
