/**
 * The errors the data path raises on purpose, at the bottom of the dependency graph so that
 * decoders, parsers, encoders and exporters can say what went wrong without knowing who asked.
 * Each says what happened; what the sender hears (status, Retry-After, advice) is decided in one
 * place, src/http/error-reply.ts. A message may be sent to the client verbatim, so it names what
 * was wrong (with the field path for malformed input) and never holds a secret.
 */

/** Every kind below; error-reply.ts has one answer per kind, which the compiler checks. */
export type DomainError = MalformedInputError | TooLargeError | UnsupportedEncodingError | UnsupportedMediaTypeError | AccessDeniedError | SlowUploadError | ExportRefusedError | UnavailableError;

abstract class BridgeError extends Error {
  abstract readonly kind: DomainError['kind'];

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export const isDomainError = (err: unknown): err is DomainError => err instanceof BridgeError;

/** Input that can never be processed as sent; `field` is the path of the offending field when one is to blame. */
export class MalformedInputError extends BridgeError {
  readonly kind = 'malformed';

  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }

  /** `<what>: <field>: <problem>`, e.g. `series: series[3].points[0]: expected [timestamp, value], got a number`. */
  static at(what: string, field: string, problem: string): MalformedInputError {
    return new MalformedInputError(`${what}: ${field}: ${problem}`, field);
  }
}

/** Input (as sent, decoded, or as one encoded record) larger than a configured limit. */
export class TooLargeError extends BridgeError {
  readonly kind = 'too-large';
}

/** A Content-Encoding the sidecar cannot undo. */
export class UnsupportedEncodingError extends BridgeError {
  readonly kind = 'unsupported-encoding';
}

/** A Content-Type the route cannot read. */
export class UnsupportedMediaTypeError extends BridgeError {
  readonly kind = 'unsupported-media-type';
}

/** No API key, or none of the configured ones. */
export class AccessDeniedError extends BridgeError {
  readonly kind = 'access-denied';
}

/** A body arriving slower than the minimum upload rate. */
export class SlowUploadError extends BridgeError {
  readonly kind = 'slow-upload';
}

/**
 * The collector did not take an export. `permanent` when the data itself is at fault, so that no
 * retry (ours or the sender's) can help; `code` is the collector's gRPC status, `codeName` its name.
 */
export class ExportRefusedError extends BridgeError {
  readonly kind = 'export-refused';

  constructor(
    readonly code: number,
    readonly codeName: string,
    readonly detail: string,
    readonly permanent: boolean,
  ) {
    super(permanent ? `collector rejected the data as invalid (${codeName}): ${detail}` : `collector did not accept the data (${codeName})`);
  }
}

/** The data is fine but cannot be taken now; `retryAfterSeconds` is when trying again is likely to succeed. */
export class UnavailableError extends BridgeError {
  readonly kind = 'unavailable';

  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** The sidecar's own in-flight bounds are used up (back-pressure); they free up within a request's time. */
export class OverloadedError extends UnavailableError {
  constructor(what: string) {
    super(`sidecar is at its ${what} limit`, 1);
  }
}

/** Exports are being shut down: another instance (or this one restarted) takes the retry. */
export class ShuttingDownError extends UnavailableError {
  constructor() {
    super('shutting down', 5);
  }
}

/** The spool holds its configured maximum; the drainer frees space as the collector takes data. */
export class SpoolFullError extends UnavailableError {
  constructor(maxBytes: number) {
    super(`local spool is full (${maxBytes} bytes)`, 10);
  }
}

/** The disk refused a spool write (full, over quota, I/O error): the data was not kept. */
export class SpoolWriteError extends UnavailableError {
  constructor(cause: unknown) {
    super(`cannot write to the local spool (${errnoCode(cause)})`, 10);
  }
}

const errnoCode = (err: unknown): string => (err as NodeJS.ErrnoException)?.code ?? (err as Error)?.message ?? String(err);
