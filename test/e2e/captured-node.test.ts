/**
 * Node dd-trace 5.132.0's captured bytes (test/fixtures/captured/node-dd-trace-5.132.0/, see its
 * README.md) replayed against today's bridge and the real collector: the 13 spans of its v0.4
 * payload and the 15 shipped log lines (5 in each of 3 files) are accepted and arrive; the
 * remote-config poll gets the 404 that turns it off.
 */
import { describeCapturedReplay } from '../helpers/captured';

describeCapturedReplay('captured Node dd-trace 5.132.0', {
  fixture: 'node-dd-trace-5.132.0',
  paths: ['/v0.4/traces', '/api/v2/logs', '/v0.7/config'],
  spans: 13,
  logRecords: 15,
  // the dogstatsd client's self-metrics: the bridge has no DogStatsD route (the fixture's README says so)
  leaveOut: /^\/dogstatsd\//,
  expectedReplies: { '/v0.7/config': 404 },
});
