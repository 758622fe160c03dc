/**
 * A record's budget in the log pipelines (src/signals/logs/pipelines/budget.ts): the wall clock
 * decides while the record is within it, the thread's CPU clock once it is not.
 */
import { BudgetExceeded, type BudgetClocks, RecordBudget } from '../../src/signals/logs/pipelines/budget';

/** Clocks the test moves by hand; `cpuReads` counts the CPU clock's reads. */
function handClocks(): BudgetClocks & { wall: number; cpu: number; cpuReads: number } {
  const clocks = {
    wall: 0,
    cpu: 0,
    cpuReads: 0,
    wallMs: () => clocks.wall,
    cpuMs: () => {
      clocks.cpuReads++;
      return clocks.cpu;
    },
  };
  return clocks;
}

it('within the budget on the wall clock, the CPU clock is not read', () => {
  const clocks = handClocks();
  const budget = new RecordBudget(5, clocks);
  clocks.wall = 5;
  budget.check();
  expect(clocks.cpuReads).toBe(0);
});

it('a record paused past its budget goes on until it has used the budget in CPU time', () => {
  const clocks = handClocks();
  const budget = new RecordBudget(5, clocks);
  clocks.wall = 50;
  clocks.cpu = 1;
  budget.check();
  clocks.cpu = 6;
  budget.check();
  clocks.cpu = 6.5;
  expect(() => budget.check()).toThrow(BudgetExceeded);
});

it('a record that spends its budget stops having used at most twice it', () => {
  const clocks = handClocks();
  const budget = new RecordBudget(5, clocks);
  clocks.wall = clocks.cpu = 5.1;
  budget.check();
  clocks.wall = clocks.cpu = 10.2;
  expect(() => budget.check()).toThrow(BudgetExceeded);
});

it('an unlimited budget never runs out', () => {
  const budget = RecordBudget.unlimited();
  expect(() => budget.check()).not.toThrow();
});
