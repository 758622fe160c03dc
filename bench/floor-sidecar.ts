/**
 * The floor of this design: the real sidecar — its HTTP intake (auth, body reading, decoding),
 * coalescer and gRPC client to our collector — with the scenario's route replaced by one that does
 * no route work. At start it runs each of the scenario's bodies through the real route once and
 * keeps the OTLP requests it exported; then each request is answered by exporting the requests
 * kept for its body (found by comparing bytes) and the real route's reply. What this process and
 * our collector cost together is what ours would cost if parsing, translating and encoding were
 * free, so `ab.ts --a upstream --b floor` shows how far any route code could take this design.
 *
 * Started by ab.ts (`--b floor`) in place of a sidecar build, with the same environment plus
 * FLOOR_ROUTE, FLOOR_SCENARIO, FLOOR_BATCH and FLOOR_CODING, so that its bodies are the load generator's.
 */
import { onShutdown } from '../src/cli/shutdown';
import { loadConfig, parseArgs } from '../src/config';
import type { Exporter } from '../src/core/export/exporter';
import { exportThen, type IntakeReply, type IntakeRoute } from '../src/signals/route';
import { createLogger } from '../src/core/observability/log';
import type { EncodedExport } from '../src/core/otlp/encode';
import { MalformedInputError } from '../src/core/errors';
import { deliver } from '../src/http/intake-app';
import { startSidecar } from '../src/cli/sidecar';
import { intakeRequest, routeContext, scenarioRoute } from './pipeline';
import { buildScenario, type AgentCoding, type ScenarioName } from './scenarios';

/** Keeps copies of what a route exports: the real exporter frees bodies it was handed. */
export class KeepingExporter implements Exporter {
  kept: EncodedExport[] = [];

  async export(requests: EncodedExport[]) {
    for (const r of requests) this.kept.push({ ...r, body: Buffer.from(r.body) });
    return { accepted: requests.reduce((n, r) => n + r.records, 0), rejected: 0 };
  }

  async close() {}
}

interface Replay {
  /** the body as the route receives it (decoded) */
  body: Buffer;
  exports: EncodedExport[];
  reply: IntakeReply;
}

/** The scenario's route, replaying what the real one exported for each of the scenario's bodies. */
export async function replayRoute(name: ScenarioName, batch: number, coding: AgentCoding): Promise<IntakeRoute> {
  const scenario = await buildScenario(name, batch, 8, undefined, coding);
  const real = scenarioRoute(scenario);
  const replays: Replay[] = [];
  for (let i = 0; i < scenario.payloads.length; i++) {
    const exporter = new KeepingExporter();
    const ctx = routeContext();
    const req = await intakeRequest(scenario, i);
    const body = Buffer.from(req.body);
    const reply = await deliver(real.accept(req, ctx), exporter);
    replays.push({ body, exports: exporter.kept, reply });
  }
  return {
    ...real,
    accept(req, ctx) {
      const replay = replays.find((r) => r.body.length === req.body.length && r.body.equals(req.body));
      if (!replay) throw new MalformedInputError('floor sidecar: not one of the scenario’s bodies');
      // the coalescer re-points a merged request's body into the merged body, which it frees
      return exportThen(
        ctx,
        replay.exports.map((e) => ({ ...e })),
        () => replay.reply,
      );
    },
  };
}

async function main(): Promise<void> {
  const env = process.env;
  const route = await replayRoute((env.FLOOR_SCENARIO ?? 'traces') as ScenarioName, Number(env.FLOOR_BATCH ?? 1000), (env.FLOOR_CODING ?? 'zstd') as AgentCoding);
  const config = loadConfig(parseArgs([]), env);
  const log = createLogger(config.logLevel, { component: 'floor-sidecar' });
  const sidecar = await startSidecar(config, log, { routes: [route] });
  // a clean exit on SIGTERM, as the real sidecar's: --cpu-prof writes its profile then
  onShutdown(log, () => sidecar.stop());
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
