import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, { default?: string } | string> };

/** The TypeScript block under "Using Shoal as a library" in the README, as written. */
function librarySnippet(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Using Shoal as a library'));
  const block = /```ts\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('README has no ts block under "Using Shoal as a library"');
  return block[1]!;
}

/**
 * Runs the snippet as written with tsx from the package root. Only the package's own specifiers resolve
 * differently: `shoal/x` maps to the sources that `exports` builds `dist/` from (the built package is what
 * test/project/package-install.test.ts checks), so the test needs no build.
 */
function sourcesFor(snippet: string): string {
  return snippet.replace(/from '(shoal(?:\/[a-z]+)?)'/g, (_match, specifier: string) => {
    const key = specifier === 'shoal' ? '.' : `./${specifier.slice('shoal/'.length)}`;
    const target = manifest.exports[key];
    const built = typeof target === 'string' ? target : target?.default;
    if (!built) throw new Error(`README imports ${specifier}, which package.json does not export`);
    const source = built.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts');
    return `from ${JSON.stringify(pathToFileURL(join(root, source)).href)}`;
  });
}

describe("README's library example", () => {
  const dir = mkdtempSync(join(tmpdir(), 'shoal-readme-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs as written: a recorded caller through the receptionist, a line per turn and a summary', async () => {
    const file = join(dir, 'library-example.mts');
    writeFileSync(file, sourcesFor(librarySnippet()));
    const { stdout } = await run('npx', ['tsx', file], { cwd: root, timeout: 240_000 });
    expect(stdout).toMatch(/agent: {2}.*(Welcome|Hello|Hi|Thank)/i);
    expect((stdout.match(/^caller: /gm) ?? []).length).toBeGreaterThanOrEqual(3);
    expect(stdout).toMatch(/^\d+ turns, voice-to-voice p50 \d+ ms$/m);
  }, 300_000);
});
