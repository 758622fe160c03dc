/** What a conformance comparison talks about, shared by the comparison (conformance.ts) and the list of deliberate differences (conformance-deliberate.ts). */

export type Signal = 'logs' | 'traces' | 'metrics';

export interface Difference {
  signal: Signal;
  /** `resource.host.name`, `attributes.env`, `severityText`, … ; `record` when a record has no counterpart */
  field: string;
  kind: 'only ours' | 'only upstream' | 'differs';
  count: number;
  example: { ours?: string; upstream?: string };
}
