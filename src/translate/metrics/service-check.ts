/**
 * Service checks → a Gauge named after the check whose integer value is the status (0 OK,
 * 1 WARNING, 2 CRITICAL, 3 UNKNOWN), as upstream does. The check's `message` is what says why it
 * failed, so it is kept as the data-point attribute `message` (upstream drops it). A check without
 * a timestamp happened when it arrived, not at the epoch.
 */
import { hostResources, type ServiceCheck } from '../../datadog/metrics';
import { toKeyValues } from '../resource-promotion';
import type { MetricContext, MetricItem } from './context';
import { metricOrigin } from './resource';
import { secondsToNanos } from './time';

export function serviceCheckMetric(check: ServiceCheck, ctx: MetricContext): MetricItem {
  const promoted = metricOrigin(check.tags, hostResources(check.hostName));
  if (check.message !== '') promoted.attributes.set('message', { string: check.message });
  const timeUnixNano = check.timestamp ? secondsToNanos(check.timestamp) : ctx.receivedAtNs;
  const dataPoints = [{ attributes: toKeyValues(promoted.attributes), startTimeUnixNano: 0n, timeUnixNano, value: { int: BigInt(check.status) } }];
  return { resource: toKeyValues(promoted.resource), metric: { name: check.check, gauge: { dataPoints } } };
}
