import { createLogger, rateLimited } from '../../src/core/observability/log';

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
