/**
 * Back-pressure: a bound on requests in progress and on body bytes held (as sent plus
 * decompressed). Past it a request gets 503 + Retry-After at once — every Datadog sender retries
 * that — instead of the process buffering without limit. A request alone larger than the byte
 * budget is still let through when nothing else is held, so it can never be refused forever.
 *
 * A request counts against the request bound only once its body has arrived: a slot taken at the
 * headers let 300 sockets trickling bodies hold every slot and turn everyone else away with 503
 * for 45 s (issue 21). While a body arrives it holds only the bytes it has sent, and read-body.ts
 * cuts it off when it arrives too slowly.
 */
import { OverloadedError } from '../core/errors';

export interface Lease {
  /** Counts `bytes` more held by this request; throws OverloadedError past the byte budget. */
  reserve(bytes: number): void;
  /** Takes the request's slot, once its body is complete; throws OverloadedError when all are taken. */
  admit(): void;
  /** Gives back the slot and the bytes; safe to call more than once. */
  release(): void;
}

export class InflightBudget {
  private requests = 0;
  private bytes = 0;

  constructor(
    private readonly maxRequests: number,
    private readonly maxBytes: number,
  ) {}

  /** What one request holds, nothing yet. */
  lease(): Lease {
    let held = 0;
    let admitted = false;
    let released = false;
    return {
      reserve: (bytes) => {
        if (this.bytes > 0 && this.bytes + bytes > this.maxBytes) throw new OverloadedError('in-flight byte');
        this.bytes += bytes;
        held += bytes;
      },
      admit: () => {
        if (admitted) return;
        if (this.requests >= this.maxRequests) throw new OverloadedError('in-flight request');
        this.requests++;
        admitted = true;
      },
      release: () => {
        if (released) return;
        released = true;
        if (admitted) this.requests--;
        this.bytes -= held;
      },
    };
  }

  get usage(): { requests: number; bytes: number } {
    return { requests: this.requests, bytes: this.bytes };
  }
}
