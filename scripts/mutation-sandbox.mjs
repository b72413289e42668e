// A copy of the project under the system temp dir where a source file can be changed and tests run in a fresh,
// niced process, without touching the working tree (which Stryker runs copy). Used by mutation-by-hand.mjs and
// deliberate-bugs.mjs.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const root = resolve(import.meta.dirname, '..');

/** Runs `work(sandbox)` in a fresh copy of the project and removes the copy afterwards. */
export function inSandbox(work) {
  const sandbox = mkdtempSync(join(tmpdir(), 'shoal-sandbox-'));
  try {
    for (const item of ['src', 'test', 'plugins', 'agents', 'package.json', 'tsconfig.json', 'vitest.config.ts']) {
      cpSync(join(root, item), join(sandbox, item), { recursive: true });
    }
    symlinkSync(join(root, 'node_modules'), join(sandbox, 'node_modules'));
    return work(sandbox);
  } finally {
    rmSync(sandbox, { recursive: true, force: true });
  }
}

/** Runs the test files in the sandbox: 'Survived' when they pass, else 'Killed' (or 'Timeout'). */
export function runTests(sandbox, testFiles, timeoutMs = 120_000) {
  const run = spawnSync('nice', ['-n', '19', 'npx', 'vitest', 'run', '--reporter=dot', ...testFiles], {
    cwd: sandbox,
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  return run.status === 0 ? 'Survived' : run.signal ? 'Timeout' : 'Killed';
}
