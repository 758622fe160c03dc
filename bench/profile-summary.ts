/**
 * Summarises a V8 .cpuprofile (node --cpu-prof): self time per function and inclusive time per
 * src/ file, so a profile can be read in a terminal and quoted in the bench notes.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { REPO_ROOT } from '../tools/src/collector/build';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const label = (n: ProfileNode): string => `${n.callFrame.functionName || '(anonymous)'} ${relative(REPO_ROOT, n.callFrame.url.replace('file://', '')) || ''}:${n.callFrame.lineNumber + 1}`;

export function summarise(profile: Profile, top = 40): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    total += dt;
    const node = byId.get(id) as ProfileNode;
    self.set(label(node), (self.get(label(node)) ?? 0) + dt);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at) as ProfileNode;
      const key = frame.callFrame.functionName ? `${frame.callFrame.functionName} ${relative(REPO_ROOT, frame.callFrame.url.replace('file://', ''))}` : '';
      if (!key || seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + dt);
    }
  });
  const table = (m: Map<string, number>): string =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`)
      .join('\n');
  return `total ${(total / 1e6).toFixed(2)} s sampled\n\nself time\n${table(self)}\n\ninclusive (named functions)\n${table(inclusive)}\n`;
}

if (require.main === module) process.stdout.write(summarise(JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as Profile, Number(process.argv[3] ?? 40)));
