/** Worker thread owning the pocketsphinx decoders: each recognizer borrows one per utterance; idle ones are kept for reuse. */
import { parentPort, workerData } from 'node:worker_threads';
import type { Expectation } from '../../speech/index.js';
import type { Hypothesis } from '../types.js';
import type { CepstralSnapshot } from './cepstral-mean.js';
import { loadBands } from './band.js';
import { SphinxDecoder, type SharedLanguageModel } from './sphinx-decoder.js';
import { loadPocketSphinx, type PocketSphinxLibrary } from './sphinx-library.js';
import { DecoderSupply } from './decoder-supply.js';
import { recordingBand, UtteranceBand } from './utterance-band.js';
import { decoderArguments } from './options.js';
import type { DecoderReply, DecoderRequest, DecoderWorkerData } from './protocol.js';

const { options } = workerData as DecoderWorkerData;
const empty: Hypothesis = { text: '', words: [] };

/** A request that came while its lease waited for a decoder, kept in order for when it gets one. */
type Backlogged =
  | { op: 'write'; pcm: Int16Array }
  | { op: 'expect'; expectations?: readonly Expectation[] }
  | { op: 'speech-paused' }
  | { op: 'finish'; done: (hypothesis: Hypothesis) => void };

/**
 * A recognizer (one call) holds a decoder only while an utterance is being decoded; between utterances it
 * keeps just its normalisation (a few hundred bytes), and the decoder serves other calls. Decoders then
 * number the utterances decoded at once, not the calls, up to `decodersPerWorker`: past that, a lease's audio
 * waits in its backlog until a decoder is given back, then is decoded at once.
 */
interface Lease {
  decoder?: SphinxDecoder;
  /** The call's normalisation in each band after its last utterance heard in it. */
  carried: { wide?: CepstralSnapshot; telephone?: CepstralSnapshot };
  /** What the caller is expected to say, given to every decoder the lease borrows. */
  expectations?: readonly Expectation[];
  /** The band the call is heard in now: the one it was opened with, or the one its last utterance showed. */
  telephoneBand: boolean;
  /** For a call not said to be telephone audio: the band its current utterance is heard in. */
  utteranceBand?: UtteranceBand;
  /** Set while the lease waits for a decoder. */
  backlog?: Backlogged[];
  leaveLine?: () => void;
}
const leases = new Map<number, Lease>();
let library: PocketSphinxLibrary | undefined;
let bands: ReturnType<typeof loadBands> | undefined;
const languageModel: SharedLanguageModel = { path: options.languageModelPath };

class UnavailableError extends Error {}

const supply = new DecoderSupply(
  () => {
    try {
      library ??= loadPocketSphinx(options.libraryPath, options.sphinxbaseLibraryPath);
      bands ??= loadBands(library, options.acousticModelDir);
      return SphinxDecoder.create(library, decoderArguments(options), languageModel, bands.wide);
    } catch (error) {
      throw new UnavailableError((error as Error).message);
    }
  },
  { loaded: options.decodersPerWorker, idle: options.idleDecoders },
);

/**
 * Whether a lease's audio is watched for its band: a call not said to be telephone audio may still be one
 * (a Bluetooth headset, a phone bridged in), or change between utterances.
 */
const watchesBand = (telephoneBand: boolean) => options.detectTelephoneBand && !telephoneBand;

/** A decoder taken from the supply starts afresh: nothing heard, the model and initial mean of the band. */
function startAfresh(decoder: SphinxDecoder, telephoneBand: boolean): SphinxDecoder {
  decoder.startAfresh(telephoneBand ? bands!.telephone : bands!.wide);
  return decoder;
}

/**
 * When a call ends, idle decoders beyond one per open call (at least one) are freed and the heap trimmed: a
 * decoder is ~58 MB, so after a busy hour the process shrinks back instead of keeping its peak.
 */
function trimIdle(): void {
  if (supply.trim(Math.max(1, leases.size))) library?.trimHeap();
}

function leaseOf(id: number): Lease {
  const lease = leases.get(id);
  if (!lease) throw new Error(`recognizer ${id} is closed`);
  return lease;
}

/** Gives the lease a decoder with the call's normalisation and expectations so far. */
function attach(lease: Lease, decoder: SphinxDecoder): SphinxDecoder {
  startAfresh(decoder, lease.telephoneBand);
  const carried = lease.carried[bandName(lease)];
  if (carried) decoder.continueFrom(carried);
  decoder.expect(lease.expectations);
  lease.decoder = decoder;
  return decoder;
}

/** The lease's decoder, taking a free one when it has none; undefined when every decoder is busy. */
function decoderOf(lease: Lease): SphinxDecoder | undefined {
  if (lease.decoder) return lease.decoder;
  const taken = supply.take();
  return taken && attach(lease, taken.decoder);
}

/** After an utterance: keep the call's normalisation and give the decoder back (a decoder that cannot be reset stays). */
function park(lease: Lease): void {
  const decoder = lease.decoder;
  if (!decoder?.reusable) return;
  lease.carried[bandName(lease)] = decoder.normalisation();
  lease.decoder = undefined;
  supply.giveBack(decoder);
}

/** Runs a request on the lease's decoder now, or keeps it in the backlog until the lease gets one. */
function submit(lease: Lease, request: Backlogged): void {
  if (lease.backlog) {
    lease.backlog.push(request);
    return;
  }
  if (request.op === 'expect') {
    // From the next utterance on; a decoder held mid-utterance takes them too (used when it starts another).
    lease.expectations = request.expectations;
    lease.decoder?.expect(request.expectations);
    return;
  }
  if (request.op === 'speech-paused') {
    // Decodes early only what a decoder already holds: never takes a decoder for it.
    lease.decoder?.speechPaused();
    return;
  }
  if (request.op === 'finish' && !lease.decoder) {
    request.done(empty);
    return;
  }
  const decoder = decoderOf(lease);
  if (!decoder) {
    lease.backlog = [request];
    lease.leaveLine = supply.wait((given) => catchUp(lease, given));
  } else if (request.op === 'write') {
    hear(lease, decoder, request.pcm);
  } else {
    const hypothesis = decoder.finish();
    if (lease.utteranceBand) lease.utteranceBand = new UtteranceBand(lease.telephoneBand);
    park(lease);
    request.done(hypothesis);
  }
}

const bandName = (lease: Lease) => (lease.telephoneBand ? 'telephone' : 'wide');

/**
 * Each utterance of a call not said to be telephone audio starts in the band the last one showed; once it
 * shows its own (about 0.4 s of speech), a decoder in the other band hears it again from its first sample in
 * this one (4-7 ms to switch, then a catch-up decode of what was heard).
 */
function hear(lease: Lease, decoder: SphinxDecoder, pcm: Int16Array): void {
  const band = lease.utteranceBand;
  decoder.write(band ? band.hear(pcm) : pcm);
  const again = band?.switched();
  if (!again) return;
  lease.telephoneBand = band!.telephone;
  attach(lease, decoder);
  for (const piece of again) decoder.write(piece);
}

/** Decodes what the lease heard while it waited, in order (after a finish, the rest may wait again). */
function catchUp(lease: Lease, decoder: SphinxDecoder): void {
  const backlog = lease.backlog ?? [];
  lease.backlog = undefined;
  lease.leaveLine = undefined;
  attach(lease, decoder);
  for (const request of backlog) submit(lease, request);
}

function close(id: number): void {
  const lease = leases.get(id);
  leases.delete(id);
  if (!lease) return;
  lease.leaveLine?.();
  for (const request of lease.backlog ?? []) if (request.op === 'finish') request.done(empty);
  if (lease.decoder) supply.giveBack(lease.decoder);
  trimIdle();
}

type Success = Omit<Extract<DecoderReply, { ok: true }>, 'seq'>;

function handle(request: DecoderRequest): Success | Promise<Success> {
  switch (request.op) {
    case 'open': {
      // Loads a decoder now if the cap allows (so the model load is paid when the call starts) and parks it.
      const telephoneBand = request.telephoneBand ?? false;
      const lease: Lease = { telephoneBand, carried: {}, ...(watchesBand(telephoneBand) ? { utteranceBand: new UtteranceBand(false) } : {}) };
      leases.set(request.lease, lease);
      const taken = supply.take();
      if (taken) {
        const decoder = startAfresh(taken.decoder, lease.telephoneBand);
        if (decoder.reusable) supply.giveBack(decoder);
        else lease.decoder = decoder;
      }
      return { ok: true, initMs: taken?.loadMs };
    }
    case 'expect':
      submit(leaseOf(request.lease), { op: 'expect', expectations: request.expectations });
      return { ok: true };
    case 'write':
      submit(leaseOf(request.lease), { op: 'write', pcm: request.pcm });
      return { ok: true };
    case 'partial': {
      const decoder = leaseOf(request.lease).decoder;
      return { ok: true, hypothesis: decoder ? decoder.partial() : empty };
    }
    case 'speech-paused':
      submit(leaseOf(request.lease), { op: 'speech-paused' });
      return { ok: true };
    case 'finish': {
      const lease = leaseOf(request.lease);
      return new Promise((resolve) => submit(lease, { op: 'finish', done: (hypothesis) => resolve({ ok: true, hypothesis }) }));
    }
    case 'close':
      close(request.lease);
      return { ok: true };
    case 'dispose': {
      for (const id of [...leases.keys()]) leases.get(id)!.leaveLine?.();
      supply.dispose([...leases.values()].flatMap((l) => (l.decoder ? [l.decoder] : [])));
      leases.clear();
      if (library && languageModel.handle) library.freeLanguageModel(languageModel.handle);
      languageModel.handle = undefined;
      return { ok: true };
    }
    case 'transcribe': {
      const told = request.telephoneBand ?? false;
      const { telephone: telephoneBand, pcm } = watchesBand(told) ? recordingBand(request.pcm) : { telephone: told, pcm: request.pcm };
      const decode = (decoder: SphinxDecoder, initMs?: number): Success => {
        try {
          startAfresh(decoder, telephoneBand).expect(request.expectations);
          const hypothesis = telephoneBand ? decoder.decodeLive(pcm) : decoder.decodeUtterance(pcm);
          return { ok: true, hypothesis, initMs };
        } finally {
          supply.giveBack(decoder);
        }
      };
      const taken = supply.take();
      if (taken) return decode(taken.decoder, taken.loadMs);
      return new Promise((resolve, reject) => {
        supply.wait((decoder, loadMs) => {
          try {
            resolve(decode(decoder, loadMs));
          } catch (error) {
            reject(error as Error);
          }
        });
      });
    }
  }
}

parentPort!.on('message', async (request: DecoderRequest) => {
  let reply: DecoderReply;
  try {
    reply = { seq: request.seq, ...(await handle(request)) };
  } catch (error) {
    reply = { seq: request.seq, ok: false, message: (error as Error).message, unavailable: error instanceof UnavailableError };
  }
  parentPort!.postMessage(reply);
});
