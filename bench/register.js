/**
 * Lets `node -r ./bench/register.js` run the bench's TypeScript (and the test fixtures it
 * reuses) in place, transpiled by swc exactly as jest does; `tsc -p bench` type-checks it.
 * Running in place keeps src/'s own paths (REPO_ROOT, the collector cache) what they are.
 */
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
