/**
 * Vitest's global setup: compiles the sources once per run into a temporary copy of the checkout, for the `shoal`
 * processes, examples and engine worker threads the tests start (shoal-entry.ts, workers-from-copy.ts). Through
 * tsx, every process and every engine thread resolves and loads the TypeScript through a loader thread: about twice
 * the CPU of starting the compiled code. esbuild transpiles src/, agents/, plugins/ and examples/ file by file, as
 * tsx does, in well under a second; every other entry of the checkout is linked in, so the copy finds node_modules,
 * web/ and the fixtures where the sources do.
 *
 * The copy's path is put in `SHOAL_TEST_BUILD`, which the forked test workers inherit. Outside vitest (benches) it is
 * unset: `shoalEntry()` is then the checkout's bin/shoal.js, and workers load the sources through tsx.
 */
import { build } from 'esbuild';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';

const root = join(import.meta.dirname, '../..');
const compiled = ['src', 'agents', 'plugins', 'examples'];
const skipped = new Set(['.git', 'dist', 'dist-all', 'test-output', 'coverage', 'reports', 'package.json', ...compiled]);

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

export default async function setup(): Promise<(() => void) | undefined> {
  if (process.env['SHOAL_TEST_BUILD']) return undefined;
  const out = mkdtempSync(join(tmpdir(), 'shoal-test-build-'));
  for (const entry of readdirSync(root)) if (!skipped.has(entry) && !entry.startsWith('.stryker-tmp')) symlinkSync(join(root, entry), join(out, entry));
  const sources: string[] = [];
  for (const tree of compiled) {
    for (const file of filesUnder(join(root, tree))) {
      if (file.endsWith('.ts') && !file.endsWith('.d.ts')) sources.push(file);
      else {
        const copy = join(out, relative(root, file));
        mkdirSync(dirname(copy), { recursive: true });
        symlinkSync(file, copy);
      }
    }
  }
  // `import 'shoal'` in the examples: the package's exports point into dist/, the copy has the compiled files where
  // the sources are (tsx finds them through tsconfig.json's paths).
  writeFileSync(join(out, 'package.json'), readFileSync(join(root, 'package.json'), 'utf8').replaceAll('"./dist/', '"./'));
  await build({ entryPoints: sources, outdir: out, outbase: root, format: 'esm', platform: 'node', target: 'node20', bundle: false, logLevel: 'error' });
  process.env['SHOAL_TEST_BUILD'] = out;
  return () => rmSync(out, { recursive: true, force: true });
}
