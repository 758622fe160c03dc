/**
 * The layer rules, checked by `npm run deps` in CI over src/, tools/src/, bench/ and test/. The
 * sidecar (src/), from the top: the composition root (src/cli/), the HTTP layer (src/http/), the
 * signals (src/signals/: routes, parsers, Datadog types and translator steps, one folder per
 * signal), and the core at the bottom (src/core/: domain errors, wire codecs, the OTLP model and
 * encoder, export, memory, self-observability); src/config/ is a leaf everyone may read. Above it
 * stands the workbench (tools/src/: stack, collector build, HyperDX, migration, agent set-up),
 * which may use the sidecar and is never used by it; the benchmarks and tests stand on top.
 */
/** A rule that fails `npm run deps`: no import from modules matching `from` of modules matching `to`. */
const forbid = (name, comment, from, to) => ({ name, severity: 'error', comment, from, to });

/** Each folder of src/signals/ and the other signals it may use; every other use is an error. */
const SIGNAL_FOLDERS = { logs: [], traces: ['metrics'], metrics: [], events: ['logs', 'metrics'], control: [], shared: [] };
const USES_WHY = {
  traces: 'APM stats become metrics',
  events: "events become log records with the logs' time rules, and are read with the metrics' JSON field readers",
};

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    forbid('no-circular', 'A circle has no bottom: neither side can be understood, tested or moved without the other.', {}, { circular: true }),
    forbid('core-is-the-bottom', 'src/core/ knows no route, no HTTP and no signal: they are built on it.', { path: '^src/core/' }, { path: '^src/(http|signals|cli|tools)/' }),
    forbid('signals-below-http', 'Routes, parsers and translators throw domain errors (src/core/errors.ts); only src/http/ turns them into replies.', { path: '^src/signals/' }, { path: '^src/(http|cli)/' }),
    ...Object.entries(SIGNAL_FOLDERS).map(([folder, mayUse]) =>
      forbid(
        `signals-apart-${folder}`,
        `src/signals/${folder}/ uses its own folder, shared/, the route contract${mayUse.length > 0 ? ` and ${mayUse.join(', ')} (${USES_WHY[folder]})` : ''}; what two signals share moves to shared/.`,
        { path: `^src/signals/${folder}/` },
        { path: `^src/signals/(${Object.keys(SIGNAL_FOLDERS).filter((f) => f !== folder && f !== 'shared' && !mayUse.includes(f)).join('|')})/` },
      ),
    ),
    forbid('config-is-a-leaf', 'The option table is read by every component and reads none.', { path: '^src/config/' }, { path: '^src/(core|http|signals|cli)/' }),
    forbid('no-composition-root-below-it', 'src/cli/ wires everything together; nothing in src/ depends on it.', { path: '^src/', pathNot: '^src/cli/' }, { path: '^src/cli/' }),
    forbid('sidecar-stands-alone', 'The sidecar (what the image ships) never depends on the workbench, the benchmarks or the tests.', { path: '^src/' }, { path: '^(tools|bench|test)/' }),
    forbid('workbench-below-bench-and-tests', 'The workbench is a product of its own: it never depends on benchmark or test code.', { path: '^tools/' }, { path: '^(bench|test)/' }),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
