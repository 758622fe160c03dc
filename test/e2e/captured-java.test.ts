/**
 * dd-java-agent 1.68.1's captured bytes replayed against today's bridge and the real collector,
 * as captured with /info advertising /v1.0/traces and without
 * (test/fixtures/captured/java-dd-java-agent-1.68.1-v1/ and -v0.4/, see their README.md): the 20
 * spans of the v0.4 or V1 payloads and the 40 shipped log lines (16 + 16 + 8 in 3 files) of each capture
 * arrive.
 */
import { describeCapturedReplay } from '../helpers/captured';

describeCapturedReplay('captured dd-java-agent 1.68.1, v0.4', {
  fixture: 'java-dd-java-agent-1.68.1-v0.4',
  paths: ['/v0.4/traces', '/api/v2/logs'],
  spans: 20,
  logRecords: 40,
});

describeCapturedReplay('captured dd-java-agent 1.68.1, V1', {
  fixture: 'java-dd-java-agent-1.68.1-v1',
  paths: ['/v1.0/traces', '/api/v2/logs'],
  spans: 20,
  logRecords: 40,
});
