import { isOpenVocabulary } from '../../speech/index.js';
import type { Hypothesis, RecognizerOptions, SpeechRecognitionEngine, StreamingRecognizer, TranscribeOptions, WordTiming } from '../types.js';
import { UnsupportedLanguageError } from '../errors.js';
import { checkPocketSphinxInstalled } from './availability.js';
import { DecoderHost } from './decoder-host.js';
import { answerRegion, splitAtQuietPoints, voicedRegions } from './long-audio.js';
import { defaults, type PocketSphinxOptions } from './options.js';
import { PocketSphinxRecognizer } from './streaming-recognizer.js';

const englishTags = new Set(['en', 'en-us', 'en_us', 'english', 'auto']);

/**
 * Speech recognition on Debian's pocketsphinx (US English). Decoding runs on worker threads (one per core by
 * default) that own the decoders, so the event loop never waits for the search; each recognizer is pinned
 * to the worker with the fewest, and decoders are pooled per worker so the model load (about half a second)
 * is paid once per concurrent recognizer, not per utterance.
 */
export class PocketSphinxEngine implements SpeechRecognitionEngine {
  readonly name = 'pocketsphinx';
  readonly options: PocketSphinxOptions;
  private readonly host: DecoderHost;
  private checked = false;

  constructor(options: Partial<PocketSphinxOptions> = {}) {
    this.options = { ...defaults, ...options };
    const cap = this.options.decodersPerWorker;
    if (!Number.isInteger(cap) || cap < 1) throw new RangeError(`decodersPerWorker must be a positive integer, got ${cap}`);
    this.host = DecoderHost.shared(this.options);
  }

  createRecognizer(options: RecognizerOptions = {}): StreamingRecognizer {
    this.ensureAvailable(options.language);
    return new PocketSphinxRecognizer(this.host, options.telephoneBand ?? false);
  }

  /**
   * Long audio is decoded as consecutive utterances of at most 20 s, cut at quiet points. With expectations,
   * audio is taken as one answer: its voiced part is decoded whole (not split at pauses between words).
   */
  async transcribe(pcm16k: Int16Array, options: TranscribeOptions = {}): Promise<Hypothesis> {
    options.signal?.throwIfAborted();
    this.ensureAvailable(options.language);
    const words: WordTiming[] = [];
    const expectations = isOpenVocabulary(options.expectations) ? undefined : options.expectations;
    const pieces = splitAtQuietPoints(pcm16k).flatMap((whole) => (expectations ? answerRegion(whole) : voicedRegions(whole)));
    let expected: boolean | undefined;
    for (const piece of pieces) {
      const reply = await this.host.transcribe(piece.pcm, { signal: options.signal, telephoneBand: options.telephoneBand ?? false, ...(expectations ? { expectations } : {}) });
      if (reply.hypothesis?.expected !== undefined) expected = (expected ?? true) && reply.hypothesis.expected;
      options.signal?.throwIfAborted();
      const offsetMs = (piece.startSample / 16000) * 1000;
      for (const w of reply.hypothesis?.words ?? []) words.push({ ...w, startMs: w.startMs + offsetMs, endMs: w.endMs + offsetMs });
    }
    const text = words.map((w) => w.word).join(' ');
    return expected === undefined ? { text, words } : { text, words, expected };
  }

  /**
   * Loads a decoder in the first worker ahead of the first call; resolves with the model load in ms (0 if one
   * was idle). The other workers start when the started ones hold two calls each: the recognizer that starts one (at its call's first
   * utterance) waits for it once, 1-2 s. An idle process thus holds one copy of the model (~130 MB), not one per core.
   */
  async preload(): Promise<number> {
    this.ensureAvailable();
    const { lease, opened } = this.host.lease();
    try {
      return (await opened).initMs ?? 0;
    } finally {
      await lease.release();
    }
  }

  /** Stops the worker threads (shared by engines with the same options); they restart on the next call. */
  shutdown(): Promise<void> {
    return this.host.shutdown();
  }

  private ensureAvailable(language?: string): void {
    if (language !== undefined && !englishTags.has(language.toLowerCase())) {
      throw new UnsupportedLanguageError('pocketsphinx', language, ['en']);
    }
    if (this.checked) return;
    checkPocketSphinxInstalled(this.options);
    this.checked = true;
  }
}
