/**
 * dd-trace-go 2.12.0's captured bytes replayed against today's bridge and the real collector, as
 * captured with /info advertising /v1.0/traces and without
 * (test/fixtures/captured/go-dd-trace-go-2.12.0-v1/ and -v0.4/, see their README.md): the 14 spans
 * of the v0.4 or V1 payloads and the 14 shipped log lines (7 per file) of each capture arrive.
 */
import { describeCapturedReplay } from '../helpers/captured';

/** Its remote-config poll is a GET with a body, which fetch cannot send (the bridge answers any /v0.7/config with 404). */
const REMOTE_CONFIG = /^\/v0\.7\/config$/;

describeCapturedReplay('captured dd-trace-go 2.12.0, v0.4', {
  fixture: 'go-dd-trace-go-2.12.0-v0.4',
  paths: ['/v0.4/traces', '/api/v2/logs'],
  spans: 14,
  logRecords: 14,
  leaveOut: REMOTE_CONFIG,
});

describeCapturedReplay('captured dd-trace-go 2.12.0, V1', {
  fixture: 'go-dd-trace-go-2.12.0-v1',
  paths: ['/v1.0/traces', '/api/v2/logs'],
  spans: 14,
  logRecords: 14,
  leaveOut: REMOTE_CONFIG,
});
