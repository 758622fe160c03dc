import { decodeExportResponse } from '../../src/core/otlp/response';
import type { Signal } from '../../src/core/otlp/model';
import { lookupType, RESPONSE_TYPE } from '../helpers/otlp-proto';

const REJECTED_FIELD: Record<Signal, string> = {
  logs: 'rejectedLogRecords',
  traces: 'rejectedSpans',
  metrics: 'rejectedDataPoints',
};

function encodeResponse(signal: Signal, response: Record<string, unknown>): Buffer {
  const type = lookupType(RESPONSE_TYPE[signal]);
  const error = type.verify(response);
  if (error) throw new Error(error);
  return Buffer.from(type.encode(type.fromObject(response)).finish());
}

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');

describe('decodeExportResponse', () => {
  it.each<Signal>(['logs', 'traces', 'metrics'])('reads the partial success of a %s response', (signal) => {
    const body = encodeResponse(signal, { partialSuccess: { [REJECTED_FIELD[signal]]: 3, errorMessage: 'dropped 3: invalid attribute ✗' } });
    expect(decodeExportResponse(body)).toEqual({ rejected: 3, errorMessage: 'dropped 3: invalid attribute ✗' });
  });

  it('returns a full success for an empty response and an empty partial success', () => {
    expect(decodeExportResponse(new Uint8Array(0))).toEqual({ rejected: 0, errorMessage: '' });
    expect(decodeExportResponse(encodeResponse('traces', {}))).toEqual({ rejected: 0, errorMessage: '' });
    expect(decodeExportResponse(encodeResponse('traces', { partialSuccess: {} }))).toEqual({ rejected: 0, errorMessage: '' });
  });

  it('reads a warning without rejections and counts beyond 32 bits', () => {
    expect(decodeExportResponse(encodeResponse('logs', { partialSuccess: { errorMessage: 'slow down' } }))).toEqual({ rejected: 0, errorMessage: 'slow down' });
    expect(decodeExportResponse(encodeResponse('metrics', { partialSuccess: { rejectedDataPoints: 5_000_000_000 } }))).toEqual({
      rejected: 5_000_000_000,
      errorMessage: '',
    });
  });

  it('treats a negative count as no rejection', () => {
    expect(decodeExportResponse(encodeResponse('traces', { partialSuccess: { rejectedSpans: -2, errorMessage: 'odd' } }))).toEqual({ rejected: 0, errorMessage: 'odd' });
  });

  it('skips unknown fields of every wire type, outside and inside partial_success', () => {
    const known = encodeResponse('traces', { partialSuccess: { rejectedSpans: 7, errorMessage: 'e' } });
    const unknownFields = hex(`
      10 96 01
      19 0102030405060708
      22 03 616263
      2d 01020304
    `);
    const inner = Buffer.concat([unknownFields, hex('08 07'), hex('12 01 65'), hex('f8 ff ff ff 0f 01')]);
    expect(decodeExportResponse(Buffer.concat([unknownFields, known, unknownFields]))).toEqual({ rejected: 7, errorMessage: 'e' });
    expect(decodeExportResponse(Buffer.concat([hex('0a'), Buffer.from([inner.length]), inner]))).toEqual({ rejected: 7, errorMessage: 'e' });
  });

  it('merges a repeated partial_success like protobuf does', () => {
    const first = encodeResponse('logs', { partialSuccess: { rejectedLogRecords: 1, errorMessage: 'first' } });
    const second = encodeResponse('logs', { partialSuccess: { rejectedLogRecords: 4 } });
    expect(decodeExportResponse(Buffer.concat([first, second]))).toEqual({ rejected: 4, errorMessage: 'first' });
    const viaProtobufjs = lookupType(RESPONSE_TYPE.logs).decode(Buffer.concat([first, second])) as unknown as {
      partialSuccess: { rejectedLogRecords: { toNumber(): number } | number; errorMessage: string };
    };
    expect(viaProtobufjs.partialSuccess.errorMessage).toBe('first');
    expect(Number(viaProtobufjs.partialSuccess.rejectedLogRecords)).toBe(4);
  });

  it('reads from a view into a larger buffer', () => {
    const body = encodeResponse('traces', { partialSuccess: { rejectedSpans: 9, errorMessage: 'view' } });
    const padded = Buffer.concat([Buffer.from('garbage'), body, Buffer.from('tail')]);
    expect(decodeExportResponse(padded.subarray(7, 7 + body.length))).toEqual({ rejected: 9, errorMessage: 'view' });
  });

  it.each([
    ['a truncated varint', '08'],
    ['a truncated partial_success', '0a 05 08 01'],
    ['a length past the end inside partial_success', '0a 02 12 05'],
    ['a truncated fixed64', '19 0102'],
    ['a truncated fixed32', '0a 03 2d 0102'],
    ['a group', '0b 0c'],
    ['an invalid wire type', '0e'],
    ['field number 0', '00 01'],
    ['a varint longer than ten bytes', '10 ff ff ff ff ff ff ff ff ff ff 01'],
  ])('throws on %s', (_name, bytes) => {
    expect(() => decodeExportResponse(hex(bytes))).toThrow(/malformed OTLP export response/);
  });
});
