#!/usr/bin/env node
// npm test [-- VITEST ARGUMENTS]: type-checks while vitest runs the suites, then prints what tsc found.
// tsc works on one core: run first, alone, it would leave the other idle for its ~45 s. Fails if either fails.
// The type check also emits the whole project into dist-all/ (a few seconds more than --noEmit): the package test
// packs the package from it (test/project/package-install.test.ts) instead of compiling the sources a second time.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

const exitCode = (child) => new Promise((resolve) => child.once('close', (code) => resolve(code ?? 1)));

const emitted = resolve('dist-all');
rmSync(emitted, { recursive: true, force: true });
const typecheck = spawn('npx', ['tsc', '--outDir', emitted, '--rootDir', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
let typeErrors = '';
typecheck.stdout.on('data', (chunk) => (typeErrors += chunk));
const typechecked = exitCode(typecheck).then((code) => {
  mkdirSync(emitted, { recursive: true });
  writeFileSync(resolve(emitted, 'tsc-exit-code'), String(code));
  return code;
});
const tests = spawn('npx', ['vitest', 'run', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, SHOAL_TYPECHECK_EMIT: emitted },
});

const [typecheckCode, testsCode] = await Promise.all([typechecked, exitCode(tests)]);
if (typecheckCode !== 0) process.stdout.write(`\ntsc failed:\n${typeErrors}`);
process.exit(typecheckCode || testsCode);
