/**
 * The benchmark's floor sidecar (bench/floor-sidecar.ts) stands for "ours with free route
 * work" only if it exports exactly what the real route exports for the same body, and answers as
 * the real route does; a body it was not prepared for is refused, never answered as another one.
 */
import { MalformedInputError } from '../src/core/errors';
import { KeepingExporter, replayRoute } from './floor-sidecar';
import { intakeRequest, routeContext, scenarioRoute, serveOnce } from './pipeline';
import { buildScenario, type ScenarioName } from './scenarios';

// log records carry their observed time (the receipt), which the replay keeps from its start
const receiptFree = (name: ScenarioName): boolean => name !== 'logs';

describe.each<ScenarioName>(['traces', 'logs', 'series'])('floor sidecar, %s', (name) => {
  it('exports, for each body, the bytes the real route exports, and replies as it does', async () => {
    const scenario = await buildScenario(name, 20, 8);
    const replay = await replayRoute(name, 20, 'zstd');
    for (let i = 0; i < scenario.payloads.length; i++) {
      const [real, replayed] = [new KeepingExporter(), new KeepingExporter()];
      const realReply = await serveOnce(scenarioRoute(scenario), scenario, i, routeContext(), real);
      const replayReply = await serveOnce(replay, scenario, i, routeContext(), replayed);
      expect(replayReply).toEqual(realReply);
      const shape = (e: KeepingExporter) => e.kept.map((r) => ({ signal: r.signal, records: r.records, bytes: r.body.length }));
      expect(shape(replayed)).toEqual(shape(real));
      if (receiptFree(name)) expect(replayed.kept.map((r) => r.body.toString('hex'))).toEqual(real.kept.map((r) => r.body.toString('hex')));
      expect(real.kept.length).toBeGreaterThan(0);
    }
  });

  it('refuses a body that is not one of the scenario’s', async () => {
    const scenario = await buildScenario(name, 20, 8);
    const replay = await replayRoute(name, 20, 'zstd');
    const ctx = routeContext();
    const req = await intakeRequest(scenario, 0);
    req.body = Buffer.concat([req.body, Buffer.from([0])]);
    expect(() => replay.accept(req, ctx)).toThrow(MalformedInputError);
  });
});
