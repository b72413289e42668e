import { join } from 'node:path';
import { countFromEnv } from '../pool/index.js';

/** Where pocketsphinx lives and how the decoder is configured. */
export interface PocketSphinxOptions {
  /** The pocketsphinx shared library (a soname searched by the dynamic loader, or a path). */
  libraryPath: string;
  /** sphinxbase, which holds the command-line and logging functions. */
  sphinxbaseLibraryPath: string;
  /** Acoustic model directory. */
  acousticModelDir: string;
  /** Language model (ARPA or binary). */
  languageModelPath: string;
  /** Pronunciation dictionary. */
  dictionaryPath: string;
  /**
   * Run pocketsphinx's flat-lexicon and lattice passes when an utterance ends (more accurate; finish()
   * takes ~100-250 ms longer on a 3 s utterance). Off suits low-latency turn taking.
   */
  secondPass: boolean;
  /** Further decoder arguments, e.g. ['-beam', '1e-40']. */
  extraArguments: string[];
  /**
   * Idle decoders kept loaded per worker. A recognizer holds a decoder only while an utterance is decoded, so
   * this should cover the utterances decoded at once; beyond it, decoders are freed and later loaded again.
   */
  idleDecoders: number;
  /**
   * Decoders one worker thread loads at most (each ~58 MB). A recognizer holds one only while an utterance is
   * decoded; when all are busy, the next utterance's audio waits (buffered, the call's normalisation kept) and is
   * decoded at once when one is given back. A streaming utterance holds its decoder for as long as the caller
   * speaks, so with one decoder a worker's callers who speak at once wait for each other in real time. Measured
   * quietly (bench/capacity.ts --quick, 2 cores, load 1.3): v2v p95 at 4 / 8 calls 530 / 1,995 ms with 2,
   * 1,376-1,562 / 4,795-5,050 ms with 1; RSS per call 36 / 20 MB with 2, 1.6-2.4 / 1.3-2.7 MB with 1.
   * Default 2, or `SHOAL_DECODERS_PER_WORKER` (1 where memory matters more than latency).
   */
  decodersPerWorker: number;
  /**
   * Calls a started worker thread takes before another one is started (then each call goes to the worker with
   * the fewest). 2 (the default) keeps two calls on one copy of the model (~130 MB); 1 spreads calls over the
   * cores at once, for when decoding is what the calls wait for (`shoal test --concurrency`).
   */
  callsPerWorker: number;
  /**
   * Hear audio whose spectrum stops at 4 kHz with the telephone band, though it was not said to be telephone
   * audio (a 16 kHz line carrying a phone call or a Bluetooth headset's narrow band): decided per utterance
   * from its first ~0.4 s of speech (band-watch.ts). Default on.
   */
  detectTelephoneBand: boolean;
}

const modelRoot = '/usr/share/pocketsphinx/model/en-us';

/** Debian's packages: `apt-get install pocketsphinx pocketsphinx-en-us`. */
export const defaults: PocketSphinxOptions = {
  libraryPath: 'libpocketsphinx.so.3',
  sphinxbaseLibraryPath: 'libsphinxbase.so.3',
  acousticModelDir: join(modelRoot, 'en-us'),
  languageModelPath: join(modelRoot, 'en-us.lm.bin'),
  dictionaryPath: join(modelRoot, 'cmudict-en-us.dict'),
  secondPass: true,
  extraArguments: [],
  idleDecoders: 4,
  decodersPerWorker: countFromEnv(process.env, 'SHOAL_DECODERS_PER_WORKER') ?? 2,
  callsPerWorker: 2,
  detectTelephoneBand: true,
};

export const installHint = 'apt-get install pocketsphinx pocketsphinx-en-us';

/** Decoder arguments for ps_init; the language model is read separately and shared. */
export function decoderArguments(options: PocketSphinxOptions): string[] {
  return [
    '-hmm', options.acousticModelDir,
    '-dict', options.dictionaryPath,
    // Its built-in voice activity filter drops silent frames, which shifts every later word time.
    '-remove_silence', 'no',
    ...(options.secondPass ? [] : ['-fwdflat', 'no', '-bestpath', 'no']),
    ...options.extraArguments,
  ];
}

/** Pocketsphinx computes 100 feature frames per second. */
export const frameMs = 10;
