/** The two switches of the Kubernetes mapping (mapping.ts; --k8s-otel-metrics, --k8s-datadog-metrics). */
export interface KubernetesMetricOptions {
  /** emit the OpenTelemetry-named metrics (outputs.ts) */
  otelNames: boolean;
  /** keep the Kubernetes checks' Datadog-named series they are made from */
  datadogNames: boolean;
}

export const DEFAULT_KUBERNETES_METRIC_OPTIONS: KubernetesMetricOptions = { otelNames: true, datadogNames: true };
