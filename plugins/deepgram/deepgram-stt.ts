import { defer, finalize, Observable } from 'rxjs';
import { requireKey, sumCharges, type CallAudio, type CallSpeechToText, type Expectation, type RecognitionCapabilities, type SpeechToText, type TranscriptEvent, type UtteranceFrame, type WorkOptions } from '../../src/agent/index.js';
import { expectedTerms } from '../provider-kit.js';
import { DeepgramStream, type StreamUtterance } from './live-stream.js';
import type { DeepgramResults, DeepgramWord } from './messages.js';
import { checkChunkMs, deepgramDefaults, keyVariable, type DeepgramOptions, type ListenTerms } from './options.js';

const sampleRates = [8000, 16000, 24000, 32000, 44100, 48000] as const;

/**
 * Deepgram live recognition (`/v1/listen`): one socket per call (`forCall`), each utterance's frames sent as they
 * come at the caller's rate, interims from interim results, the final at Shoal's endpoint (`Finalize`).
 */
export class DeepgramSpeechToText implements SpeechToText {
  readonly provider = 'deepgram';
  readonly capabilities: RecognitionCapabilities;
  private readonly options: DeepgramOptions & { apiKey: string };

  constructor(options: Partial<DeepgramOptions> = {}) {
    const o = { ...deepgramDefaults, ...options };
    checkChunkMs(o.chunkMs);
    this.options = { ...o, apiKey: requireKey('deepgram', o.apiKey ?? process.env[keyVariable], keyVariable) };
    this.capabilities = {
      streaming: true,
      interimResults: o.interimResults,
      wordTimings: true,
      sampleRates,
      encodings: o.encoding === 'linear16' ? ['pcm16'] : o.encoding === 'mulaw' ? ['mulaw'] : ['pcm16', 'mulaw'],
      keywordBoosting: o.maxKeyterms > 0,
      endOfSpeech: o.endpointingMs !== false || o.utteranceEndMs !== false,
    };
  }

  takesSampleRate(sampleRate: number): boolean {
    return this.capabilities.sampleRates.includes(sampleRate);
  }

  forCall(call?: CallAudio): CallSpeechToText {
    return new DeepgramCall(this.options, this.capabilities, call);
  }

  /** One socket per utterance; calls use `forCall()`. */
  transcribe(utterance$: Observable<UtteranceFrame>, work: WorkOptions = {}): Observable<TranscriptEvent> {
    return defer(() => {
      const call = new DeepgramCall(this.options, this.capabilities);
      return call.transcribe(utterance$, work).pipe(finalize(() => call.release()));
    });
  }
}

/** A call's recognition on one Deepgram socket, replaced when the caller's rate or the key terms change. */
class DeepgramCall implements CallSpeechToText {
  readonly provider = 'deepgram';
  private stream: DeepgramStream | undefined;
  private terms: ListenTerms = { keyterms: [] };
  private released = false;
  /** The call's closed sockets: each resolves with what Shoal's `/v1/listen` said it billed. */
  private readonly closings: Promise<number | undefined>[] = [];

  constructor(
    private readonly options: DeepgramOptions & { apiKey: string },
    readonly capabilities: RecognitionCapabilities,
    private readonly call?: CallAudio,
  ) {}

  takesSampleRate(sampleRate: number): boolean {
    return this.capabilities.sampleRates.includes(sampleRate);
  }

  /** Deepgram takes key terms when the socket opens: new ones open the next socket now, between turns. */
  expect(expectations: readonly Expectation[] | undefined): void {
    const terms = termsOf(expectations, this.options);
    if (sameTerms(terms, this.terms)) return;
    this.terms = terms;
    const rate = this.call?.callerSampleRate();
    if (this.released || !this.stream || this.stream.busy || rate === undefined) return;
    this.closings.push(this.stream.close());
    this.stream = new DeepgramStream(this.options, rate, terms);
  }

  /** `work.track` is told of the wait for the final after `Finalize`, so a virtual clock (`shoal talk --fast`) waits for it. */
  transcribe(utterance$: Observable<UtteranceFrame>, work: WorkOptions = {}): Observable<TranscriptEvent> {
    return new Observable<TranscriptEvent>((subscriber) => {
      if (this.released) {
        subscriber.error(new Error('the call speech recognizer was released'));
        return;
      }
      const transcript = new UtteranceTranscript();
      let utterance: StreamUtterance | undefined;
      let stream: DeepgramStream | undefined;
      let stopped = false;
      let finalized!: () => void;
      const final = new Promise<void>((resolve) => (finalized = resolve));
      const finish = () => {
        finalized();
        if (stopped) return;
        stopped = true;
        subscriber.next(transcript.final());
        subscriber.complete();
      };
      const sink = {
        results: (results: DeepgramResults) => {
          if (stopped) return;
          const interim = transcript.add(results);
          if (results.from_finalize) finish();
          else if (interim) subscriber.next(interim);
        },
        utteranceEnd: () => {
          if (stopped) return;
          const said = transcript.saidEnd();
          if (said) subscriber.next(said);
        },
        finalizeTimedOut: () => {
          if (utterance) stream?.end(utterance);
          finish();
        },
        fail: (error: unknown) => {
          finalized();
          if (stopped) return;
          stopped = true;
          subscriber.error(error);
        },
      };
      const subscription = utterance$.subscribe({
        next: (frame) => {
          if (stopped) return;
          if (!stream || !utterance) {
            stream = this.streamFor(frame.sampleRate);
            utterance = stream.begin(sink);
            const begun = utterance;
            transcript.setOffset((seconds) => begun.relativeMs(seconds));
          }
          stream.send(frame);
        },
        error: (error: unknown) => sink.fail(error),
        complete: () => {
          if (stopped) return;
          if (stream && utterance) {
            stream.finalize(utterance);
            void work.track?.(final);
          } else finish();
        },
      });
      return () => {
        finalized();
        stopped = true;
        subscription.unsubscribe();
        if (stream && utterance) stream.end(utterance);
      };
    });
  }

  /** Closes the socket; resolves with the credits Shoal's `/v1/listen` billed for the call's sockets, if it says. */
  release(): Promise<number | undefined> {
    if (!this.released) {
      this.released = true;
      if (this.stream) this.closings.push(this.stream.close());
      this.stream = undefined;
    }
    return Promise.all(this.closings).then(sumCharges);
  }

  private streamFor(sampleRate: number): DeepgramStream {
    const current = this.stream;
    if (current?.usable && current.sampleRate === sampleRate && sameTerms(current.terms, this.terms)) return current;
    if (current && !current.busy) this.closings.push(current.close());
    this.stream = new DeepgramStream(this.options, sampleRate, this.terms);
    return this.stream;
  }
}

/** The words of one utterance: Deepgram's final segments so far, and the interim after them. */
class UtteranceTranscript {
  private readonly segments: Array<{ text: string; words: DeepgramWord[]; confidence: number }> = [];
  private lastInterim = '';
  endOfSpeech = false;
  private offsetMs: ((seconds: number) => number) | undefined;

  /** Takes a result; returns the interim to emit, if the text changed. */
  add(results: DeepgramResults): TranscriptEvent | undefined {
    const alternative = results.channel.alternatives[0];
    const text = alternative?.transcript.trim() ?? '';
    if (results.speech_final) this.endOfSpeech = true;
    if (results.is_final) {
      if (text && alternative) this.segments.push({ text, words: alternative.words, confidence: alternative.confidence });
      if (results.from_finalize) return undefined;
      return this.interim(this.joined(), results.speech_final === true);
    }
    return text ? this.interim(this.joined(text), false) : undefined;
  }

  /** Deepgram's `UtteranceEnd`: the words so far as an interim marked end of speech (none before any word). */
  saidEnd(): TranscriptEvent | undefined {
    this.endOfSpeech = true;
    return this.interim(this.joined(), true);
  }

  final(): TranscriptEvent {
    const words = this.segments.flatMap((segment) => segment.words);
    const confidence = this.segments.length > 0 ? this.segments.reduce((sum, segment) => sum + segment.confidence, 0) / this.segments.length : undefined;
    return {
      text: this.joined(),
      words: words.map((word) => this.timing(word)),
      final: true,
      provider: 'deepgram',
      ...(confidence !== undefined ? { confidence } : {}),
      ...(this.endOfSpeech ? { endOfSpeech: true } : {}),
    };
  }

  /** Word times as ms from the utterance's first audio (Deepgram's are seconds of the socket's audio). */
  setOffset(offset: (seconds: number) => number): void {
    this.offsetMs = offset;
  }

  private timing(word: DeepgramWord) {
    const at = this.offsetMs ?? ((seconds: number) => Math.round(seconds * 1000));
    return { word: word.punctuated_word ?? word.word, startMs: at(word.start), endMs: at(word.end) };
  }

  private joined(interim?: string): string {
    return [...this.segments.map((segment) => segment.text), ...(interim ? [interim] : [])].join(' ');
  }

  private interim(text: string, endOfSpeech: boolean): TranscriptEvent | undefined {
    if (!text || (text === this.lastInterim && !endOfSpeech)) return undefined;
    this.lastInterim = text;
    return { text, words: [], final: false, provider: 'deepgram', ...(endOfSpeech ? { endOfSpeech: true } : {}) };
  }
}

/**
 * The most `hints` sent: the speech service takes up to 20 expectations, and a query string is part of a header
 * line, which servers cap (Node's headers at 16 KB in all). Past either, only the key terms go.
 */
const hintsLimits = { expectations: 20, characters: 4000 };

function termsOf(expectations: readonly Expectation[] | undefined, options: DeepgramOptions): ListenTerms {
  const keyterms = expectedTerms(expectations, options.maxKeyterms);
  if (!options.sendHints || !expectations?.length || expectations.length > hintsLimits.expectations) return { keyterms };
  const hints = JSON.stringify(expectations);
  return hints.length <= hintsLimits.characters ? { keyterms, hints } : { keyterms };
}

function sameTerms(a: ListenTerms, b: ListenTerms): boolean {
  return a.hints === b.hints && a.keyterms.length === b.keyterms.length && a.keyterms.every((term, index) => term === b.keyterms[index]);
}
