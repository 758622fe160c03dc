/**
 * What every assembled collector configuration must keep from collector/config.yaml, whatever
 * overlays were added: each base pipeline's processors (in order), no processor that acknowledges
 * what it only holds in memory, and, where ClickHouse is the destination, the sending queue on disk
 * with retries that never give up; and no exporter listed twice in a pipeline. Read from the
 * collector's own `print-config` output, so the collector's merge is what is judged.
 */
interface Pipeline {
  processors?: string[];
  exporters?: string[];
}

interface Exporter {
  sending_queue?: { enabled?: boolean; storage?: string } | null;
  retry_on_failure?: { enabled?: boolean; max_elapsed_time?: string };
}

/** The parts of a collector configuration (as YAML parses it) the check reads. */
export interface CollectorConfig {
  exporters?: Record<string, Exporter>;
  service?: { extensions?: string[]; pipelines?: Record<string, Pipeline> };
}

/** Processors that hold data in memory after the pipeline acknowledged it. */
const ACKNOWLEDGING_FROM_MEMORY = ['batch'];

const typeOf = (id: string): string => id.split('/')[0] as string;

/** What `effective` lost of `base`, as sentences; empty when nothing. */
export function durabilityFindings(base: CollectorConfig, effective: CollectorConfig): string[] {
  const findings: string[] = [];
  const basePipelines = base.service?.pipelines ?? {};
  const pipelines = effective.service?.pipelines ?? {};
  const extensions = effective.service?.extensions ?? [];
  for (const [name, basePipeline] of Object.entries(basePipelines)) {
    const pipeline = pipelines[name];
    if (!pipeline) {
      findings.push(`pipeline ${name} is gone`);
      continue;
    }
    const processors = pipeline.processors ?? [];
    const wanted = basePipeline.processors ?? [];
    if (processors.slice(0, wanted.length).join(',') !== wanted.join(',')) findings.push(`pipeline ${name}: processors [${processors.join(', ')}] do not start with the base's [${wanted.join(', ')}]`);
    for (const p of processors.filter((id) => ACKNOWLEDGING_FROM_MEMORY.includes(typeOf(id)))) findings.push(`pipeline ${name}: processor ${p} acknowledges what it holds in memory`);
    // merge-append joins lists before ${env:…} is resolved, so a file naming the sink the base names through COLLECTOR_SINK adds it twice
    const exporters = pipeline.exporters ?? [];
    for (const e of new Set(exporters.filter((id, i) => exporters.indexOf(id) !== i))) findings.push(`pipeline ${name}: exporter ${e} listed twice (every batch would be exported twice)`);
  }
  const clickhouse = new Set(Object.values(pipelines).flatMap((p) => (p.exporters ?? []).filter((e) => typeOf(e) === 'clickhouse')));
  for (const id of clickhouse) {
    const exporter = effective.exporters?.[id] ?? {};
    const queue = exporter.sending_queue;
    // print-config shows an enabled queue as present (its `enabled` key is not printed)
    if (!queue || queue.enabled === false) findings.push(`exporter ${id}: no sending_queue`);
    else if (!queue.storage) findings.push(`exporter ${id}: sending_queue has no storage (the queue would be in memory)`);
    else if (!extensions.includes(queue.storage)) findings.push(`exporter ${id}: its queue's storage ${queue.storage} is not among service.extensions`);
    const maxElapsed = String(exporter.retry_on_failure?.max_elapsed_time ?? '');
    if (exporter.retry_on_failure?.enabled === false || !/^0[a-z]*$/.test(maxElapsed)) findings.push(`exporter ${id}: retries give up (retry_on_failure max_elapsed_time ${maxElapsed || 'default 300s'})`);
  }
  return findings;
}
