import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importOptional } from '../../optional/index.js';

/** One file of the built demo page. */
interface PageAsset {
  body: string | Uint8Array;
  contentType: string;
}

/** The page was not found or could not be bundled; `message` says what to do. */
export class DemoPageBuildError extends Error {
  override readonly name = 'DemoPageBuildError';
}

export interface AgentListing {
  default: string;
  agents: { name: string; description?: string }[];
}

/** Finds the `web/` folder of the package, from the sources (src/...) or the build (dist/src/...). */
export function findWebRoot(from = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from, i = 0; i < 6; i++, dir = dirname(dir)) {
    if (existsSync(join(dir, 'web', 'index.html'))) return join(dir, 'web');
  }
  throw new DemoPageBuildError(`cannot find web/index.html above ${from}; the demo page ships in the package's web/ folder`);
}

const scriptEntries = { app: 'main.ts', 'capture-worklet': 'capture-worklet.ts', 'playback-worklet': 'playback-worklet.ts' };

/** Where `npm run build` puts the bundled page scripts: `dist/web/` beside the package's `web/`. */
export function prebuiltPageDir(webRoot: string): string {
  return join(dirname(webRoot), 'dist', 'web');
}

/** Bundles the page's TypeScript (app and the two AudioWorklet modules) with esbuild, in memory; file name to code. */
export async function bundlePageScripts(webRoot = findWebRoot()): Promise<Map<string, Uint8Array>> {
  const esbuild = await importOptional<typeof import('esbuild')>('esbuild').catch((error: unknown) => {
    throw new DemoPageBuildError(error instanceof Error ? error.message : String(error));
  });
  const result = await esbuild
    .build({
      entryPoints: Object.fromEntries(Object.entries(scriptEntries).map(([name, file]) => [name, join(webRoot, 'src', file)])),
      bundle: true,
      format: 'esm',
      target: ['chrome110', 'firefox115', 'safari16'],
      write: false,
      outdir: '/',
      sourcemap: 'inline',
      logLevel: 'silent',
    })
    .catch((error: unknown) => {
      throw new DemoPageBuildError(`could not bundle the demo page: ${error instanceof Error ? error.message : String(error)}`);
    });
  return new Map(result.outputFiles.map((file) => [file.path.split('/').pop() ?? file.path, file.contents]));
}

async function prebuiltPageScripts(webRoot: string): Promise<Map<string, Uint8Array> | undefined> {
  const fromBuild = /[\\/]dist[\\/]src[\\/]/.test(fileURLToPath(import.meta.url));
  const dir = prebuiltPageDir(webRoot);
  if (!fromBuild || !existsSync(join(dir, 'app.js'))) return undefined;
  const names = Object.keys(scriptEntries).map((name) => `${name}.js`);
  return new Map(await Promise.all(names.map(async (name) => [name, await readFile(join(dir, name))] as const)));
}

/**
 * The demo page's files: the page scripts bundled by `npm run build` when running the built package (no esbuild
 * needed), else bundled from `web/src` with esbuild once at start-up.
 */
export async function buildDemoPage(webRoot = findWebRoot()): Promise<Map<string, PageAsset>> {
  const scripts = (await prebuiltPageScripts(webRoot)) ?? (await bundlePageScripts(webRoot));
  const assets = new Map<string, PageAsset>();
  for (const [name, body] of scripts) assets.set(`/${name}`, { body, contentType: 'text/javascript; charset=utf-8' });
  assets.set('/', { body: await readFile(join(webRoot, 'index.html'), 'utf8'), contentType: 'text/html; charset=utf-8' });
  assets.set('/styles.css', { body: await readFile(join(webRoot, 'styles.css'), 'utf8'), contentType: 'text/css; charset=utf-8' });
  // The call records page (docs/call-records.md): plain files, its data behind the access token.
  assets.set('/calls', { body: await readFile(join(webRoot, 'calls.html'), 'utf8'), contentType: 'text/html; charset=utf-8' });
  assets.set('/calls.js', { body: await readFile(join(webRoot, 'calls.js'), 'utf8'), contentType: 'text/javascript; charset=utf-8' });
  assets.set('/calls.css', { body: await readFile(join(webRoot, 'calls.css'), 'utf8'), contentType: 'text/css; charset=utf-8' });
  return assets;
}

/** Serves the demo page's files and `GET /api/agents`; answers 404 for anything else, 405 for other methods. */
export function demoPageHandler(assets: Map<string, PageAsset>, agents: AgentListing): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const reply = (status: number, contentType: string, body: string | Uint8Array) => {
      response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return reply(405, 'application/json', JSON.stringify({ status: 405, message: 'only GET is served here' }));
    }
    if (path === '/api/agents') return reply(200, 'application/json', JSON.stringify(agents));
    if (path === '/healthz') return reply(200, 'application/json', '{"ok":true}');
    const asset = assets.get(path === '/index.html' ? '/' : path);
    if (!asset) return reply(404, 'application/json', JSON.stringify({ status: 404, message: `no such page: ${path}; the demo is at /` }));
    reply(200, asset.contentType, asset.body);
  };
}
