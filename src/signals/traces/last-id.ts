import { spanIdBytes, traceIdBytes } from '../shared/trace-id';

/**
 * The bytes of the id last converted. Spans follow each other chunk by chunk, so they repeat
 * their trace id and mostly their parent id, and a conversion costs a buffer and several BigInt
 * operations. Equal ids share the bytes, which nothing writes to. One pair per translation
 * (SpanContext.lastIds).
 */
export class LastId {
  private id = -1n;
  private bytes: Uint8Array = new Uint8Array(0);

  constructor(private readonly convert: (id: bigint) => Uint8Array) {}

  bytesOf(id: bigint): Uint8Array {
    if (id !== this.id) {
      this.bytes = this.convert(id);
      this.id = id;
    }
    return this.bytes;
  }
}

export interface LastIds {
  trace: LastId;
  parent: LastId;
}

export const lastIds = (): LastIds => ({ trace: new LastId(traceIdBytes), parent: new LastId(spanIdBytes) });
