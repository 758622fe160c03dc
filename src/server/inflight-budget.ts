/**
 * Back-pressure: a bound on requests in progress and on body bytes held (as sent plus
 * decompressed). Past it a request gets 503 + Retry-After at once — every Datadog sender retries
 * that — instead of the process buffering without limit. A request alone larger than the byte
 * budget is still let through when nothing else is held, so it can never be refused forever.
 */
import { HttpError } from './errors';

export class OverloadedError extends HttpError {
  constructor(what: string) {
    super(503, `sidecar is at its ${what} limit; retry later`, { 'Retry-After': '1' });
  }
}

export interface Lease {
  reserve(bytes: number): void;
  release(): void;
}

export class InflightBudget {
  private requests = 0;
  private bytes = 0;

  constructor(
    private readonly maxRequests: number,
    private readonly maxBytes: number,
  ) {}

  /** A slot for one request, or a 503 HttpError when all are taken. */
  lease(): Lease {
    if (this.requests >= this.maxRequests) throw new OverloadedError('in-flight request');
    this.requests++;
    let held = 0;
    let released = false;
    return {
      reserve: (bytes) => {
        if (this.bytes > 0 && this.bytes + bytes > this.maxBytes) throw new OverloadedError('in-flight byte');
        this.bytes += bytes;
        held += bytes;
      },
      release: () => {
        if (released) return;
        released = true;
        this.requests--;
        this.bytes -= held;
      },
    };
  }

  get usage(): { requests: number; bytes: number } {
    return { requests: this.requests, bytes: this.bytes };
  }
}
