/**
 * Installed size of the npm package: packs the tarball, installs it into a fresh project (the core), then adds
 * every optional peer (the full set), and prints one JSON object with the sizes in MB and the package counts.
 * Optional peers are added with --ignore-scripts: their install scripts would download (onnxruntime-node's CUDA
 * files, better-sqlite3's prebuilt binary), which this machine cannot; the size is of what the registry ships.
 * Run: npx tsx bench/package-size.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> };
const work = mkdtempSync(join(tmpdir(), 'shoal-size-'));
const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20 });
const sizeMb = (dir: string) => Math.round(Number(execFileSync('du', ['-sk', dir], { encoding: 'utf8' }).split('\t')[0]) / 102.4) / 10;
const packageCount = (cwd: string) => Object.keys((JSON.parse(readFileSync(join(cwd, 'node_modules/.package-lock.json'), 'utf8')) as { packages: object }).packages).length;

try {
  const [{ filename, size }] = JSON.parse(npm(['pack', '--json', '--pack-destination', work], root)) as { filename: string; size: number }[];
  const project = join(work, 'consumer');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  npm(['install', '--prefer-offline', join(work, filename)], project);
  const core = { mb: sizeMb(join(project, 'node_modules')), packages: packageCount(project) };
  const peers = Object.entries(manifest.peerDependencies).map(([name, range]) => `${name}@${range}`);
  npm(['install', '--prefer-offline', '--ignore-scripts', ...peers], project);
  const full = { mb: sizeMb(join(project, 'node_modules')), packages: packageCount(project) };
  console.log(JSON.stringify({ bench: 'package-size', tarballKb: Math.round(size / 1024), core, full, loadavg: loadavg().map((l) => Math.round(l * 10) / 10) }));
} finally {
  rmSync(work, { recursive: true, force: true });
}
