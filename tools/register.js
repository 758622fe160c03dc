/**
 * Runs TypeScript in place (`node -r ./tools/register.js FILE.ts`), transpiled by swc exactly as
 * jest does: the workbench (tools/bin/), the benchmarks and the test set-up scripts use it;
 * `npm run typecheck` type-checks them. Running in place keeps the sources' own paths (REPO_ROOT,
 * the collector cache) what they are.
 */
'use strict';
const { readFileSync } = require('node:fs');
const { transformSync } = require('@swc/core');

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  });
  module._compile(code, filename);
};
