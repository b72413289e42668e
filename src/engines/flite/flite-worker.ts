/** Worker thread running the flite WASI program: one instance, reset to its initial state before each run. */
import { readFile } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { WasiCommand } from './wasi-command.js';
import { readOnlyDataEnd } from './wasm-data-layout.js';
import type { FliteReply, FliteRequest, FliteWorkerData } from './flite-protocol.js';

const { wasmPath } = workerData as FliteWorkerData;
const binary = await readFile(wasmPath);
const flite = await WasiCommand.create(await WebAssembly.compile(binary), { readOnlyEnd: readOnlyDataEnd(binary) });

parentPort!.on('message', (request: FliteRequest) => {
  let reply: FliteReply;
  const transfer: ArrayBuffer[] = [];
  try {
    const started = performance.now();
    const run = flite.run(request.argv);
    const output = request.outputFile ? run.files.get(request.outputFile) : undefined;
    if (output) transfer.push(output.buffer as ArrayBuffer);
    reply = { seq: request.seq, ok: true, exitCode: run.exitCode, stdout: run.stdout, stderr: run.stderr, output, runMs: performance.now() - started };
  } catch (error) {
    reply = { seq: request.seq, ok: false, message: (error as Error).message };
  }
  parentPort!.postMessage(reply, transfer);
});
