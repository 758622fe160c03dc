/**
 * Service checks → a Gauge named after the check whose integer value is the status (0 OK,
 * 1 WARNING, 2 CRITICAL, 3 UNKNOWN), as upstream does. The check's `message` is what says why it
 * failed, so it is kept as the data-point attribute `message` (upstream drops it). A check without
 * a timestamp happened when it arrived, not at the epoch.
 */
import { hostResources, type ServiceCheck } from './datadog';
import type { Metric } from '../../core/otlp/model';
import type { MetricContext } from './context';
import { originOf, promoteOrigin, type MetricOrigin } from './resource';
import { secondsToNanos } from './time';

/** The check's host and tags, and its message as a point attribute. */
export function serviceCheckOrigin(check: ServiceCheck): MetricOrigin {
  const promoted = promoteOrigin(check.tags, hostResources(check.hostName));
  if (check.message !== '') promoted.attributes.set('message', { string: check.message });
  return originOf(promoted);
}

export function serviceCheckPoints(check: ServiceCheck, origin: MetricOrigin, ctx: MetricContext): Metric {
  // no timestamp, or one that cannot be a time: when it was received
  const timeUnixNano = (check.timestamp ? secondsToNanos(check.timestamp) : undefined) ?? ctx.receivedAtNs;
  const dataPoints = [{ attributes: origin.attributes, startTimeUnixNano: 0n, timeUnixNano, value: { int: BigInt(check.status) } }];
  return { name: check.check, gauge: { dataPoints } };
}
