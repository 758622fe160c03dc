/**
 * docker-compose.yaml run by podman-compose (PyPI) on the built images (issue 35, item 4): the
 * images the compose file names through variables are this repository's builds and the ClickHouse
 * stand-in (test/images/clickhouse/); the users' defaults stay the official images. Every published
 * port is moved to a free one through its variable. test/images/compose.podman.yaml lowers
 * ClickHouse's open-file limit to what a container may have here. The captured Datadog exporter's
 * data must land. podman-compose ignores `depends_on: condition: service_healthy` on podman < 4.6
 * (it says so), so the collector may start before ClickHouse answers: it exits, and its restart
 * policy brings it back; listed in docs/operations.md.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../tools/src/collector/build';
import { clickHouseQuery } from '../helpers/clickhouse';
import { freePort } from '../helpers/ports';
import { CLICKHOUSE_IMAGE, COLLECTOR_IMAGE, SIDECAR_IMAGE } from './build';
import { eventually, uniqueName } from './containers';
import { EXPECTED, landedInClickHouse, sendCaptured } from './landed';
import { IMAGES_HOME, podman, podmanEnv, podmanOk } from './podman';

const PODMAN_COMPOSE = 'podman-compose==1.6.0';
const TOKEN = 'compose-test-token';
const DB_PASSWORD = 'compose-test-password';

jest.setTimeout(300_000);

/** podman-compose installed once into the image tests' cache (with its two dependencies). */
function podmanCompose(): { python: string; path: string } {
  const target = join(IMAGES_HOME, 'tools', PODMAN_COMPOSE.replace('==', '-'));
  if (!existsSync(join(target, 'podman_compose.py'))) execFileSync('python3', ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', target, PODMAN_COMPOSE], { stdio: 'inherit' });
  return { python: 'python3', path: target };
}

describe('docker-compose.yaml on podman-compose', () => {
  const project = uniqueName('ddb-compose');
  let env: NodeJS.ProcessEnv;
  let compose: (args: string[]) => { status: number | null; output: string };
  let ports: Record<string, number>;
  const query = <T = Record<string, unknown>>(sql: string): Promise<T[]> => clickHouseQuery<T>(`http://127.0.0.1:${ports.CLICKHOUSE_HOST_PORT}`, { user: 'otel', password: DB_PASSWORD }, sql);

  beforeAll(async () => {
    const tool = podmanCompose();
    ports = Object.fromEntries(await Promise.all(['BRIDGE_HOST_PORT', 'BRIDGE_ADMIN_HOST_PORT', 'OTLP_GRPC_HOST_PORT', 'OTLP_HTTP_HOST_PORT', 'CLICKHOUSE_HOST_PORT'].map(async (name) => [name, await freePort()] as const)));
    env = {
      ...podmanEnv(),
      PYTHONPATH: tool.path,
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      CLICKHOUSE_IMAGE,
      COLLECTOR_IMAGE,
      BRIDGE_IMAGE: SIDECAR_IMAGE,
      OTLP_AUTH_TOKEN: TOKEN,
      DB_PASSWORD,
    };
    compose = (args) => {
      const r = spawnSync(tool.python, ['-m', 'podman_compose', '-p', project, '-f', join(REPO_ROOT, 'docker-compose.yaml'), '-f', join(__dirname, 'compose.podman.yaml'), ...args], { env, encoding: 'utf8', cwd: REPO_ROOT, timeout: 240_000 });
      return { status: r.status, output: r.stdout + r.stderr };
    };
    const up = compose(['up', '-d']);
    process.stderr.write(`[images] podman-compose up exited ${up.status}\n`);
    expect(up.status === 0 ? '' : up.output.split('\n').slice(-30).join('\n')).toBe('');
  });

  afterAll(() => {
    compose?.(['down', '-v', '-t', '30']);
  });

  it('brings up ClickHouse, the collector and the bridge; /health answers', async () => {
    expect(await eventually(async () => (await query('SELECT 1')).length === 1, 90_000)).toBe(true);
    expect(await eventually(async () => (await fetch(`http://127.0.0.1:${ports.BRIDGE_ADMIN_HOST_PORT}/health`)).status === 200, 90_000)).toBe(true);
  });

  it("the captured Datadog exporter's log, trace and series land in ClickHouse", async () => {
    // the collector may still be coming back after starting before ClickHouse (see above)
    const collector = (await podmanOk(['ps', '--filter', `label=io.podman.compose.project=${project}`, '--filter', 'label=io.podman.compose.service=collector', '--format', '{{.Names}}'])).trim();
    expect(await eventually(async () => (await podman(['healthcheck', 'run', collector])).code === 0, 90_000)).toBe(true);
    expect(await sendCaptured(`http://127.0.0.1:${ports.BRIDGE_HOST_PORT}`, TOKEN)).toEqual([]);
    expect(await landedInClickHouse(query, 60_000)).toEqual(EXPECTED);
  });
});
