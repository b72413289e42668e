#!/usr/bin/env node
// npm test [-- VITEST ARGUMENTS]: type-checks (tsc --noEmit) while vitest runs the suites, then prints what tsc found.
// tsc works on one core: run first, alone, it would leave the other idle for its ~45 s. Fails if either fails.
import { spawn } from 'node:child_process';

const exitCode = (child) => new Promise((resolve) => child.once('close', (code) => resolve(code ?? 1)));

const typecheck = spawn('npx', ['tsc', '--noEmit'], { stdio: ['ignore', 'pipe', 'inherit'] });
let typeErrors = '';
typecheck.stdout.on('data', (chunk) => (typeErrors += chunk));
const tests = spawn('npx', ['vitest', 'run', ...process.argv.slice(2)], { stdio: 'inherit' });

const [typecheckCode, testsCode] = await Promise.all([exitCode(typecheck), exitCode(tests)]);
if (typecheckCode !== 0) process.stdout.write(`\ntsc --noEmit failed:\n${typeErrors}`);
process.exit(typecheckCode || testsCode);
