/**
 * Fuzzing of Datadog's log pipelines: random and mutated lines through the bundled
 * integrations-core pipelines, and hostile grok patterns (nested quantifiers, stacked `data`
 * matchers) over hostile lines. The property: no crash, no stall. A stall shows as this file's
 * timeout: without the linear-time fallback (src/signals/logs/pipelines/grok/regex-safety.ts),
 * `(a+)+b` over 5,000 `a` alone would not return in any test's lifetime.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { parseLogsBody } from '../../src/signals/logs/parse';
import { createTranslatorCaches } from '../../src/signals/caches';
import { translateLogs } from '../../src/signals/logs/chain';
import { logStreamEncoder } from '../../src/core/otlp/encode';
import { BudgetExceeded, RecordBudget } from '../../src/signals/logs/pipelines/budget';
import { compileGrok, runGrok } from '../../src/signals/logs/pipelines/grok/compile';
import { loadPipelines } from '../../src/signals/logs/pipelines/pipeline-set';
import { FUZZ_RUNS, fuzzTarget } from '../helpers/fuzz';
import { translationContext } from '../helpers/translation';

const { set } = loadPipelines([join(__dirname, '..', '..', 'pipelines', 'integrations-core')]);
const caches = createTranslatorCaches();
caches.logPipelines.current = set;

const LINES: [string, string][] = [
  ['nginx', '172.17.0.1 - - [06/Jan/2017:16:16:37 +0000] "GET /datadoghq/company?test=var1%20Pl HTTP/1.1" 404 612 "http://www.perdu.com/" "Mozilla/5.0 (X11; Linux x86_64) Chrome/55.0.2883.87 Safari/537.36" "-"'],
  ['postgresql', '2017-11-08 21:10:01.045 UTC [34] ERROR:  relation "users" does not exist at character 15'],
  ['apache', '127.0.0.1 - frank [13/Jul/2016:10:55:36 +0000] "GET /apache_pb.gif HTTP/1.0" 200 2326'],
  ['haproxy', 'Jul 17 12:55:42 localhost haproxy[1]: 10.0.0.1:5000 [17/Jul/2024:12:55:42.123] fe be/srv 0/0/1/2/3 200 512 - - ---- 1/1/0/0/0 0/0 "GET / HTTP/1.1"'],
  ['redis', '1:M 20 Feb 2020 18:27:42.059 * Ready to accept connections'],
  ['java', '2024-03-01 10:00:00,123 [main] ERROR com.example.App - boom {dd.trace_id=1 dd.span_id=2}'],
];
const seeds = LINES.map(([source, message]) => Buffer.from(JSON.stringify([{ message, ddsource: source, service: 's', status: 'info' }])));

fuzzTarget('log-pipelines', seeds, (input) => {
  const payload = parseLogsBody(input, new URLSearchParams());
  const records = logStreamEncoder();
  translateLogs(translationContext(caches, 1_700_000_000_000_000_000n, { logPipelineBudgetMs: 50 }), records)(payload);
  records.requests(64 * 1024);
});

/** Pieces hostile patterns are made of: nested quantifiers, lazy and greedy wildcards, alternations. */
const PIECES = ['%{data:a}', '%{data}', '%{notSpace:b}', '%{regex("(a+)+"):c}', '%{regex("(a|aa)*"):d}', '%{regex("(.*)*"):e}', '%{word:f}', '(x|%{data})*', ' ', 'a', '.*', '(a*)*', '%{integer:g}', '\\s+', '(?>a+)+', 'b'];
const pattern = fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 8 }).map((parts) => parts.join(''));
const hostileLine = fc.tuple(fc.constantFrom('a', 'ab', 'a ', ' ', 'x', 'aaaa b'), fc.integer({ min: 0, max: 3000 }), fc.constantFrom('', 'c', '!', ' x')).map(([unit, n, tail]) => unit.repeat(n) + tail);

it('hostile grok patterns over hostile lines return (the budget is checked, one expression is bounded)', () => {
  fc.assert(
    fc.property(pattern, hostileLine, (p, line) => {
      const { rules } = compileGrok('', `rule ${p}\nother %{data:z} %{data:y} %{data:x} never`, 'fuzz');
      try {
        runGrok(rules, line, new RecordBudget(50));
      } catch (e) {
        if (!(e instanceof BudgetExceeded)) throw e;
      }
    }),
    { numRuns: Math.min(FUZZ_RUNS, 300) },
  );
});

it('the classic catastrophic pattern returns over a long line', () => {
  const { rules } = compileGrok('', 'rule %{regex("(a+)+b"):x}', 'fuzz');
  expect(rules[0]?.bounded).toBe(true);
  expect(runGrok(rules, `${'a'.repeat(5000)}c`, RecordBudget.unlimited())).toBeUndefined();
});
