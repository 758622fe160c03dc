import { OverloadedError } from '../../src/core/errors';
import { InflightBudget } from '../../src/http/inflight-budget';
import { replyTo } from '../helpers/error-reply';

describe('InflightBudget', () => {
  it('holds bytes while a body arrives and a request slot only once admitted', () => {
    const budget = new InflightBudget(1, 100);
    const uploading = budget.lease();
    uploading.reserve(10);
    expect(budget.usage).toEqual({ requests: 0, bytes: 10 });
    const complete = budget.lease();
    complete.admit();
    expect(budget.usage).toEqual({ requests: 1, bytes: 10 });
    expect(() => uploading.admit()).toThrow(OverloadedError);
    complete.release();
    uploading.admit();
    uploading.release();
    uploading.release();
    expect(budget.usage).toEqual({ requests: 0, bytes: 0 });
  });

  it('refuses bytes past the budget with 503, but lets one request alone pass it', () => {
    const budget = new InflightBudget(4, 100);
    const big = budget.lease();
    big.reserve(500);
    const other = budget.lease();
    const refused = (() => {
      try {
        other.reserve(1);
      } catch (err) {
        return err;
      }
    })();
    expect(refused).toBeInstanceOf(OverloadedError);
    expect(replyTo(refused)).toMatchObject({ status: 503, headers: { 'Retry-After': '1' } });
    big.release();
    other.reserve(1);
    expect(budget.usage).toEqual({ requests: 0, bytes: 1 });
  });
});
