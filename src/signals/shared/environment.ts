/**
 * One environment key per resource: `deployment.environment.name`, the semantic conventions' name
 * since 1.27 and the one the bridge writes from every Datadog `env`. Older SDKs, and the datadog
 * exporter's serializer that flattens their resource into each span and log, still say
 * `deployment.environment`; beside the `env` tag the trace-agent derived from it, the resource
 * carried the environment twice. HyperDX reads either as a resource attribute, so the older key
 * folds into the current one (docs/translation.md, Resource).
 */
import type { AnyValue } from '../../core/otlp/model';
import type { AttributeMap } from './resource-promotion';

export const ENVIRONMENT = 'deployment.environment.name';
const OLDER_ENVIRONMENT = 'deployment.environment';

const sameText = (a: AnyValue, b: AnyValue): boolean => 'string' in a && 'string' in b && a.string === b.string;

/**
 * The resource key `key` (with `value`) is kept under, given what `resource` holds: the older
 * environment key becomes the current one when that is absent, disappears when that already says
 * the same, and stays as it is only when the two disagree (nothing is lost); undefined: nothing to
 * keep.
 */
export function resourceKeyOf(key: string, value: AnyValue, resource: ReadonlyMap<string, AnyValue> | AttributeMap): string | undefined {
  if (key !== OLDER_ENVIRONMENT) return key;
  const current = resource.get(ENVIRONMENT);
  if (current === undefined) return ENVIRONMENT;
  return sameText(current, value) ? undefined : key;
}
