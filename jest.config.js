/**
 * One project per kind of test, so each run sets up only what its tests need: unit, fuzz and the
 * bench's self-check need neither Go nor a collector; e2e needs our collector; conformance also
 * needs the reference collector (upstream receiver); hyperdx-api needs FerretDB and the HyperDX
 * API server installed from the shared snapshot, and for the migrated tiles' suite our collector
 * and ClickHouse too. Jest runs a project's global setup only when at least one of its tests is
 * selected. `npm test` runs them all.
 */
const project = (displayName, roots, extra = {}) => ({
  displayName,
  rootDir: __dirname,
  roots: roots.map((root) => `<rootDir>/${root}`),
  testEnvironment: 'node',
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }] },
  ...extra,
});

const CONFORMANCE = '<rootDir>/test/e2e/conformance.test.ts';

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 60000,
  maxWorkers: 2,
  projects: [
    project('unit', ['test/unit']),
    project('fuzz', ['test/fuzz']),
    project('bench', ['bench']),
    project('e2e', ['test/e2e'], { testPathIgnorePatterns: [CONFORMANCE], globalSetup: '<rootDir>/test/helpers/global-setup.ts' }),
    project('conformance', ['test/e2e'], { testMatch: [CONFORMANCE], globalSetup: '<rootDir>/test/helpers/conformance-setup.ts' }),
    // the real HyperDX API server on FerretDB (the management CLI's judge), and the collector and ClickHouse; all cached
    project('hyperdx-api', ['test/hyperdx-api'], { globalSetup: '<rootDir>/test/hyperdx-api/global-setup.ts' }),
  ],
};
