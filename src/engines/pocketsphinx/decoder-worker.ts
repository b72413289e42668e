/** Worker thread owning the pocketsphinx decoders: one per open recognizer, idle ones kept for reuse. */
import { parentPort, workerData } from 'node:worker_threads';
import { loadPocketSphinx, SphinxDecoder, type PocketSphinxLibrary, type SharedLanguageModel } from './decoder-binding.js';
import { decoderArguments } from './options.js';
import type { DecoderReply, DecoderRequest, DecoderWorkerData } from './protocol.js';
import { telephoneCepstralMean } from './telephone-cepstral-mean.js';

const { options } = workerData as DecoderWorkerData;
const leased = new Map<number, SphinxDecoder>();
const idle: SphinxDecoder[] = [];
let library: PocketSphinxLibrary | undefined;
const languageModel: SharedLanguageModel = { path: options.languageModelPath };

class UnavailableError extends Error {}

/** A decoder that has heard nothing yet: a pooled one is reset, so no lease inherits another's audio. */
function acquire(telephoneBand = false): { decoder: SphinxDecoder; initMs?: number } {
  const initialMean = telephoneBand ? telephoneCepstralMean : undefined;
  const reused = idle.pop();
  if (reused) {
    reused.startAfresh(initialMean);
    return { decoder: reused };
  }
  const started = performance.now();
  try {
    library ??= loadPocketSphinx(options.libraryPath, options.sphinxbaseLibraryPath);
    const decoder = SphinxDecoder.create(library, decoderArguments(options), languageModel);
    if (initialMean) decoder.startAfresh(initialMean);
    return { decoder, initMs: performance.now() - started };
  } catch (error) {
    throw new UnavailableError((error as Error).message);
  }
}

function release(decoder: SphinxDecoder): void {
  decoder.reset();
  if (decoder.reusable && idle.length < options.idleDecoders) idle.push(decoder);
  else decoder.free();
}

function leaseOf(lease: number): SphinxDecoder {
  const decoder = leased.get(lease);
  if (!decoder) throw new Error(`recognizer ${lease} is closed`);
  return decoder;
}

function handle(request: DecoderRequest): Omit<Extract<DecoderReply, { ok: true }>, 'seq'> {
  switch (request.op) {
    case 'open': {
      const { decoder, initMs } = acquire(request.telephoneBand);
      leased.set(request.lease, decoder);
      return { ok: true, initMs };
    }
    case 'expect':
      leaseOf(request.lease).expect(request.expectations);
      return { ok: true };
    case 'write':
      leaseOf(request.lease).write(request.pcm);
      return { ok: true };
    case 'partial':
      return { ok: true, hypothesis: leaseOf(request.lease).partial() };
    case 'finish':
      return { ok: true, hypothesis: leaseOf(request.lease).finish() };
    case 'close': {
      const decoder = leased.get(request.lease);
      leased.delete(request.lease);
      if (decoder) release(decoder);
      return { ok: true };
    }
    case 'dispose': {
      for (const decoder of [...leased.values(), ...idle]) decoder.free();
      leased.clear();
      idle.length = 0;
      if (library && languageModel.handle) library.freeLanguageModel(languageModel.handle);
      languageModel.handle = undefined;
      return { ok: true };
    }
    case 'transcribe': {
      const { decoder, initMs } = acquire();
      try {
        decoder.expect(request.expectations);
        return { ok: true, hypothesis: decoder.decodeUtterance(request.pcm), initMs };
      } finally {
        release(decoder);
      }
    }
  }
}

parentPort!.on('message', (request: DecoderRequest) => {
  let reply: DecoderReply;
  try {
    reply = { seq: request.seq, ...handle(request) };
  } catch (error) {
    reply = { seq: request.seq, ok: false, message: (error as Error).message, unavailable: error instanceof UnavailableError };
  }
  parentPort!.postMessage(reply);
});
