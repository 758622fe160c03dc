#!/usr/bin/env node
// The workbench runs from its TypeScript in place (tools/register.js transpiles it as jest does),
// so it needs no build step of its own; `npm run typecheck` checks it.
'use strict';
require('../register.js');
require('../src/main.ts');
