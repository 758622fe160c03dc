/**
 * The one error→reply map (src/http/error-reply.ts): every domain error's status, headers and
 * text, pinned to the replies the sidecar sent when each error still carried its own status.
 */
import {
  AccessDeniedError,
  type DomainError,
  ExportRefusedError,
  MalformedInputError,
  OverloadedError,
  ShuttingDownError,
  SlowUploadError,
  SpoolFullError,
  SpoolWriteError,
  TooLargeError,
  UnsupportedEncodingError,
  UnsupportedMediaTypeError,
} from '../../src/core/errors';
import { GrpcStatus } from '../../src/core/export/grpc-client';
import { RecordTooLargeError } from '../../src/core/otlp/encode';
import { errorReplyFor, type ErrorReply } from '../../src/http/error-reply';

const cases: [string, DomainError, ErrorReply][] = [
  ['malformed input', MalformedInputError.at('series', 'series[3].points[0]', 'expected [timestamp, value], got a number'), { status: 400, text: 'series: series[3].points[0]: expected [timestamp, value], got a number', headers: {} }],
  ['access denied', new AccessDeniedError('API key missing or not accepted (send it in the DD-API-KEY header)'), { status: 403, text: 'API key missing or not accepted (send it in the DD-API-KEY header)', headers: {} }],
  ['slow upload', new SlowUploadError('request body arrived slower than 100 bytes/s over 5000 ms'), { status: 408, text: 'request body arrived slower than 100 bytes/s over 5000 ms; the connection is closed, retry', headers: {} }],
  ['too large', new TooLargeError('request body exceeds the 10-byte limit'), { status: 413, text: 'request body exceeds the 10-byte limit', headers: {} }],
  ['one record too large', new RecordTooLargeError('logs', 5000, 4096), { status: 413, text: 'logs: a single log record encodes to 5000 bytes with its resource and scope, more than the 4096-byte limit of one OTLP export', headers: {} }],
  ['unsupported encoding', new UnsupportedEncodingError('unsupported Content-Encoding "br"'), { status: 415, text: 'unsupported Content-Encoding "br"', headers: {} }],
  ['unsupported media type', new UnsupportedMediaTypeError('logs: Content-Type text/plain is not supported; send application/json'), { status: 415, text: 'logs: Content-Type text/plain is not supported; send application/json', headers: {} }],
  ['a permanent export refusal', new ExportRefusedError(GrpcStatus.INVALID_ARGUMENT, 'INVALID_ARGUMENT', 'bad field', true), { status: 400, text: 'collector rejected the data as invalid (INVALID_ARGUMENT): bad field', headers: {} }],
  ['a retryable export refusal', new ExportRefusedError(GrpcStatus.UNAVAILABLE, 'UNAVAILABLE', 'connection refused', false), { status: 503, text: 'collector did not accept the data (UNAVAILABLE); retry later', headers: { 'Retry-After': '5' } }],
  ['overload', new OverloadedError('in-flight byte'), { status: 503, text: 'sidecar is at its in-flight byte limit; retry later', headers: { 'Retry-After': '1' } }],
  ['shutdown', new ShuttingDownError(), { status: 503, text: 'shutting down; retry later', headers: { 'Retry-After': '5' } }],
  ['a full spool', new SpoolFullError(1_000), { status: 503, text: 'local spool is full (1000 bytes); retry later', headers: { 'Retry-After': '10' } }],
  ['a refused spool write', new SpoolWriteError(Object.assign(new Error('no space'), { code: 'ENOSPC' })), { status: 503, text: 'cannot write to the local spool (ENOSPC); retry later', headers: { 'Retry-After': '10' } }],
];

describe('errorReplyFor', () => {
  it.each(cases)('answers %s as before', (_name, err, reply) => {
    expect(errorReplyFor(err)).toEqual(reply);
  });

  it('keeps the field path of malformed input', () => {
    expect(MalformedInputError.at('logs', '[2].message', 'expected a string').field).toBe('[2].message');
  });
});
