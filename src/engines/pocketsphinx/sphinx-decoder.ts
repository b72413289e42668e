import type { Hypothesis } from '../types.js';
import type { Expectation } from '../../speech/index.js';
import { CepstralMeanState, type CepstralSnapshot } from './cepstral-mean.js';
import { decodedResult, type Decoded } from './decoded.js';
import { ExpectedSearch } from './expected-search.js';
import type { GaussianFiles, PocketSphinxLibrary } from './sphinx-library.js';

/** 20 ms at 16 kHz: what a streaming recognizer is given at a time in a call. */
const liveFrameSamples = 320;

/** A language model file and, once read, its handle. */
export interface SharedLanguageModel {
  path: string;
  handle?: unknown;
}

/**
 * How a decoder hears one band of line: its model's Gaussians (see telephone-model.ts) and where the
 * cepstral mean starts (the model's `-cmninit` when none is given).
 */
export interface Band {
  /** The files of the band's Gaussians, there when asked for (a decoder reads them at each switch). */
  gaussians: () => GaussianFiles;
  /** The identity transform (`ps_mllr_t`): the decoder's Gaussians are loaded again by applying it. */
  reload: unknown;
  initialMean?: readonly number[];
}

/** One decoder: not thread-safe, used from one thread only. */
export class SphinxDecoder {
  private inUtterance = false;
  private readonly expected: ExpectedSearch;
  /** The utterance's result, decoded when the caller paused (see `speechPaused`), and how it started. */
  private early: { hypothesis: Hypothesis; startMean: CepstralSnapshot | undefined } | undefined;
  private startMean: CepstralSnapshot | undefined;
  /**
   * False when the decoder's cepstral mean state could not be captured (an unexpected sphinxbase
   * build): it then carries what it heard into later utterances, so it must not serve another user.
   */
  readonly reusable: boolean;

  constructor(
    private readonly lib: PocketSphinxLibrary,
    private readonly handle: unknown,
    private readonly cepstralMean: CepstralMeanState | undefined | null,
    /** The band its model's means are transformed for now: at first the one it was trained for. */
    private band: Band,
  ) {
    this.reusable = cepstralMean !== null;
    this.expected = new ExpectedSearch(lib, handle, cepstralMean ?? undefined);
  }

  /**
   * A decoder over the acoustic model and dictionary in `argv`, searching with `languageModel`, which is
   * read on first use and then shared: decoders of one thread use it one at a time, and sharing it saves
   * about a third of each decoder's memory and load time. `trainedBand`: the band the model hears untransformed.
   */
  static create(lib: PocketSphinxLibrary, argv: string[], languageModel: SharedLanguageModel, trainedBand: Band): SphinxDecoder {
    const config = lib.parseArguments(argv);
    if (!config) throw new Error(`pocketsphinx rejected its arguments: ${argv.join(' ')}`);
    const handle = lib.init(config);
    if (!handle) throw new Error('pocketsphinx could not load its acoustic model or dictionary (ps_init failed)');
    languageModel.handle ??= lib.readLanguageModel(config, handle, languageModel.path);
    if (!languageModel.handle) {
      lib.free(handle);
      throw new Error(`pocketsphinx could not read the language model ${languageModel.path}`);
    }
    if (!lib.useLanguageModel(handle, languageModel.handle)) {
      lib.free(handle);
      throw new Error('pocketsphinx could not activate the language model');
    }
    return new SphinxDecoder(lib, handle, CepstralMeanState.capture(lib.featureComputation(handle)), trainedBand);
  }

  /**
   * Ends any open utterance and forgets all audio heard so far, as a newly made decoder would, and hears
   * `band` from now on: its Gaussians (read from their files when the band changes, 4-7 ms here) and its
   * starting cepstral mean.
   */
  startAfresh(band: Band): void {
    this.reset();
    this.expected.set(undefined);
    if (band !== this.band) {
      if (!this.lib.loadGaussians(this.handle, band.gaussians(), band.reload)) throw new Error("pocketsphinx could not load its model's Gaussians for the band (no model files in its configuration, or ps_update_mllr failed)");
      this.band = band;
    }
    this.cepstralMean?.restore(band.initialMean);
  }

  /** Ends any open utterance and continues the normalisation of `snapshot` (another decoder's, same call). */
  continueFrom(snapshot: CepstralSnapshot): void {
    this.reset();
    this.cepstralMean?.restoreSnapshot(snapshot);
  }

  /** This decoder's normalisation now, so the call can go on in another decoder; undefined without CMN state. */
  normalisation(): CepstralSnapshot | undefined {
    return this.cepstralMean?.snapshot();
  }

  /**
   * What the caller is expected to say from the next utterance on (`undefined`: open vocabulary only).
   * Utterances are then also decoded against a grammar of the expectations and the better-scoring of the
   * two results is returned. Returns whether a grammar could be made of them.
   */
  expect(expectations: readonly Expectation[] | undefined): boolean {
    return this.expected.set(expectations);
  }

  /**
   * Decodes `pcm` as one complete utterance (`full_utt`). With the model's batch CMN, the cepstral mean
   * is then computed from this audio alone, so the result does not depend on earlier utterances.
   */
  decodeUtterance(pcm: Int16Array): Hypothesis {
    this.reset();
    this.write(pcm, true);
    this.lib.endUtterance(this.handle);
    this.inUtterance = false;
    return this.expected.choose(this.decoded()).hypothesis;
  }

  /**
   * The caller has stopped speaking (the agent's voice activity detector says so): while a grammar is
   * expected, the utterance is decoded to its end now, in the endpoint's silence, instead of at `finish()`.
   * Audio written after this means the caller spoke again: the utterance is then decoded anew from its
   * start, with the pause's audio, as if nothing had been decoded early.
   */
  speechPaused(): void {
    if (!this.inUtterance || !this.expected.hasGrammar) return;
    const startMean = this.startMean;
    const hypothesis = this.finish();
    this.early = { hypothesis, startMean };
  }

  /**
   * Decodes `pcm` as a streamed utterance (live CMN from the decoder's current mean, e.g. the telephone
   * starting mean), as a call's first utterance would be: on telephone audio of the tuning fold that beats
   * the utterance's own mean (bench/listening.ts, wer_8k against wer_8k_streaming).
   */
  decodeLive(pcm: Int16Array): Hypothesis {
    this.reset();
    // In a call's 20 ms frames: written in one piece, a long recording (11 s) crashes sphinxbase's live CMN
    // (SIGSEGV in cmn_live).
    for (let at = 0; at < pcm.length; at += liveFrameSamples) this.write(pcm.subarray(at, at + liveFrameSamples));
    return this.finish();
  }

  write(pcm: Int16Array, fullUtterance = false): void {
    if (this.early) this.resume();
    if (!this.inUtterance) {
      this.startMean = this.cepstralMean?.snapshot();
      this.lib.startStream(this.handle);
      this.expected.utteranceStarts();
      if (this.lib.startUtterance(this.handle) < 0) throw new Error('ps_start_utt failed');
      this.inUtterance = true;
    }
    if (pcm.length > 0 && this.lib.processRaw(this.handle, pcm, fullUtterance) < 0) throw new Error('ps_process_raw failed');
    this.expected.heard(pcm);
  }

  partial(): Hypothesis {
    if (this.early) return this.early.hypothesis;
    if (!this.inUtterance) return { text: '', words: [] };
    return this.current();
  }

  finish(): Hypothesis {
    if (this.early) {
      const { hypothesis } = this.early;
      this.early = undefined;
      return hypothesis;
    }
    if (!this.inUtterance) return { text: '', words: [] };
    this.lib.endUtterance(this.handle);
    this.inUtterance = false;
    return this.expected.choose(this.decoded()).hypothesis;
  }

  /** Ends any open utterance without reading it. */
  reset(): void {
    if (this.inUtterance) this.lib.endUtterance(this.handle);
    this.inUtterance = false;
    this.early = undefined;
    this.expected.forgetAudio();
  }

  /** Speech after a pause decoded early: the utterance starts again from its first sample and starting mean. */
  private resume(): void {
    const { startMean } = this.early!;
    // Written again in the pieces it came in: the live normalisation then evolves as it did the first time.
    // A copy: writing them starts a new utterance, whose audio the search collects afresh.
    const pieces = [...this.expected.heardPieces()];
    this.early = undefined;
    if (startMean) this.cepstralMean!.restoreSnapshot(startMean);
    for (const pcm of pieces) this.write(pcm);
  }

  free(): void {
    this.lib.free(this.handle);
  }

  private current(): Hypothesis {
    return this.decoded().hypothesis;
  }

  private decoded(): Decoded {
    return decodedResult(this.lib, this.handle);
  }
}
