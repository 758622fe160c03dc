/**
 * Reads the partial_success of an Export{Logs,Trace,Metrics}ServiceResponse. All three share one
 * shape on the wire (partial_success = 1 {rejected_* = 1 int64, error_message = 2 string}), so one
 * reader serves every signal without loading the .proto files at runtime.
 */

import { ProtoDecodeError, ProtoReader, WireType } from '../wire/proto-reader';

export interface PartialSuccess {
  rejected: number;
  errorMessage: string;
}

const PARTIAL_SUCCESS = 1;
const REJECTED = 1;
const ERROR_MESSAGE = 2;

/** `{ rejected: 0, errorMessage: '' }` when the collector accepted everything. */
export function decodeExportResponse(bytes: Uint8Array): PartialSuccess {
  const result: PartialSuccess = { rejected: 0, errorMessage: '' };
  const reader = new ProtoReader(bytes);
  try {
    while (!reader.done) {
      const [field, wireType] = reader.tag();
      // A repeated occurrence of a message field merges into the earlier one, per the encoding spec.
      if (field === PARTIAL_SUCCESS && wireType === WireType.Len) readPartialSuccess(reader.message('partial_success'), result);
      else reader.skip(wireType);
    }
  } catch (err) {
    if (err instanceof ProtoDecodeError) throw new Error(`malformed OTLP export response: ${err.message}`);
    throw err;
  }
  return result;
}

function readPartialSuccess(reader: ProtoReader, into: PartialSuccess): void {
  while (!reader.done) {
    const [field, wireType] = reader.tag();
    if (field === REJECTED && wireType === WireType.Varint) {
      // A negative count is meaningless; counting it would inflate "accepted" downstream.
      const rejected = Number(reader.int64());
      into.rejected = Math.max(0, rejected);
    } else if (field === ERROR_MESSAGE && wireType === WireType.Len) {
      into.errorMessage = reader.string();
    } else {
      reader.skip(wireType);
    }
  }
}
