import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

let compiledCopy: { sources: string; compiled: string } | undefined;

/**
 * Starts the workers of sources run as TypeScript from a compiled copy of those sources instead: the directory
 * `compiled` holds, for each `X.ts` under `sources`, the same path with `X.js`. A test run that compiles the checkout
 * once (test/support/compiled-tree.ts) saves each worker thread loading tsx. `undefined` goes back to tsx.
 * Gives the copy set before.
 */
export function startWorkersFromCopy(copy: { sources: string; compiled: string } | undefined): { sources: string; compiled: string } | undefined {
  const before = compiledCopy;
  compiledCopy = copy;
  return before;
}

/**
 * Starts a worker thread running the module `fileName` that sits beside `siblingUrl` (pass `import.meta.url`).
 * When the sources run as TypeScript (tsx, vitest), the worker registers tsx before importing the module;
 * compiled builds import the `.js` file directly.
 */
export function startModuleWorker(siblingUrl: string, fileName: string, workerData?: unknown): Worker {
  const fromSources = siblingUrl.endsWith('.ts');
  const target = new URL(`./${fileName}${fromSources ? '.ts' : '.js'}`, siblingUrl);
  if (!fromSources) return new Worker(target, { workerData });
  const copied = compiledCopyOf(target);
  if (copied) return new Worker(copied, { workerData });
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const bootstrap =
    `import(${JSON.stringify(tsxApi)})` +
    `.then((tsx) => { tsx.register(); return import(${JSON.stringify(target.href)}); })` +
    `.catch((error) => { setImmediate(() => { throw error; }); });`;
  return new Worker(bootstrap, { eval: true, workerData });
}

function compiledCopyOf(source: URL): URL | undefined {
  if (!compiledCopy) return undefined;
  const path = fileURLToPath(source);
  if (!path.startsWith(compiledCopy.sources)) return undefined;
  const compiled = compiledCopy.compiled + path.slice(compiledCopy.sources.length).replace(/\.ts$/, '.js');
  return existsSync(compiled) ? pathToFileURL(compiled) : undefined;
}
