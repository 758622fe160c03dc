/** Reads the sidecar's Prometheus text (/metrics on the admin port) for the fault tests' counters. */

export const scrapeMetrics = async (adminUrl: string): Promise<string> => (await fetch(`${adminUrl}/metrics`)).text();

/** Sum of every sample of `name` (all label sets), or undefined when the metric is not exposed at all. */
export function sampleSum(text: string, name: string): number | undefined {
  const samples = [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))];
  return samples.length === 0 ? undefined : samples.reduce((sum, m) => sum + Number(m[1]), 0);
}

/** Requests the sidecar answered 200 on one route, from its own Prometheus counters. */
export async function answered(adminUrl: string, route: string): Promise<number> {
  const text = await scrapeMetrics(adminUrl);
  return text
    .split('\n')
    .filter((l) => l.startsWith('ddbridge_http_requests_total{') && l.includes(`route="${route}"`) && l.includes('status="200"'))
    .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
}
