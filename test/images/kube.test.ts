/**
 * deploy/kubernetes/dd-otlp-bridge.yaml run by `podman kube play` on the built images (issue 35,
 * item 3), as shipped but for two things kube play forces:
 * - replicas: 1. podman 4.3 publishes every containerPort on the host, so a second pod on the same
 *   host finds its ports taken (a cluster gives each pod its own address);
 * - the Secret is made with `podman secret create` in the form kube play's secretKeyRef reads (a
 *   JSON object of base64 values): podman 4.3 stores a played `kind: Secret` as YAML text and then
 *   cannot read it back.
 * ClickHouse is the stand-in image on the pod's network, under the name the manifest's DB_ENDPOINT
 * uses (clickhouse.clickhouse.svc). The captured Datadog exporter's data must land. What kube play
 * does not run (the Service, readiness probes, preStop hooks, resource requests, emptyDir's
 * sizeLimit) is checked by kubernetes-validate in test/e2e/deploy-kit.test.ts and listed in
 * docs/operations.md.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from '../../tools/src/collector/build';
import { clickHouseQuery } from '../helpers/clickhouse';
import { CLICKHOUSE_IMAGE, COLLECTOR_IMAGE, SIDECAR_IMAGE } from './build';
import { createNetwork, eventually, runContainer, type Container } from './containers';
import { EXPECTED, landedInClickHouse, sendCaptured } from './landed';
import { podman, podmanOk } from './podman';

const MANIFEST = join(REPO_ROOT, 'deploy', 'kubernetes', 'dd-otlp-bridge.yaml');
const TOKEN = 'kube-test-token';
const DB_PASSWORD = 'kube-test-password';
/** The ports the pod's containers declare, which podman 4.3 publishes on the host as they are. */
const HOST_PORTS = [8126, 9126, 4317, 4318, 13133, 8888];

jest.setTimeout(300_000);

const portFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
  });

type Tree = Record<string, unknown> & { kind?: string; spec?: { replicas?: number } };

/** The manifest with replicas 1 (see above), written to a temporary file. */
function playableManifest(): string {
  const docs = parseAllDocuments(readFileSync(MANIFEST, 'utf8'));
  for (const doc of docs) if ((doc.toJS() as Tree).kind === 'Deployment') doc.setIn(['spec', 'replicas'], 1);
  const file = join(mkdtempSync(join(tmpdir(), 'ddb-kube-')), 'dd-otlp-bridge.yaml');
  writeFileSync(file, docs.map((d) => d.toString()).join('---\n'));
  return file;
}

/** The images under the names the manifest gives them (a short name finds a localhost/ image). */
function manifestImages(): Record<string, string> {
  const text = readFileSync(MANIFEST, 'utf8');
  const image = (name: string) => new RegExp(`image: (${name}:\\S+)`).exec(text)?.[1] as string;
  return { [SIDECAR_IMAGE]: `localhost/${image('dd-otlp-bridge')}`, [COLLECTOR_IMAGE]: `localhost/${image('dd-otlp-bridge-collector')}` };
}

describe('deploy/kubernetes/ on podman kube play', () => {
  const cleanup: (() => Promise<void>)[] = [];
  let clickhouse: Container;
  let manifest: string;
  let httpUrl: string;
  const query = <T = Record<string, unknown>>(sql: string): Promise<T[]> => clickHouseQuery<T>(httpUrl, { user: 'otel', password: DB_PASSWORD }, sql);

  beforeAll(async () => {
    const taken = [];
    for (const port of HOST_PORTS) if (!(await portFree(port))) taken.push(port);
    if (taken.length > 0) throw new Error(`kube play publishes the pod's ports on the host, and ${taken.join(', ')} are in use here (a stack running?)`);
    const network = await createNetwork();
    cleanup.push(network.remove);
    clickhouse = await runContainer({ image: CLICKHOUSE_IMAGE, network: network.name, alias: 'clickhouse', aliases: ['clickhouse.clickhouse.svc'], env: { CLICKHOUSE_USER: 'otel', CLICKHOUSE_PASSWORD: DB_PASSWORD }, publish: [8123] });
    cleanup.unshift(clickhouse.remove);
    httpUrl = `http://127.0.0.1:${clickhouse.port(8123)}`;
    expect(await eventually(async () => (await query('SELECT 1')).length === 1, 60_000)).toBe(true);
    for (const [built, named] of Object.entries(manifestImages())) await podmanOk(['tag', built, named]);
    const secret = JSON.stringify({ 'otlp-auth-token': Buffer.from(TOKEN).toString('base64'), 'db-password': Buffer.from(DB_PASSWORD).toString('base64') });
    await podman(['secret', 'rm', 'dd-otlp-bridge']);
    const secretFile = join(mkdtempSync(join(tmpdir(), 'ddb-kube-secret-')), 'secret.json');
    writeFileSync(secretFile, secret, { mode: 0o600 });
    await podmanOk(['secret', 'create', 'dd-otlp-bridge', secretFile]);
    rmSync(secretFile);
    cleanup.unshift(async () => void (await podman(['secret', 'rm', 'dd-otlp-bridge'])));
    manifest = playableManifest();
    cleanup.unshift(async () => {
      // the volumes kube play made (the ConfigMap's, the emptyDir's) outlive `kube down`
      const volumes = (await podman(['inspect', '--format', '{{range .Mounts}}{{.Name}} {{end}}', 'dd-otlp-bridge-pod-0-bridge', 'dd-otlp-bridge-pod-0-collector'])).stdout.split(/\s+/).filter(Boolean);
      await podman(['kube', 'down', manifest]);
      if (volumes.length > 0) await podman(['volume', 'rm', '-f', ...new Set(volumes)]);
    });
    const played = await podman(['kube', 'play', '--network', network.name, manifest]);
    // podman logs that it cannot reach systemd for the probes' timers; the pod starts all the same
    process.stderr.write(
      `[images] kube play exited ${played.code}: ${played.stderr
        .split('\n')
        .filter((l) => l && !/systemd/.test(l))
        .join(' | ')}\n`,
    );
  });

  afterAll(async () => {
    for (const step of cleanup) await step().catch(() => undefined);
  });

  it('runs the pod: both containers up, non-root, /health and the health_check answer', async () => {
    expect(await eventually(async () => (await fetch('http://127.0.0.1:9126/health')).status === 200, 90_000)).toBe(true);
    expect(await eventually(async () => (await fetch('http://127.0.0.1:13133/')).status === 200, 60_000)).toBe(true);
    const ps = await podmanOk(['ps', '--filter', 'pod=dd-otlp-bridge-pod-0', '--format', '{{.Names}} {{.Status}}']);
    expect(ps).toMatch(/dd-otlp-bridge-pod-0-bridge Up/);
    expect(ps).toMatch(/dd-otlp-bridge-pod-0-collector Up/);
    expect((await podmanOk(['exec', 'dd-otlp-bridge-pod-0-collector', 'id', '-u'])).trim()).toBe('10001');
    expect((await podmanOk(['exec', 'dd-otlp-bridge-pod-0-bridge', 'node', '-e', 'console.log(process.getuid())'])).trim()).toBe('1000');
  });

  it('OTLP stays inside the pod: the collector binds it on loopback, so the published 4318 reaches nothing', async () => {
    const outcome = await fetch('http://127.0.0.1:4318/v1/logs', { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } }).then(
      (r) => `status ${r.status}`,
      () => 'refused',
    );
    expect(outcome).toBe('refused');
  });

  it("the captured Datadog exporter's log, trace and series land in ClickHouse", async () => {
    expect(await sendCaptured('http://127.0.0.1:8126', TOKEN)).toEqual([]);
    expect(await landedInClickHouse(query, 60_000)).toEqual(EXPECTED);
  });

  it("the collector's queue is on the pod's emptyDir volume, its root filesystem read-only", async () => {
    const mounts = await podmanOk(['exec', 'dd-otlp-bridge-pod-0-collector', 'cat', '/proc/self/mountinfo']);
    expect(mounts).toMatch(/ \/var\/lib\/otelcol\/queue /);
    // mountinfo: id, parent, device, root, mount point, options: the container's / is mounted ro
    expect(mounts).toMatch(/^(\S+ ){4}\/ ro[ ,]/m);
    expect(await podmanOk(['exec', 'dd-otlp-bridge-pod-0-collector', 'ls', '/var/lib/otelcol/queue'])).toMatch(/exporter_clickhouse/);
  });
});
