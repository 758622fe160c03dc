/**
 * Service checks → a Gauge named after the check whose integer value is the status (0 OK,
 * 1 WARNING, 2 CRITICAL, 3 UNKNOWN), as upstream does. The check's `message` is what says why it
 * failed, so it is kept as the data-point attribute `message` (upstream drops it). A check without
 * a timestamp happened when it arrived, not at the epoch.
 */
import { hostResources, type ServiceCheck } from './datadog';
import type { MetricContext, MetricItem } from './context';
import { originOf, promoteOrigin } from './resource';
import { secondsToNanos } from './time';

export function serviceCheckMetric(check: ServiceCheck, ctx: MetricContext): MetricItem {
  const promoted = promoteOrigin(check.tags, hostResources(check.hostName));
  if (check.message !== '') promoted.attributes.set('message', { string: check.message });
  const { resource, resourceKey, attributes } = originOf(promoted);
  // no timestamp, or one that cannot be a time: when it was received
  const timeUnixNano = (check.timestamp ? secondsToNanos(check.timestamp) : undefined) ?? ctx.receivedAtNs;
  const dataPoints = [{ attributes, startTimeUnixNano: 0n, timeUnixNano, value: { int: BigInt(check.status) } }];
  return { resource, resourceKey, metric: { name: check.check, gauge: { dataPoints } } };
}
