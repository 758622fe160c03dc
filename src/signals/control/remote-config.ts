/**
 * POST /v0.7/config: tracers poll it every 5 s. 404 is the agreed "remote config is disabled"
 * answer, after which dd-trace stops polling; remote config needs Datadog's signed backend.
 */
import { json, type IntakeRoute } from '../route';

export const remoteConfigRoute: IntakeRoute = {
  name: 'remote_config',
  methods: ['POST', 'GET'],
  paths: ['/v0.7/config'],
  sender: 'tracer',
  readsBody: false,
  accept: () => json(404, { error: 'remote configuration is disabled' }),
};
