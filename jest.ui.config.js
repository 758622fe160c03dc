/**
 * `npm run test:ui`: the HyperDX UI in a real browser (test/ui/). Kept out of `npm test` (whose
 * config is jest.config.js): it needs the HyperDX build (minutes, ~4 GB of RAM the first time),
 * Debian's chromium and a real ClickHouse. One worker: the suite is one browser session.
 */
/** @type {import('jest').Config} */
module.exports = {
  displayName: 'ui',
  rootDir: __dirname,
  roots: ['<rootDir>/test/ui'],
  testEnvironment: 'node',
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }] },
  globalSetup: '<rootDir>/test/ui/global-setup.ts',
  testTimeout: 120000,
  maxWorkers: 1,
};
