/** Worker thread owning the pocketsphinx decoders: each recognizer borrows one per utterance; idle ones are kept for reuse. */
import { parentPort, workerData } from 'node:worker_threads';
import type { Expectation } from '../../agent/expectations.js';
import type { CepstralSnapshot } from './cepstral-mean.js';
import { loadPocketSphinx, SphinxDecoder, type PocketSphinxLibrary, type SharedLanguageModel } from './decoder-binding.js';
import { decoderArguments } from './options.js';
import type { DecoderReply, DecoderRequest, DecoderWorkerData } from './protocol.js';
import { telephoneCepstralMean } from './telephone-cepstral-mean.js';

const { options } = workerData as DecoderWorkerData;
/**
 * A recognizer (one call) holds a decoder only while an utterance is being decoded; between utterances it
 * keeps just its normalisation (a few hundred bytes), and the decoder serves other calls. Decoders then
 * number the utterances decoded at once, not the calls.
 */
interface Lease {
  decoder?: SphinxDecoder;
  /** The call's normalisation after its last utterance. */
  carried?: CepstralSnapshot;
  /** What the caller is expected to say, given to every decoder the lease borrows. */
  expectations?: readonly Expectation[];
  telephoneBand: boolean;
}
const leases = new Map<number, Lease>();
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

/**
 * When a call ends, idle decoders beyond one per open call (at least one) are freed and the heap trimmed: a
 * decoder is ~58 MB, so after a busy hour the process shrinks back instead of keeping its peak.
 */
function trimIdle(): void {
  const keep = Math.max(1, leases.size);
  if (idle.length <= keep) return;
  for (const decoder of idle.splice(keep)) decoder.free();
  library?.trimHeap();
}

function leaseOf(id: number): Lease {
  const lease = leases.get(id);
  if (!lease) throw new Error(`recognizer ${id} is closed`);
  return lease;
}

/** The lease's decoder, taking one (and the call's normalisation and expectations so far) when it has none. */
function decoderOf(lease: Lease): SphinxDecoder {
  if (lease.decoder) return lease.decoder;
  const { decoder } = acquire(lease.telephoneBand);
  if (lease.carried) decoder.continueFrom(lease.carried);
  decoder.expect(lease.expectations);
  lease.decoder = decoder;
  return decoder;
}

/** After an utterance: keep the call's normalisation and give the decoder back (a decoder that cannot be reset stays). */
function park(lease: Lease): void {
  const decoder = lease.decoder;
  if (!decoder?.reusable) return;
  lease.carried = decoder.normalisation();
  lease.decoder = undefined;
  release(decoder);
}

function handle(request: DecoderRequest): Omit<Extract<DecoderReply, { ok: true }>, 'seq'> {
  switch (request.op) {
    case 'open': {
      // Loads a decoder now (so the model load is paid when the call starts) and parks it for the first utterance.
      const { decoder, initMs } = acquire(request.telephoneBand);
      const lease: Lease = { decoder, telephoneBand: request.telephoneBand ?? false };
      leases.set(request.lease, lease);
      if (decoder.reusable) {
        lease.decoder = undefined;
        release(decoder);
      }
      return { ok: true, initMs };
    }
    case 'expect': {
      // From the next utterance on; a decoder held mid-utterance takes them too (used when it starts another).
      const lease = leaseOf(request.lease);
      lease.expectations = request.expectations;
      lease.decoder?.expect(request.expectations);
      return { ok: true };
    }
    case 'write':
      decoderOf(leaseOf(request.lease)).write(request.pcm);
      return { ok: true };
    case 'partial': {
      const decoder = leaseOf(request.lease).decoder;
      return { ok: true, hypothesis: decoder ? decoder.partial() : { text: '', words: [] } };
    }
    case 'speech-paused':
      leaseOf(request.lease).decoder?.speechPaused();
      return { ok: true };
    case 'finish': {
      const lease = leaseOf(request.lease);
      if (!lease.decoder) return { ok: true, hypothesis: { text: '', words: [] } };
      const hypothesis = lease.decoder.finish();
      park(lease);
      return { ok: true, hypothesis };
    }
    case 'close': {
      const lease = leases.get(request.lease);
      leases.delete(request.lease);
      if (lease?.decoder) release(lease.decoder);
      trimIdle();
      return { ok: true };
    }
    case 'dispose': {
      for (const decoder of [...[...leases.values()].flatMap((l) => (l.decoder ? [l.decoder] : [])), ...idle]) decoder.free();
      leases.clear();
      idle.length = 0;
      if (library && languageModel.handle) library.freeLanguageModel(languageModel.handle);
      languageModel.handle = undefined;
      return { ok: true };
    }
    case 'transcribe': {
      const { decoder, initMs } = acquire(request.telephoneBand);
      try {
        decoder.expect(request.expectations);
        const hypothesis = request.telephoneBand ? decoder.decodeLive(request.pcm) : decoder.decodeUtterance(request.pcm);
        return { ok: true, hypothesis, initMs };
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
