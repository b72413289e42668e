import { execFile } from 'node:child_process';
import { transform } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');

/** The TypeScript block under "Using Shoal as a library" in the README, as written. */
function librarySnippet(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Using Shoal as a library'));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('README has no ts block under "Using Shoal as a library"');
  return block[1]!;
}

/**
 * Runs the snippet as written, its `shoal/x` imports untouched: as a module in the run's compiled copy of the
 * checkout (test/support/compiled-tree.ts), whose package.json exports point at the compiled sources. The built
 * package is what test/project/package-install.test.ts checks.
 */
async function runInCompiledCopy(snippet: string): Promise<string> {
  const copy = process.env['SHOAL_TEST_BUILD'];
  if (!copy) throw new Error('SHOAL_TEST_BUILD is unset: run this file with vitest, whose global setup compiles the copy');
  const file = join(copy, 'readme-library-example.mjs');
  writeFileSync(file, (await transform(snippet, { loader: 'ts', format: 'esm', target: 'node20' })).code);
  try {
    return (await run(process.execPath, [file], { cwd: root, timeout: 240_000 })).stdout;
  } finally {
    rmSync(file, { force: true });
  }
}

describe("README's library example", () => {
  it('runs as written: a recorded caller through the receptionist, a line per turn and a summary', async () => {
    const stdout = await runInCompiledCopy(librarySnippet());
    expect(stdout).toMatch(/agent: {2}.*(Welcome|Hello|Hi|Thank)/i);
    expect((stdout.match(/^caller: /gm) ?? []).length).toBeGreaterThanOrEqual(3);
    expect(stdout).toMatch(/^\d+ turns, voice-to-voice p50 \d+ ms$/m);
  }, 300_000);
});
