/**
 * Reads a request body as raw bytes with a hard cap and a minimum upload rate. express.raw()
 * cannot be used: it caps at 100 KB by default, checks after decompressing and answers zstd with
 * 415 on Node 20.
 */
import type { IncomingMessage } from 'node:http';
import { own } from '../core/owned-buffers';
import { MalformedInputError, SlowUploadError, TooLargeError } from '../core/errors';

export interface BodyLimits {
  /** Largest body as sent; more is a 413. */
  maxBytes: number;
  /**
   * Fewest bytes per second a body must bring, judged over each `rateWindowMs` from the moment
   * reading starts (so the first window is the grace for the first bytes); slower is a 408.
   */
  minBytesPerSecond: number;
  rateWindowMs: number;
}

/**
 * A body arriving slower than the minimum rate. Its connection is closed with the reply
 * (intake-app.ts): the rest of the body is not worth reading, and a client trickling it must not
 * keep the socket. Every Datadog sender retries 408.
 */
const slowUpload = (limits: BodyLimits): SlowUploadError => new SlowUploadError(`request body arrived slower than ${limits.minBytesPerSecond} bytes/s over ${limits.rateWindowMs} ms`);

/** `reserve` is told about every chunk before it is kept; it throws to refuse the body (back-pressure). */
export function readBody(req: IncomingMessage, limits: BodyLimits, reserve: (bytes: number) => void = () => undefined): Promise<Buffer> {
  const { maxBytes } = limits;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    return Promise.reject(new TooLargeError(`request body of ${declared} bytes exceeds the ${maxBytes}-byte limit`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let sizeAtLastCheck = 0;
    const fail = (err: Error): void => {
      cleanup();
      reject(err);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      try {
        if (size > maxBytes) throw new TooLargeError(`request body exceeds the ${maxBytes}-byte limit`);
        reserve(chunk.length);
      } catch (err) {
        req.resume(); // drain without keeping what arrives
        fail(err as Error);
        return;
      }
      chunks.push(chunk);
    };
    const checkRate = (): void => {
      if (size - sizeAtLastCheck < (limits.minBytesPerSecond * limits.rateWindowMs) / 1000) fail(slowUpload(limits));
      sizeAtLastCheck = size;
    };
    // a body node has parsed whole already (most are: one packet) has no rate left to judge
    const rateCheck = req.complete ? undefined : setInterval(checkRate, limits.rateWindowMs);
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : own(Buffer.concat(chunks, size)));
    };
    const onAborted = (): void => fail(new MalformedInputError('request body ended before Content-Length bytes arrived'));
    const onError = (err: Error): void => fail(new MalformedInputError(`cannot read request body: ${err.message}`));
    const cleanup = (): void => {
      clearInterval(rateCheck);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('aborted', onAborted);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('aborted', onAborted);
    req.on('error', onError);
  });
}
