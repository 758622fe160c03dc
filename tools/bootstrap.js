#!/usr/bin/env node
// Runs before `npm test` and `npm run stack` (pre-scripts) so that both work on a fresh clone:
// installs the locked npm dependencies when node_modules is missing or older than the lock file.
// Plain JavaScript on purpose: it must run before TypeScript is installed.
// `npm install --no-save` rather than `npm ci`: the registry metadata reachable here leaves
// other platforms' optional packages (@swc/core-darwin-*, …) out of the lock file, and `npm ci`
// refuses such a lock as out of sync; `npm install` installs exactly the locked versions.
'use strict';
const { execSync } = require('node:child_process');
const { existsSync, statSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const lock = join(root, 'package-lock.json');
const installed = join(root, 'node_modules', '.package-lock.json');

const stale = !existsSync(installed) || statSync(installed).mtimeMs < statSync(lock).mtimeMs;
if (stale) {
  process.stderr.write('dd-otlp-bridge: installing npm dependencies…\n');
  execSync('npm install --no-audit --no-fund --no-save', { cwd: root, stdio: 'inherit' });
}
