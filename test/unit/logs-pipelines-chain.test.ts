/**
 * The logs chain with Datadog's integration pipelines (the bundled integrations-core set): an
 * nginx access line becomes HTTP attributes with the level of its status code, a postgres error
 * line an error, and a line no pipeline matches goes through untouched.
 */
import { join } from 'node:path';
import { translateLogsToModel } from '../../src/signals/logs/chain';
import { createTranslatorCaches } from '../../src/signals/caches';
import { loadPipelines } from '../../src/signals/logs/pipelines/pipeline-set';
import type { LogRecord } from '../../src/core/otlp/model';
import { anyValueJson } from '../helpers/otlp-json';
import { translationContext } from '../helpers/translation';

const { set } = loadPipelines([join(__dirname, '..', '..', 'pipelines', 'integrations-core')]);
const RECEIVED = 1_795_298_400_000_000_000n;

/** `budgetMs`: by default one no loaded machine reaches, for the tests about what the pipelines make. */
function translate(entry: Record<string, string>, budgetMs = 60_000): { record: LogRecord; attributes: Record<string, unknown>; overBudget: number } {
  const caches = createTranslatorCaches();
  caches.logPipelines.current = set;
  const ctx = translationContext(caches, RECEIVED, { logPipelineBudgetMs: budgetMs });
  const [resourceLogs] = translateLogsToModel({ entries: [{ status: 'info', timestamp: 1795298399000, hostname: 'web-1', ...entry }], queryTags: undefined }, ctx);
  const record = resourceLogs?.scopeLogs[0]?.logRecords[0] as LogRecord;
  return { record, attributes: Object.fromEntries(record.attributes.map((kv) => [kv.key, anyValueJson(kv.value)])), overBudget: ctx.tally.pipeline_over_budget ?? 0 };
}

const NGINX = (status: number): string =>
  `172.17.0.1 - - [06/Jan/2017:16:16:37 +0000] "GET /datadoghq/company?test=var1%20Pl HTTP/1.1" ${status} 612 "http://www.perdu.com/" "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/55.0.2883.87 Safari/537.36" "-"`;

it.each([
  [200, 'info', 9],
  [404, 'warn', 13],
  [503, 'error', 17],
])('nginx %i: HTTP attributes, the level of the status code, the line’s own time', (status, text, number) => {
  const { record, attributes } = translate({ ddsource: 'nginx', service: 'web', message: NGINX(status) });
  expect(record.severityText).toBe(text);
  expect(record.severityNumber).toBe(number);
  expect(record.timeUnixNano).toBe(1483719397000n * 1_000_000n);
  expect(attributes).toMatchObject({
    'http.status_code': { intValue: String(status) },
    'http.method': { stringValue: 'GET' },
    'http.url': { stringValue: '/datadoghq/company?test=var1%20Pl' },
    'http.url_details.path': { stringValue: '/datadoghq/company' },
    'http.useragent_details.browser.family': { stringValue: 'Chrome' },
    'net.peer.ip': { stringValue: '172.17.0.1' },
  });
  expect(record.body).toEqual({ string: NGINX(status) });
});

it('postgres: an ERROR line is an error', () => {
  const { record, attributes } = translate({ ddsource: 'postgresql', service: 'db', message: '2017-11-08 21:10:01.045 UTC [34] ERROR:  relation "users" does not exist at character 15' });
  expect(record.severityText).toBe('error');
  expect(attributes['db.severity']).toEqual({ stringValue: 'ERROR' });
});

it('a source no pipeline names goes through as before', () => {
  const { record, attributes } = translate({ ddsource: 'my-app', service: 'app', message: '127.0.0.1 - - [06/Jan/2017:16:16:37 +0000] "GET / HTTP/1.1" 503 1' });
  expect(record.severityText).toBe('info');
  expect(attributes['http.status_code']).toBeUndefined();
  expect(record.timeUnixNano).toBe(1795298399000n * 1_000_000n);
});

it('a `message` a grok rule extracts is an attribute beside the whole line, as Datadog keeps both', () => {
  const line = '12115:M 08 Jan 17:45:41.572 # Server started, Redis version 3.0.6';
  const { record, attributes } = translate({ ddsource: 'redis', service: 'cache', message: line });
  expect(record.body).toEqual({ string: line });
  expect(attributes.message).toEqual({ stringValue: 'Server started, Redis version 3.0.6' });
  expect(record.severityText).toBe('warn');
});

it('a record the scheduler pauses past its budget is still parsed: the budget is CPU time, not time on the wall', () => {
  // every read of the wall clock finds 10 ms gone, as on a core other processes hold; this thread used no more CPU than the record takes
  let pausedMs = 0;
  const wall = performance.now.bind(performance);
  const paused = jest.spyOn(performance, 'now').mockImplementation(() => {
    pausedMs += 10;
    return wall() + pausedMs;
  });
  try {
    const { attributes, overBudget } = translate({ ddsource: 'nginx', service: 'web', message: NGINX(404) }, 5);
    expect(overBudget).toBe(0);
    expect(attributes['http.status_code']).toEqual({ intValue: '404' });
  } finally {
    paused.mockRestore();
  }
});
