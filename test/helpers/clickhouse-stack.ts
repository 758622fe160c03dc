/**
 * A test ClickHouse and a stack writing to it (stack.ts `sink: 'clickhouse'`), for one describe
 * block: started before its tests, stopped after them. The fields are set once `beforeAll` ran.
 */
import { startTestClickHouse, type TestClickHouse } from './clickhouse';
import { startStack, type StackOptions, type TestStack } from './stack';

export interface ClickHouseStack {
  ch: TestClickHouse;
  stack: TestStack;
}

/** `options`: the stack's other settings (an auth token, say); its sink is always that ClickHouse. */
export function useClickHouseStack(options: Omit<StackOptions, 'sink' | 'clickhouse'> = {}): ClickHouseStack {
  const running = {} as ClickHouseStack;
  beforeAll(async () => {
    running.ch = await startTestClickHouse();
    running.stack = await startStack({ ...options, sink: 'clickhouse', clickhouse: running.ch });
  });
  afterAll(async () => {
    await running.stack?.stop();
    await running.ch?.stop();
  });
  return running;
}
