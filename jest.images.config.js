/**
 * `npm run test:images`: the images built from the Dockerfile and run with podman (test/images/):
 * the containers as deployed, the Kubernetes manifest with `podman kube play`, the compose file with
 * podman-compose. Kept out of `npm test` (whose config is jest.config.js): it needs root, podman and
 * debootstrap, and a cold build takes minutes. One worker: the tests share the built images and the
 * machine's two cores.
 */
/** @type {import('jest').Config} */
module.exports = {
  displayName: 'images',
  rootDir: __dirname,
  roots: ['<rootDir>/test/images'],
  testEnvironment: 'node',
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }] },
  globalSetup: '<rootDir>/test/images/global-setup.ts',
  testTimeout: 300000,
  maxWorkers: 1,
};
