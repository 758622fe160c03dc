/**
 * The layer rules of src/ (README, Architecture), checked by `npm run deps` in CI. Dependencies run
 * down the pipeline: the HTTP layer (src/server/) and the composition root (src/cli/) sit on top,
 * the routes (src/intake/) under them, and everything else below.
 */
/** A rule that fails `npm run deps`: no import from modules matching `from` of modules matching `to`. */
const forbid = (name, comment, from, to) => ({ name, severity: 'error', comment, from, to });

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    forbid('no-circular', 'A circle has no bottom: neither side can be understood, tested or moved without the other.', {}, { circular: true }),
    forbid('no-http-layer-below-it', 'Only the composition root (src/cli/) and the HTTP layer itself use src/server/; lower layers raise domain errors (src/core/errors.ts) and src/server/error-reply.ts turns them into replies.', { path: '^src/', pathNot: '^src/(server|cli)/' }, { path: '^src/server/' }),
    forbid('no-routes-below-them', 'The routes (src/intake/) are used by the HTTP layer and the composition root only.', { path: '^src/', pathNot: '^src/(server|cli|intake)/' }, { path: '^src/intake/' }),
    forbid('no-composition-root-below-it', 'src/cli/ wires everything together; nothing in src/ depends on it.', { path: '^src/', pathNot: '^src/cli/' }, { path: '^src/cli/' }),
    forbid('no-tests-or-bench-in-src', 'The shipped code never depends on test or benchmark code.', { path: '^src/' }, { path: '^(test|bench)/' }),
    forbid('no-tools-on-the-data-path', 'agent-config, the stack API client and the collector builder are tools beside the sidecar; the data path must not pull them in.', { path: '^src/', pathNot: '^src/(cli|agent-config|stack-api|collector)/' }, { path: '^src/(agent-config|stack-api|collector)/' }),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
