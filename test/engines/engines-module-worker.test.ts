import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { startModuleWorker, startWorkersFromCopy } from '../../src/engines/module-worker.js';

const dir = mkdtempSync(join(tmpdir(), 'shoal-module-worker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const sources = join(dir, 'checkout') + sep;
const compiled = join(dir, 'copy') + sep;
mkdirSync(join(sources, 'engines'), { recursive: true });
mkdirSync(join(compiled, 'engines'), { recursive: true });
writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
writeFileSync(join(sources, 'engines', 'echo-worker.ts'), "import { parentPort } from 'node:worker_threads';\nparentPort!.postMessage('from the sources' as string);\n");
writeFileSync(join(compiled, 'engines', 'echo-worker.js'), "import { parentPort } from 'node:worker_threads';\nparentPort.postMessage('from the copy');\n");
const sibling = pathToFileURL(join(sources, 'engines', 'host.ts')).href;

const firstMessage = async (worker: Worker) => {
  const message = await new Promise((resolve, reject) => worker.once('message', resolve).once('error', reject));
  await worker.terminate();
  return message;
};

describe('engine worker threads of sources run as TypeScript', () => {
  it('start from a compiled copy when one is set, else load the sources through tsx', async () => {
    const before = startWorkersFromCopy({ sources, compiled });
    try {
      expect(await firstMessage(startModuleWorker(sibling, 'echo-worker'))).toBe('from the copy');
      rmSync(join(compiled, 'engines', 'echo-worker.js'));
      expect(await firstMessage(startModuleWorker(sibling, 'echo-worker'))).toBe('from the sources');
      writeFileSync(join(compiled, 'engines', 'echo-worker.js'), "import { parentPort } from 'node:worker_threads';\nparentPort.postMessage('from the copy');\n");
      startWorkersFromCopy(undefined);
      expect(await firstMessage(startModuleWorker(sibling, 'echo-worker'))).toBe('from the sources');
    } finally {
      startWorkersFromCopy(before);
    }
  });
});
