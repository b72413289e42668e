import { addCharges } from '../client/index.js';
import { SpanStatusCode, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { catchError, filter, map, Observable, ReplaySubject, Subject, tap, throwError, type Subscription } from 'rxjs';
import type { AudioFrame } from '../audio/index.js';
import type { Expectation } from '../speech/index.js';
import { chunkText, type ChunkOptions } from '../pipeline/chunk-text.js';
import type { Clock } from '../pipeline/clock.js';
import { playOut, type PacedPlayout, type PlayoutControl, type PlayoutOptions, type PlayoutSink } from '../pipeline/playout.js';
import { trackedWork, type WorkTracker } from '../pipeline/work.js';
import type { DialogueOutput, SpokenWord, TextToSpeech } from './contracts.js';
import { inStage, type TurnStageError } from './errors.js';
import { playedText } from './interruption.js';
import { childSpan, inContext } from './tracing.js';
import { spanAttributes } from '../tracing/index.js';

export interface ReplyDependencies {
  tts: TextToSpeech;
  sink: PlayoutSink;
  /** The call's playout rate, asked of synthesis (`Transport.playoutRate`). */
  sampleRate?: number;
  clock: Clock;
  tracker: WorkTracker;
  tracer: Tracer;
  chunking: Partial<ChunkOptions>;
  playout: Partial<PlayoutOptions>;
}

export interface ReplyCallbacks {
  firstAudio(atMs: number): void;
  finished(): void;
  failed(error: TurnStageError): void;
  /** A tool call of the dialogue; `atText` is the length of the reply's text when it came. */
  toolCall(output: Extract<DialogueOutput, { type: 'tool-call' }>, atText: number): void;
  /** The reply stopped: finished, failed or cancelled. */
  closed?(): void;
}

type SpeechAudio = { frame: AudioFrame; words?: SpokenWord[] };

/**
 * One thing the agent says (a reply, greeting, reprompt, fallback line): dialogue outputs → text pieces →
 * speech → paced playout. Synthesis can start before playout (`hold`) so a preemptive reply is ready when
 * confirmed. Cancelling stops everything at once and tells what the caller heard.
 */
export class AgentReply {
  text = '';
  endCall: string | undefined;
  /** Set by an `expect` output: what the caller is expected to say after this reply. */
  expectations: readonly Expectation[] | undefined;
  readonly words: SpokenWord[] = [];
  startedAtWall = performance.now();
  dialogueFirstTokenMs: number | undefined;
  ttsFirstAudioMs: number | undefined;
  /** The provider that spoke the first audio, when it says. */
  ttsProvider: string | undefined;
  /** Credits billed for the reply's synthesis, when the service says. */
  ttsCharge: number | undefined;
  firstAudioAtMs: number | undefined;
  /** Wall time the first synthesised audio arrived (before playout). */
  firstAudioWall: number | undefined;
  private firstPieceAtWall: number | undefined;
  private audioMs = 0;
  private synthesisDone = false;
  private readonly audio = new ReplaySubject<SpeechAudio>();
  private readonly control = new Subject<PlayoutControl>();
  private synthesis: Subscription | undefined;
  private playing: Subscription | undefined;
  private playout: PacedPlayout | undefined;
  private readonly dialogueSpan: Span;
  private readonly ttsSpan: Span;
  private closed = false;

  constructor(
    private readonly deps: ReplyDependencies,
    outputs$: Observable<DialogueOutput>,
    parent: Context,
    private readonly callbacks: ReplyCallbacks,
  ) {
    const dialogue = childSpan(deps.tracer, 'dialogue', parent);
    const tts = childSpan(deps.tracer, 'tts', parent);
    this.dialogueSpan = dialogue.span;
    this.ttsSpan = tts.span;
    const text$ = inContext(dialogue.ctx, () => outputs$).pipe(
      catchError((error: unknown) => throwError(() => inStage('dialogue', error))),
      tap({
        next: (output) => {
          if (output.type === 'end-call') this.endCall = output.reason ?? 'dialogue ended the call';
          if (output.type === 'tool-call') this.callbacks.toolCall(output, this.text.length);
          if (output.type === 'expect') this.expectations = output.expectations;
        },
        complete: () => this.endSpan(this.dialogueSpan),
      }),
      filter((output): output is Extract<DialogueOutput, { type: 'text' }> => output.type === 'text'),
      map((output) => output.delta),
      tap((delta) => {
        this.dialogueFirstTokenMs ??= performance.now() - this.startedAtWall;
        this.text += delta;
      }),
      chunkText(deps.chunking),
      tap(() => (this.firstPieceAtWall ??= performance.now())),
    );
    this.audio$ = inContext(tts.ctx, () => deps.tts.speak({ text$, ...(deps.sampleRate ? { sampleRate: deps.sampleRate } : {}), charged: (credits) => (this.ttsCharge = addCharges(this.ttsCharge, credits)) })).pipe(
      catchError((error: unknown) => throwError(() => inStage('tts', error))),
      tap((audio) => {
        this.firstAudioWall ??= performance.now();
        this.ttsProvider ??= audio.provider;
        if (this.ttsFirstAudioMs === undefined && this.firstPieceAtWall !== undefined) {
          this.ttsFirstAudioMs = performance.now() - this.firstPieceAtWall;
        }
        if (audio.words) this.words.push(...audio.words);
        this.audioMs += (audio.frame.samples.length * 1000) / audio.frame.sampleRate;
      }),
      trackedWork(deps.tracker),
    );
  }

  private readonly audio$: Observable<SpeechAudio>;

  /** Starts the dialogue and synthesis; playout too unless `hold` (then call `play()` to release it). */
  start(hold = false): void {
    this.synthesis = this.audio$.subscribe({
      next: (audio) => this.audio.next(audio),
      error: (error: unknown) => {
        this.audio.error(error);
      },
      complete: () => {
        this.synthesisDone = true;
        this.endSpan(this.ttsSpan);
        this.audio.complete();
      },
    });
    if (!hold) this.play();
  }

  play(): void {
    if (this.playing || this.closed) return;
    this.playing = this.audio
      .pipe(
        map((audio) => audio.frame),
        playOut(this.deps.sink, this.deps.clock, this.control, this.deps.playout, (playout) => (this.playout = playout)),
      )
      .subscribe({
        next: (event) => {
          if (event.type === 'first-audio') {
            this.firstAudioAtMs = event.atMs;
            this.callbacks.firstAudio(event.atMs);
          }
        },
        error: (error: unknown) => {
          const failure = inStage('tts', error);
          this.close(failure);
          this.callbacks.failed(failure);
        },
        complete: () => {
          this.close();
          this.callbacks.finished();
        },
      });
  }

  get isPlaying(): boolean {
    return this.playing !== undefined && !this.closed;
  }

  get hasStarted(): boolean {
    return this.firstAudioAtMs !== undefined;
  }

  pause(): void {
    this.control.next('pause');
  }

  resume(): void {
    this.control.next('resume');
  }

  /** Milliseconds of this reply the caller has heard. */
  playedMs(): number {
    return this.playout?.playedMs() ?? 0;
  }

  /** The text the caller heard so far. */
  heardText(): string {
    const totalMs = this.synthesisDone ? this.audioMs : Math.max(this.audioMs, this.playedMs() + 1);
    return playedText(this.text, this.playedMs(), totalMs, this.words);
  }

  /** Stops dialogue, synthesis and playout at once (the caller clears the transport). */
  cancel(): void {
    this.close();
  }

  private close(error?: TurnStageError): void {
    if (this.closed) return;
    this.closed = true;
    this.callbacks.closed?.();
    this.synthesis?.unsubscribe();
    this.playing?.unsubscribe();
    this.control.complete();
    for (const span of [this.dialogueSpan, this.ttsSpan]) {
      if (error && ((error.stage === 'dialogue' && span === this.dialogueSpan) || (error.stage === 'tts' && span === this.ttsSpan))) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
      }
      this.endSpan(span);
    }
  }

  private readonly ended = new Set<Span>();
  private endSpan(span: Span): void {
    if (this.ended.has(span)) return;
    this.ended.add(span);
    if (span === this.dialogueSpan && this.dialogueFirstTokenMs !== undefined) {
      span.setAttribute(spanAttributes.dialogueFirstTokenMs, this.dialogueFirstTokenMs);
    }
    if (span === this.ttsSpan && this.ttsFirstAudioMs !== undefined) {
      span.setAttribute(spanAttributes.ttsFirstAudioMs, this.ttsFirstAudioMs);
    }
    span.end();
  }
}
