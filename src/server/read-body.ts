/**
 * Reads a request body as raw bytes with a hard cap. express.raw() cannot be used: it caps at
 * 100 KB by default, checks after decompressing and answers zstd with 415 on Node 20.
 */
import type { IncomingMessage } from 'node:http';
import { own } from '../memory/owned-buffers';
import { HttpError, payloadTooLarge } from './errors';

/** `reserve` is told about every chunk before it is kept; it throws to refuse the body (back-pressure). */
export function readBody(req: IncomingMessage, maxBytes: number, reserve: (bytes: number) => void = () => undefined): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    return Promise.reject(payloadTooLarge(`request body of ${declared} bytes exceeds the ${maxBytes}-byte limit`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      try {
        if (size > maxBytes) throw payloadTooLarge(`request body exceeds the ${maxBytes}-byte limit`);
        reserve(chunk.length);
      } catch (err) {
        cleanup();
        req.resume(); // drain without keeping what arrives
        reject(err as Error);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : own(Buffer.concat(chunks, size)));
    };
    const onAborted = (): void => {
      cleanup();
      reject(new HttpError(400, 'request body ended before Content-Length bytes arrived'));
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(new HttpError(400, `cannot read request body: ${err.message}`));
    };
    const cleanup = (): void => {
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
