/**
 * The deployment kit, checked by real tools where one runs without Docker or a cluster, and
 * cross-checked against the code it deploys everywhere else:
 * - docker-compose.yaml: the compose-spec JSON schema (check-jsonschema's vendored copy); build
 *   targets are Dockerfile stages; the collector command passes `otelcol validate`; ports, env
 *   and health checks agree with what the sidecar and the collector config read.
 * - deploy/kubernetes/dd-otlp-bridge.yaml: kubernetes-validate --strict (schemas shipped in the
 *   package); probes, ports and the Service agree; the sidecar's own config loader accepts the
 *   container env; the collector args (image files + ConfigMap) pass `otelcol validate`.
 * - Dockerfile: the collector stage's manifest parsing yields what tools/src/collector/build.ts reads.
 * Compose itself cannot run here (no Docker engine), nor can the manifests be applied.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments, parseDocument } from 'yaml';
import { REPO_ROOT } from '../../tools/src/collector/build';
import { MERGE_APPEND } from '../../tools/src/collector/run';
import { loadConfig, OPTIONS, parseArgs } from '../../src/config';

// parsed YAML of known shape; the assertions are the type checks
type Tree = Record<string, any>;

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const collector = (): string => process.env.DD_BRIDGE_TEST_COLLECTOR as string;

/** Python linters installed on demand into .cache/tools/<package>, run as `python -m <module>`. */
function pythonTool(pkg: string, version: string, module: string): (args: string[]) => { status: number | null; output: string } {
  const target = join(REPO_ROOT, '.cache', 'tools', pkg);
  const python = ['python3', 'python'].find((p) => spawnSync(p, ['--version']).status === 0);
  if (!python) throw new Error(`${pkg} needs python3`);
  if (!existsSync(join(target, `${pkg.replace(/-/g, '_')}-${version}.dist-info`))) {
    execFileSync(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--target', target, `${pkg}==${version}`], { stdio: 'inherit' });
  }
  return (args) => {
    const r = spawnSync(python, ['-m', module, ...args], { encoding: 'utf8', env: { ...process.env, PYTHONPATH: target } });
    return { status: r.status, output: r.stdout + r.stderr };
  };
}

/** Stage names of the Dockerfile, in order, and what each stage COPYs from the build context. */
function dockerStages(): { name: string; copies: { from: string; to: string }[] }[] {
  const stages: { name: string; copies: { from: string; to: string }[] }[] = [];
  for (const line of read('Dockerfile').split('\n')) {
    const from = /^FROM\s+\S+(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) stages.push({ name: from[1] ?? '', copies: [] });
    const copy = /^COPY\s+(?!--from)(?:--\S+\s+)*(\S+)\s+(\S+)$/i.exec(line);
    if (copy && stages.length) stages[stages.length - 1]!.copies.push({ from: copy[1]!, to: copy[2]! });
  }
  return stages;
}

/** Repository file behind a path inside the collector image, through the stage's COPY lines. */
function imageFileToRepo(path: string): string | undefined {
  const stage = dockerStages().find((s) => s.name === 'collector');
  for (const { from, to } of stage?.copies ?? []) {
    if (to.endsWith('/') && path.startsWith(to)) return join(REPO_ROOT, from, path.slice(to.length));
    if (path === to) return join(REPO_ROOT, from);
  }
  return undefined;
}

/** A stage's CMD (exec form) from the Dockerfile. */
function imageCommand(stage: string): string[] {
  const text = read('Dockerfile');
  const from = text.search(new RegExp(`^FROM \\S+ AS ${stage}$`, 'm'));
  const cmd = /^CMD (\[.*\])$/m.exec(text.slice(from));
  return cmd ? (JSON.parse(cmd[1]!) as string[]) : [];
}

const configPaths = (args: string[]): string[] => args.flatMap((a, i) => (args[i - 1] === '--config' ? [a] : []));

/** `otelcol validate` as the image's ENTRYPOINT runs the collector: with merge-append. */
const validate = (configs: string[], env: Record<string, string>) => spawnSync(collector(), [MERGE_APPEND, 'validate', ...configs.flatMap((c) => ['--config', c])], { encoding: 'utf8', env: { PATH: process.env.PATH, ...env } });

/** Every variable the sidecar reads (OPTIONS) plus the ingestion token. */
const SIDECAR_ENV = new Set([...OPTIONS.flatMap((o) => o.env), 'OTLP_AUTH_TOKEN']);

/** `${env:NAME…}` references of the shipped collector configuration. */
const COLLECTOR_ENV = new Set([read('collector/config.yaml'), ...['auth', 'datadog', 'file-sink', 'cluster'].map((o) => read(`collector/overlays/${o}.yaml`))].flatMap((t) => [...t.matchAll(/\$\{env:([A-Z0-9_]+)/g)].map((m) => m[1]!)));

const healthPort = (): number => Number(/COLLECTOR_HEALTH_ENDPOINT:-[^:}]*:(\d+)/.exec(read('collector/config.yaml'))![1]);

/** `${VAR:-default}` / `${VAR:?msg}` resolved the way compose would with an empty environment plus `given`. */
const interpolate = (value: string, given: Record<string, string>): string => value.replace(/\$\{([A-Z0-9_]+)(?::-([^}]*)|:\?[^}]*)?\}/g, (_m, name: string, def: string | undefined) => given[name] ?? def ?? '');

describe('docker-compose.yaml', () => {
  const compose = parseDocument(read('docker-compose.yaml'), { merge: true }).toJS() as Tree;
  const services = compose.services as Tree;
  const envOf = (service: string, given: Record<string, string> = {}) => Object.fromEntries(Object.entries(services[service].environment as Record<string, string>).map(([k, v]) => [k, interpolate(String(v), given)]));

  it('passes the compose-spec schema', () => {
    const check = pythonTool('check-jsonschema', '0.39.0', 'check_jsonschema');
    const result = check(['--builtin-schema', 'vendor.compose-spec', join(REPO_ROOT, 'docker-compose.yaml')]);
    expect(result.output).toMatch(/ok -- validation done/);
    expect(result.status).toBe(0);
  });

  it('the schema check can fail: a misspelt key is refused', () => {
    const check = pythonTool('check-jsonschema', '0.39.0', 'check_jsonschema');
    const bad = join(mkdtempSync(join(tmpdir(), 'ddb-compose-')), 'docker-compose.yaml');
    writeFileSync(bad, read('docker-compose.yaml').replace('    healthcheck:', '    healthchek:'));
    expect(check(['--builtin-schema', 'vendor.compose-spec', bad]).status).not.toBe(0);
  });

  it('runs the sidecar, the collector and ClickHouse by default, HyperDX with its MongoDB behind the ui profile', () => {
    expect(Object.keys(services).sort()).toEqual(['bridge', 'clickhouse', 'collector', 'hyperdx', 'mongo']);
    for (const name of ['bridge', 'clickhouse', 'collector']) expect(services[name].profiles).toBeUndefined();
    for (const name of ['hyperdx', 'mongo']) expect(services[name].profiles).toEqual(['ui']);
    expect(interpolate(services.clickhouse.image, {})).toMatch(/^clickhouse\/clickhouse-server:\d/);
  });

  it('builds both images from Dockerfile stages; the sidecar stays the default (last) stage', () => {
    const stages = dockerStages().map((s) => s.name);
    expect(services.collector.build).toEqual({ context: '.', target: 'collector' });
    expect(services.bridge.build).toEqual({ context: '.', target: 'sidecar' });
    expect(stages).toContain('collector');
    expect(stages[stages.length - 1]).toBe('sidecar');
  });

  it('publishes 8126 (18126 via BRIDGE_HOST_PORT), 9126, 4317, 4318, 8123 and 8080', () => {
    const published = (service: string) => (services[service].ports as string[]).map((p) => interpolate(p, {}));
    expect(published('bridge')).toEqual(['8126:8126', '9126:9126']);
    expect(interpolate(services.bridge.ports[0], { BRIDGE_HOST_PORT: '18126' })).toBe('18126:8126');
    expect(published('collector')).toEqual(['4317:4317', '4318:4318']);
    expect(published('clickhouse')).toEqual(['8123:8123']);
    expect(published('hyperdx')).toEqual(['8080:8080']);
  });

  it('gives each container only variables it reads, and the toggle, token and DB settings', () => {
    const bridge = envOf('bridge');
    const collectorEnv = envOf('collector');
    for (const name of Object.keys(bridge)) expect(SIDECAR_ENV).toContain(name);
    for (const name of Object.keys(collectorEnv)) expect(COLLECTOR_ENV).toContain(name);
    expect(Object.keys(bridge)).toEqual(expect.arrayContaining(['ENABLE_VENDOR_RECEIVER', 'OTLP_AUTH_TOKEN']));
    expect(Object.keys(collectorEnv)).toEqual(expect.arrayContaining(['DB_ENDPOINT', 'DB_USER', 'DB_PASSWORD', 'OTLP_AUTH_TOKEN']));
    expect(collectorEnv.DB_ENDPOINT).toBe('tcp://clickhouse:9000?dial_timeout=10s');
    expect(services.clickhouse.environment.CLICKHOUSE_PASSWORD).toBe(services.collector.environment.DB_PASSWORD);
    expect(services.clickhouse.environment.CLICKHOUSE_USER).toBe(services.collector.environment.DB_USER);
  });

  it('the sidecar config loader accepts the bridge env and sends to the collector service, uncompressed', () => {
    const config = loadConfig(parseArgs([]), envOf('bridge', { OTLP_AUTH_TOKEN: 'token' }));
    expect(config.enabled).toBe(true);
    expect(config.otlpEndpoint).toBe('http://collector:4317');
    expect(config.otlpCompression).toBe('none');
    expect(config.listen.port).toBe(8126);
    expect(config.adminListen.port).toBe(9126);
  });

  it('starts in order on health: ClickHouse, then the collector (health_check port), then the bridge', () => {
    expect(services.collector.depends_on).toEqual({ clickhouse: { condition: 'service_healthy' } });
    expect(services.bridge.depends_on).toEqual({ collector: { condition: 'service_healthy' } });
    expect(services.collector.healthcheck.test.join(' ')).toContain(`http://127.0.0.1:${healthPort()}/`);
    expect(services.clickhouse.healthcheck.test.join(' ')).toContain('http://127.0.0.1:8123/ping');
  });

  it("the collector runs the image's command, whose files the image has and which pass otelcol validate", () => {
    expect(services.collector.command).toBeUndefined();
    const configs = configPaths(imageCommand('collector')).map((p) => imageFileToRepo(p) ?? `missing in image: ${p}`);
    expect(configs.every((c) => existsSync(c))).toBe(true);
    const result = validate(configs, envOf('collector', { OTLP_AUTH_TOKEN: 'token', DB_PASSWORD: 'pw' }));
    expect(result.stderr).toBe(result.status === 0 ? result.stderr : '(validate passes)');
  });
});

describe('deploy/kubernetes/dd-otlp-bridge.yaml', () => {
  const FILE = 'deploy/kubernetes/dd-otlp-bridge.yaml';
  const docs = parseAllDocuments(read(FILE)).map((d) => d.toJS() as Tree);
  const byKind = (kind: string) => docs.find((d) => d.kind === kind) as Tree;
  const pod = byKind('Deployment').spec.template.spec as Tree;
  const container = (name: string) => (pod.containers as Tree[]).find((c) => c.name === name) as Tree;
  const portNamed = (c: Tree, name: string | number) => (typeof name === 'number' ? name : (c.ports as Tree[]).find((p) => p.name === name)?.containerPort);
  const plainEnv = (c: Tree, secrets: Record<string, string>) => Object.fromEntries((c.env as Tree[]).map((e) => [e.name, e.value ?? secrets[e.valueFrom.secretKeyRef.key] ?? '']));
  const secrets = { 'otlp-auth-token': 'token', 'db-password': 'pw' };

  it('passes kubernetes-validate --strict', () => {
    const check = pythonTool('kubernetes-validate', '1.37.0', 'kubernetes_validate');
    const result = check(['--strict', '-k', '1.30.0', join(REPO_ROOT, FILE)]);
    expect(result.output).not.toMatch(/ERROR|WARN/);
    expect(result.status).toBe(0);
    expect(result.output.match(/passed for resource/g)).toHaveLength(docs.length);
  });

  it('the strict check can fail: a misspelt field is refused', () => {
    const check = pythonTool('kubernetes-validate', '1.37.0', 'kubernetes_validate');
    const bad = join(mkdtempSync(join(tmpdir(), 'ddb-k8s-')), 'bad.yaml');
    writeFileSync(bad, read(FILE).replace('livenessProbe:', 'livenesProbe:'));
    expect(check(['--strict', '--quiet', '-k', '1.30.0', bad]).status).not.toBe(0);
  });

  it('runs the sidecar next to the collector in one pod, with resources on both', () => {
    expect(docs.map((d) => d.kind).sort()).toEqual(['ConfigMap', 'Deployment', 'Service']);
    expect((pod.containers as Tree[]).map((c) => c.name)).toEqual(['bridge', 'collector']);
    for (const c of pod.containers as Tree[]) {
      expect(c.resources.requests).toBeDefined();
      expect(c.resources.limits.memory).toBeDefined();
    }
  });

  it('the Service exposes 8126 on the bridge intake port', () => {
    const service = byKind('Service');
    expect(service.spec.selector).toEqual(byKind('Deployment').spec.template.metadata.labels);
    expect(service.spec.ports).toHaveLength(1);
    expect(service.spec.ports[0].port).toBe(8126);
    expect(portNamed(container('bridge'), service.spec.ports[0].targetPort)).toBe(8126);
  });

  it('the bridge env is what the sidecar reads; its loader accepts it; probes hit /health on the admin port', () => {
    const bridge = container('bridge');
    const env = plainEnv(bridge, secrets);
    for (const name of Object.keys(env)) expect(SIDECAR_ENV).toContain(name);
    expect(env.ENABLE_VENDOR_RECEIVER).toBe('true');
    const config = loadConfig(parseArgs([]), env);
    expect(config.listen.port).toBe(portNamed(bridge, 'intake'));
    expect(config.otlpEndpoint).toBe(`http://127.0.0.1:${portNamed(container('collector'), 'otlp-grpc')}`);
    expect(config.otlpCompression).toBe('none');
    for (const probe of [bridge.readinessProbe, bridge.livenessProbe]) {
      expect(probe.httpGet.path).toBe('/health');
      expect(portNamed(bridge, probe.httpGet.port)).toBe(config.adminListen.port);
    }
  });

  it('the collector env is what its config reads; probes hit the health_check port', () => {
    const c = container('collector');
    for (const name of Object.keys(plainEnv(c, secrets))) expect(COLLECTOR_ENV).toContain(name);
    expect(Object.keys(plainEnv(c, secrets))).toEqual(expect.arrayContaining(['DB_ENDPOINT', 'DB_USER', 'DB_PASSWORD', 'OTLP_AUTH_TOKEN']));
    for (const probe of [c.readinessProbe, c.livenessProbe]) expect(portNamed(c, probe.httpGet.port)).toBe(healthPort());
    expect(Number(plainEnv(c, secrets).COLLECTOR_MEMORY_LIMIT_MIB)).toBeLessThan(1024);
    expect(c.resources.limits.memory).toBe('1Gi');
  });

  it('both containers take the token from the same Secret key', () => {
    const ref = (c: Tree) => {
      const token = (c.env as Tree[]).find((e) => e.name === 'OTLP_AUTH_TOKEN');
      if (!token) throw new Error(`container ${c.name} has no OTLP_AUTH_TOKEN`);
      return token.valueFrom.secretKeyRef;
    };
    expect(ref(container('bridge'))).toEqual(ref(container('collector')));
  });

  it('the collector args (image files + the ConfigMap) pass otelcol validate', () => {
    const c = container('collector');
    const configMap = byKind('ConfigMap');
    const mount = (c.volumeMounts as Tree[])[0]!;
    const volume = (pod.volumes as Tree[]).find((v) => v.name === mount.name)!;
    expect(volume.configMap.name).toBe(configMap.metadata.name);
    const dir = mkdtempSync(join(tmpdir(), 'ddb-k8s-cm-'));
    for (const [key, text] of Object.entries(configMap.data as Record<string, string>)) writeFileSync(join(dir, key), text);
    const configs = configPaths(c.args as string[]).map((p) => (p.startsWith(`${mount.mountPath}/`) ? join(dir, p.slice(mount.mountPath.length + 1)) : (imageFileToRepo(p) ?? `missing: ${p}`)));
    expect(configs.every((f) => existsSync(f))).toBe(true);
    const result = validate(configs, plainEnv(c, secrets));
    expect(result.stderr).toBe(result.status === 0 ? result.stderr : '(validate passes)');
  });
});

describe('Dockerfile collector stage', () => {
  it('reads the same version and modules from the manifest as tools/src/collector/build.ts', () => {
    const sedScripts = [...read('Dockerfile').matchAll(/sed -n '([^']+)' otelcol-builder\.yaml/g)].map((m) => m[1]!);
    expect(sedScripts).toHaveLength(2);
    const run = (script: string) =>
      execFileSync('sed', ['-n', script, join(REPO_ROOT, 'collector', 'builder.yaml')], { encoding: 'utf8' })
        .trim()
        .split('\n');
    const manifest = parse(read('collector/builder.yaml')) as Tree;
    const modules = ['receivers', 'processors', 'exporters', 'extensions', 'connectors', 'providers'].flatMap((k) => ((manifest[k] ?? []) as Tree[]).map((c) => (c.gomod as string).trim().split(/\s+/).join('@')));
    expect(run(sedScripts[0]!)).toEqual([manifest.dist.version]);
    expect(run(sedScripts[1]!)).toEqual(modules);
  });

  it('runs the collector with merge-append, so overlays and site files only add', () => {
    expect(read('Dockerfile')).toContain(`ENTRYPOINT ["/usr/local/bin/otelcol-dd-bridge", "${MERGE_APPEND}"]`);
  });

  it('ships the config and every overlay the kit refers to', () => {
    const referenced = [...read('docker-compose.yaml').matchAll(/\/etc\/otelcol\/[\w./-]+\.yaml/g), ...read('deploy/kubernetes/dd-otlp-bridge.yaml').matchAll(/\/etc\/otelcol\/[\w./-]+\.yaml/g)].map((m) => m[0]);
    expect(referenced.length).toBeGreaterThan(2);
    for (const path of referenced) expect(existsSync(imageFileToRepo(path) ?? '')).toBe(true);
  });
});
