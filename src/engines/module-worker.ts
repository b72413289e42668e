import { Worker } from 'node:worker_threads';

/**
 * Starts a worker thread running the module `fileName` that sits beside `siblingUrl` (pass `import.meta.url`).
 * When the sources run as TypeScript (tsx, vitest), the worker registers tsx before importing the module;
 * compiled builds import the `.js` file directly.
 */
export function startModuleWorker(siblingUrl: string, fileName: string, workerData?: unknown): Worker {
  const fromSources = siblingUrl.endsWith('.ts');
  const target = new URL(`./${fileName}${fromSources ? '.ts' : '.js'}`, siblingUrl);
  if (!fromSources) return new Worker(target, { workerData });
  const tsxApi = import.meta.resolve('tsx/esm/api');
  const bootstrap =
    `import(${JSON.stringify(tsxApi)})` +
    `.then((tsx) => { tsx.register(); return import(${JSON.stringify(target.href)}); })` +
    `.catch((error) => { setImmediate(() => { throw error; }); });`;
  return new Worker(bootstrap, { eval: true, workerData });
}
