/** Worker thread running the flite WASI program: one fresh instance per run, the next one prepared while idle. */
import { readFile } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { prepareWasiProgram, type PreparedProgram } from './wasi-memory-host.js';
import type { FliteReply, FliteRequest, FliteWorkerData } from './flite-protocol.js';

const { wasmPath } = workerData as FliteWorkerData;
const module = WebAssembly.compile(await readFile(wasmPath));
let spare: Promise<PreparedProgram> = module.then(prepareWasiProgram);

parentPort!.on('message', async (request: FliteRequest) => {
  let reply: FliteReply;
  const transfer: ArrayBuffer[] = [];
  try {
    const next = spare;
    spare = module.then(prepareWasiProgram);
    const program = await next;
    const started = performance.now();
    const run = program.run(request.argv);
    const output = request.outputFile ? run.files.get(request.outputFile) : undefined;
    if (output) transfer.push(output.buffer as ArrayBuffer);
    reply = { seq: request.seq, ok: true, exitCode: run.exitCode, stdout: run.stdout, stderr: run.stderr, output, runMs: performance.now() - started };
  } catch (error) {
    spare = module.then(prepareWasiProgram);
    reply = { seq: request.seq, ok: false, message: (error as Error).message };
  }
  parentPort!.postMessage(reply, transfer);
});
