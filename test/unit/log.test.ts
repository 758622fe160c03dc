import { createLogger, rateLimited, redacting } from '../../src/core/observability/log';

const capture = (): { lines: Record<string, unknown>[]; log: ReturnType<typeof createLogger> } => {
  const lines: Record<string, unknown>[] = [];
  return { lines, log: createLogger('debug', {}, (line) => lines.push(JSON.parse(line) as Record<string, unknown>)) };
};

describe('rateLimited', () => {
  it('writes one line per message per interval and reports how many it left out', () => {
    const { lines, log } = capture();
    let t = 0;
    const limited = rateLimited(log, 1000, () => t);
    for (let i = 0; i < 5; i++) limited.warn('overloaded', { route: 'logs' });
    expect(lines).toHaveLength(1);
    t = 999;
    limited.warn('overloaded');
    expect(lines).toHaveLength(1);
    t = 1000;
    limited.warn('overloaded', { route: 'logs' });
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ level: 'warn', msg: 'overloaded', route: 'logs', suppressed: 5 });
    expect(lines[0]).not.toHaveProperty('suppressed');
  });

  it('limits each message and level on its own, children included', () => {
    const { lines, log } = capture();
    const limited = rateLimited(log, 1000, () => 0);
    limited.warn('a');
    limited.warn('b');
    limited.error('a');
    limited.warn('a');
    limited.child({ component: 'spool' }).info('c');
    expect(lines.map((l) => `${l.level} ${l.msg}`)).toEqual(['warn a', 'warn b', 'error a', 'info c']);
    expect(lines[3]).toMatchObject({ component: 'spool' });
  });
});

describe('redacting', () => {
  const redact = (text: string): string => text.replaceAll('s3cret', '<redacted>');

  it('redacts the message and every string in the fields, however deep, errors and toJSON values included', () => {
    const { lines, log } = capture();
    const err = new Error('collector said: bad token s3cret');
    redacting(log, redact).error('refused s3cret', { path: '/v1/input/s3cret', nested: { list: ['a', 's3cret'], n: 3, big: 5n }, err, at: { toJSON: () => 'at s3cret' } });
    const line = lines[0] as Record<string, unknown>;
    expect(JSON.stringify(line)).not.toContain('s3cret');
    expect(line).toMatchObject({ msg: 'refused <redacted>', path: '/v1/input/<redacted>', nested: { list: ['a', '<redacted>'], n: 3, big: '5' }, err: { message: 'collector said: bad token <redacted>', name: 'Error' }, at: 'at <redacted>' });
  });

  it("redacts its children's fields too, through the rate limiter", () => {
    const { lines, log } = capture();
    rateLimited(redacting(log, redact), 1000, () => 0)
      .child({ endpoint: 'http://s3cret@collector' })
      .warn('retrying');
    expect(lines[0]).toMatchObject({ msg: 'retrying', endpoint: 'http://<redacted>@collector' });
  });
});
