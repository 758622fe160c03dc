/** Events end to end through the real collector: the agent's /intake/ batch and the API client's createEvent. */
import { client, v1 } from '@datadog/datadog-api-client';
import { compress as zstdCompress } from '@mongodb-js/zstd';
import { randomUUID } from 'node:crypto';
import { logRecords, waitFor } from '../helpers/sink';
import { startStack, type TestStack } from '../helpers/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack?.stop());

const byRun = (run: string) => logRecords(stack.sinkDir).filter((r) => r.attributes.run === run);

it('agent /intake/ events (zstd, as the forwarder sends them) become log records', async () => {
  const run = randomUUID();
  const body = { apiKey: '', internalHostname: 'agent-host', events: { docker: [{ msg_title: 'Container died', msg_text: 'exit 137', timestamp: 1700000000, alert_type: 'error', host: 'agent-host', tags: [`run:${run}`, 'kube_namespace:shop'] }] } };
  const res = await fetch(`${stack.intakeUrl}/intake/`, { method: 'POST', body: await zstdCompress(Buffer.from(JSON.stringify(body)), 1), headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'zstd', 'DD-Api-Key': 'k' } });
  expect(res.status).toBe(202);
  const [record] = await waitFor(
    () => byRun(run),
    (r) => r.length === 1,
  );
  expect(record!.body).toBe('Container died\nexit 137');
  expect(record!.record.severityText).toBe('error');
  expect(record!.record.timeUnixNano).toBe('1700000000000000000');
  expect(record!.resource).toMatchObject({ 'host.name': 'agent-host', 'k8s.namespace.name': 'shop' });
  expect(record!.attributes['datadog.event.source_type_name']).toBe('docker');
});

it('@datadog/datadog-api-client createEvent becomes a log record and gets the API reply', async () => {
  const run = randomUUID();
  const api = new v1.EventsApi(client.createConfiguration({ baseServer: new client.ServerConfiguration(stack.intakeUrl, {}), authMethods: { apiKeyAuth: 'k' } }));
  const reply = await api.createEvent({ body: { title: 'Deployed shop 1.4', text: 'by CI', alertType: 'success', tags: [`run:${run}`, 'service:shop'], host: 'ci-runner' } });
  expect(reply.status).toBe('ok');
  expect(reply.event?.title).toBe('Deployed shop 1.4');
  const [record] = await waitFor(
    () => byRun(run),
    (r) => r.length === 1,
  );
  expect(record!.body).toBe('Deployed shop 1.4\nby CI');
  expect(record!.resource).toMatchObject({ 'service.name': 'shop', 'host.name': 'ci-runner' });
});

it('host metadata on /intake/ is acknowledged and exports nothing', async () => {
  const before = logRecords(stack.sinkDir).length;
  const res = await fetch(`${stack.intakeUrl}/intake/`, { method: 'POST', body: JSON.stringify({ internalHostname: 'h', uuid: 'u', os: 'linux', gohai: '{}' }), headers: { 'Content-Type': 'application/json' } });
  expect(res.status).toBe(202);
  await new Promise((r) => setTimeout(r, 400));
  expect(logRecords(stack.sinkDir).length).toBe(before);
});
