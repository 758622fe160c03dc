/** The reply the intake would send for `err`, which must be a domain error (src/core/errors.ts). */
import { isDomainError } from '../../src/core/errors';
import { errorReplyFor, type ErrorReply } from '../../src/http/error-reply';

export function replyTo(err: unknown): ErrorReply {
  if (!isDomainError(err)) throw new Error(`expected a domain error, got ${String(err)}`);
  return errorReplyFor(err);
}
