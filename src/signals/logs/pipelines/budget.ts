/**
 * A record's time budget in the pipelines (--log-pipeline-budget-ms), checked before every
 * processor and between grok rules. The wall clock is cheap and is read at every check; the
 * thread's CPU clock (half a microsecond a read) only once the wall clock says the budget is gone.
 * A record the scheduler paused meanwhile (a container at its CPU quota, a saturated core) has
 * not used its budget, so it gets the budget again in CPU time and goes on parsing: under the
 * bench's load about 1 nginx record in 1,000 went unparsed when the wall clock alone decided.
 * A record that did use its budget stops having used at most twice it.
 */

/** Thrown at a check once the record's budget is spent (run.ts). */
export class BudgetExceeded extends Error {}

export interface BudgetClocks {
  /** Milliseconds on a monotonic wall clock. */
  wallMs(): number;
  /** Milliseconds of CPU time the thread has used. */
  cpuMs(): number;
}

type CpuClock = () => NodeJS.CpuUsage;
/** The thread's own CPU time where Node.js has it (22.19, 23.9 on); the process's before. */
const cpuUsage: CpuClock = (process as { threadCpuUsage?: CpuClock }).threadCpuUsage?.bind(process) ?? (() => process.cpuUsage());

export const SYSTEM_CLOCKS: BudgetClocks = {
  wallMs: () => performance.now(),
  cpuMs: () => {
    const used = cpuUsage();
    return (used.user + used.system) / 1000;
  },
};

export class RecordBudget {
  private readonly wallDeadline: number;
  private cpuDeadline: number | undefined;

  constructor(
    private readonly budgetMs: number,
    private readonly clocks: BudgetClocks = SYSTEM_CLOCKS,
  ) {
    this.wallDeadline = clocks.wallMs() + budgetMs;
  }

  /** No limit: goldens and conformance runs, which are about what the pipelines make. */
  static unlimited(): RecordBudget {
    return new RecordBudget(Number.POSITIVE_INFINITY);
  }

  check(): void {
    if (this.clocks.wallMs() <= this.wallDeadline) return;
    const cpu = this.clocks.cpuMs();
    this.cpuDeadline ??= cpu + this.budgetMs;
    if (cpu > this.cpuDeadline) throw new BudgetExceeded();
  }
}
