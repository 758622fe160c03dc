/**
 * Polls the sidecar's /health one request at a time while an attack runs, so a test can show the
 * process stayed responsive: how many probes got a 2xx and the slowest answer.
 */
export interface HealthFigures {
  answered: number;
  failed: number;
  worstMs: number;
}

export function probeHealth(adminUrl: string, everyMs = 100): { stop(): Promise<HealthFigures> } {
  const figures: HealthFigures = { answered: 0, failed: 0, worstMs: 0 };
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      try {
        const res = await fetch(`${adminUrl}/health`, { signal: AbortSignal.timeout(10_000) });
        await res.arrayBuffer();
        if (res.ok) figures.answered++;
        else figures.failed++;
      } catch {
        figures.failed++;
      }
      figures.worstMs = Math.max(figures.worstMs, Date.now() - started);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return figures;
    },
  };
}

export const healthLine = (h: HealthFigures): string => `health=${h.answered} answered/${h.failed} failed, worst ${h.worstMs} ms`;
