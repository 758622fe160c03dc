/**
 * Python ddtrace 4.16.0's captured bytes (test/fixtures/captured/python-ddtrace-4.16.0/, see its
 * README.md) replayed against today's bridge and the real collector: every request gets a 2xx,
 * the 42 spans of its one v0.5 payload and the 10 shipped log lines (5 per file) arrive.
 */
import { describeCapturedReplay } from '../helpers/captured';

describeCapturedReplay('captured Python ddtrace 4.16.0', { fixture: 'python-ddtrace-4.16.0', paths: ['/v0.5/traces', '/api/v2/logs'], spans: 42, logRecords: 10 });
