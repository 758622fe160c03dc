/**
 * A minimal Prometheus registry (counters and gauges with labels, text exposition 0.0.4).
 * Hand-written instead of prom-client: we need a handful of series and count per request or per
 * export batch, never per record, so a Map lookup is all the hot path pays.
 */

type Labels = Record<string, string>;

abstract class Family {
  protected readonly series = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'gauge',
  ) {}

  protected cell(labels: Labels): { labels: Labels; value: number } {
    const key = labelKey(labels);
    let cell = this.series.get(key);
    if (!cell) {
      cell = { labels, value: 0 };
      this.series.set(key, cell);
    }
    return cell;
  }

  get(labels: Labels = {}): number {
    return this.series.get(labelKey(labels))?.value ?? 0;
  }

  render(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} ${this.type}`];
    for (const { labels, value } of this.series.values()) lines.push(`${this.name}${renderLabels(labels)} ${value}`);
    return lines.join('\n');
  }
}

export class Counter extends Family {
  constructor(name: string, help: string) {
    super(name, help, 'counter');
  }
  inc(labels: Labels = {}, by = 1): void {
    this.cell(labels).value += by;
  }
}

export class Gauge extends Family {
  constructor(name: string, help: string) {
    super(name, help, 'gauge');
  }
  set(labels: Labels, value: number): void {
    this.cell(labels).value = value;
  }
  add(labels: Labels, by: number): void {
    this.cell(labels).value += by;
  }
}

const labelKey = (labels: Labels): string =>
  Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join(',');

const escapeLabel = (v: string): string => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

const renderLabels = (labels: Labels): string => {
  const keys = Object.keys(labels);
  return keys.length === 0 ? '' : `{${keys.map((k) => `${k}="${escapeLabel(labels[k] as string)}"`).join(',')}}`;
};

/** Every self-metric the sidecar exposes, in one place so docs/operations.md can list them. */
export class BridgeMetrics {
  readonly requests = new Counter('ddbridge_http_requests_total', 'Intake requests by route and reply status.');
  readonly bytesIn = new Counter('ddbridge_http_request_bytes_total', 'Request body bytes as received (compressed), by route.');
  readonly bytesDecoded = new Counter('ddbridge_http_decoded_bytes_total', 'Request body bytes after decompression, by route.');
  readonly unknownRoutes = new Counter('ddbridge_unknown_route_requests_total', 'Requests to paths this sidecar does not implement, by method.');
  readonly recordsOut = new Counter('ddbridge_records_exported_total', 'Log records, spans and metric data points the collector accepted, by signal.');
  readonly recordsRejected = new Counter('ddbridge_records_rejected_total', 'Records the collector rejected permanently (partial success), by signal.');
  readonly exportFailures = new Counter('ddbridge_export_failures_total', 'Failed export calls to the collector, by signal and gRPC code.');
  readonly coalescedBatches = new Counter('ddbridge_coalesced_batches_total', 'Intake batches that went out to the collector in one export with others that arrived together, by signal.');
  readonly exportsInFlight = new Gauge('ddbridge_export_queue_depth', 'Export calls waiting for the collector, by signal.');
  readonly authFailures = new Counter('ddbridge_auth_failures_total', 'Requests refused for a missing or wrong API key, by route.');
  readonly spoolBytes = new Gauge('ddbridge_spool_bytes', 'Bytes spooled on disk and not yet accepted by the collector.');
  readonly spoolDiskBytes = new Gauge('ddbridge_spool_disk_bytes', 'Bytes the spool holds on disk, which --spool-max-bytes bounds: segments (delivered or not) and dead letters.');
  readonly spoolRetries = new Counter('ddbridge_spool_delivery_retries_total', 'Failed attempts to deliver a spooled record, retried after a backoff, by signal and reason (gRPC code).');
  readonly spoolDeadLetters = new Counter('ddbridge_spool_dead_letter_records_total', 'Spooled records the collector refused as invalid, moved to the dead-letter folder, by signal.');
  readonly spoolDamagedBytes = new Counter('ddbridge_spool_damaged_bytes_total', 'Spool bytes skipped because they held no whole record with a good checksum.');
  readonly spoolWriteErrors = new Counter('ddbridge_spool_write_errors_total', 'Failed spool disk operations, by operation (append, fsync, cursor, delete, dead-letter, replay).');
  readonly pointsDropped = new Counter('ddbridge_metric_points_dropped_total', 'Metric points that could not be translated (null values, unknown types, infinite sketch keys), by route and reason.');
  readonly internalErrors = new Counter('ddbridge_internal_errors_total', 'Payloads refused because translating them hit a bug (answered 400 so the sender does not resend forever), by route.');
  readonly logPipelineRecords = new Counter('ddbridge_log_pipeline_records_total', 'Log records Datadog log pipelines matched, by outcome: applied, or over_budget (past --log-pipeline-budget-ms, sent on unparsed).');
  readonly overloaded = new Counter('ddbridge_overload_rejections_total', 'Requests answered 503 because the in-flight budget was used up, by route.');

  readonly residentMemory = new Gauge('process_resident_memory_bytes', 'Resident set size of the sidecar process.');
  readonly heapMemory = new Gauge('nodejs_heap_size_bytes', 'V8 heap, by state: total (reserved) or used.');
  readonly externalMemory = new Gauge('nodejs_external_memory_bytes', 'Memory of Buffers and other objects outside the V8 heap.');

  /** Memory is read when scraped: sampling it on a timer would cost something even when nobody looks. */
  private sampleMemory(): void {
    const usage = process.memoryUsage();
    this.residentMemory.set({}, usage.rss);
    this.heapMemory.set({ state: 'total' }, usage.heapTotal);
    this.heapMemory.set({ state: 'used' }, usage.heapUsed);
    this.externalMemory.set({}, usage.external);
  }

  render(): string {
    this.sampleMemory();
    return `${this.families()
      .map((f) => f.render())
      .join('\n')}\n`;
  }

  private families(): Family[] {
    return [
      this.requests,
      this.bytesIn,
      this.bytesDecoded,
      this.unknownRoutes,
      this.recordsOut,
      this.recordsRejected,
      this.exportFailures,
      this.coalescedBatches,
      this.exportsInFlight,
      this.authFailures,
      this.spoolBytes,
      this.spoolDiskBytes,
      this.spoolRetries,
      this.spoolDeadLetters,
      this.spoolDamagedBytes,
      this.spoolWriteErrors,
      this.overloaded,
      this.internalErrors,
      this.logPipelineRecords,
      this.pointsDropped,
      this.residentMemory,
      this.heapMemory,
      this.externalMemory,
    ];
  }
}
