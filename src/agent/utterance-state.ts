import { addCharges } from '../client/index.js';
import { SpanStatusCode, type Context, type Span } from '@opentelemetry/api';
import { timer, type Observable, type Subscription } from 'rxjs';
import type { AudioFrame } from '../audio/index.js';
import type { VoiceEvent } from '../pipeline/utterances.js';
import type { WorkTracker } from '../pipeline/work.js';
import { inStage, type TurnStageError } from './errors.js';
import { isBackchannel, substantiveWords } from './interruption.js';
import type { AgentReply } from './reply.js';
import type { ResolvedAgentOptions } from './resolve-options.js';
import { childSpan, inContext } from './tracing.js';
import { spanAttributes } from '../tracing/index.js';

export interface UtteranceDependencies {
  options: ResolvedAgentOptions;
  tracker: WorkTracker;
  turnSpan: Span;
  turnCtx: Context;
  /** The reply the agent is speaking now, if any. */
  agent: () => { reply: AgentReply } | undefined;
}

export interface UtteranceCallbacks {
  pause(): void;
  resume(): void;
  interrupt(): void;
  transcript(text: string, final: boolean): void;
  stopped(atMs: number): void;
  preempt(text: string, state: UtteranceState): AgentReply | undefined;
  final(state: UtteranceState): void;
  failed(error: TurnStageError): void;
}

/**
 * One caller utterance from speech start to final transcript: feeds recognition, decides whether caller
 * sound over the agent pauses, interrupts or is a false interruption, and may start a preemptive reply.
 */
export class UtteranceState {
  finalText = '';
  /** Whether the final was heard as expected (see `TranscriptEvent.expected`). */
  finalExpected: boolean | undefined;
  interim = '';
  interrupted = false;
  paused = false;
  consumed = false;
  asrMs: number | undefined;
  /** The provider that gave the final transcript, when it says. */
  finalProvider: string | undefined;
  /** Credits billed for recognising the utterance, summed over its transcripts, when the service says. */
  charge: number | undefined;
  /** The latest interim came with the provider's end-of-speech signal. */
  endOfSpeech = false;
  /** Wall time the final transcript arrived. */
  finalWall: number | undefined;
  endpointingMs: number | undefined;
  endpoint: { lastVoiceArrivedMs: number; endpointArrivedMs: number; endpointWall: number } | undefined;
  preemptiveText: string | undefined;
  preemptiveReply: AgentReply | undefined;
  readonly turnSpan: Span;
  readonly turnCtx: Context;
  private readonly asrSpan: Span;
  private recognition: Subscription | undefined;
  private asrEnded = false;
  private falseInterruption: Subscription | undefined;
  private speechMs = 0;
  private silentMs = 0;
  private done = false;

  constructor(
    private readonly deps: UtteranceDependencies,
    private readonly callbacks: UtteranceCallbacks,
    frames$: Observable<AudioFrame>,
  ) {
    this.turnSpan = deps.turnSpan;
    this.turnCtx = deps.turnCtx;
    const asr = childSpan(deps.options.tracer, 'asr', deps.turnCtx);
    this.asrSpan = asr.span;
    this.asrCtx = asr.ctx;
    this.frames$ = frames$;
  }

  private readonly asrCtx: Context;
  private readonly frames$: Observable<AudioFrame>;

  /** Starts recognition of the utterance's frames. */
  start(): void {
    const deps = this.deps;
    const track = <T>(work: Promise<T>) => deps.tracker.track(work);
    this.recognition = inContext(this.asrCtx, () => deps.options.stt.transcribe(this.frames$, { track })).subscribe({
      next: (event) => {
        this.charge = addCharges(this.charge, event.charge);
        if (event.final) this.finalProvider = event.provider ?? deps.options.stt.provider;
        else this.endOfSpeech = event.endOfSpeech === true;
        return event.final ? this.onFinal(event.text, event.expected) : this.onInterim(event.text);
      },
      error: (error: unknown) => {
        const failure = inStage('asr', error);
        this.asrSpan.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
        this.endAsrSpan();
        if (this.paused) this.resumeAgent();
        this.discard();
        this.callbacks.failed(failure);
      },
    });
  }

  private get interruption() {
    return this.deps.options.interruption;
  }

  onAudio(event: Extract<VoiceEvent, { type: 'speech-audio' }>): void {
    const durationMs = (event.frame.samples.length * 1000) / event.frame.sampleRate;
    this.speechMs = event.speechMs;
    this.silentMs = event.speaking ? 0 : this.silentMs + durationMs;
    const agent = this.deps.agent();
    if (
      agent &&
      agent.reply.hasStarted &&
      this.interruption.enabled &&
      !this.paused &&
      !this.interrupted &&
      this.speechMs >= this.interruption.minSpeechMs &&
      !(this.interim && isBackchannel(this.interim, this.interruption))
    ) {
      this.paused = true;
      this.callbacks.pause();
      // An interim with words may have come before the speech was long enough to pause: it interrupts now,
      // rather than at the next changed interim or the final transcript (which may be seconds away).
      if (this.interim && this.wantsInterruption(this.interim)) {
        this.interruptAgent();
        return;
      }
      const o = this.deps.options;
      this.falseInterruption = timer(this.interruption.falseInterruptionTimeoutMs, o.clock.scheduler).subscribe(() => {
        if (this.paused && !this.interrupted) this.resumeAgent();
      });
    }
    const mode = this.deps.options.modeSettings;
    if (
      mode.preemptiveDialogue &&
      !agent &&
      this.interim &&
      !event.speaking &&
      this.silentMs >= mode.stableInterimMs &&
      this.preemptiveText !== this.interim
    ) {
      this.preemptiveText = this.interim;
      this.preemptiveReply = this.callbacks.preempt(this.interim, this);
    }
  }

  onEnd(event: Extract<VoiceEvent, { type: 'speech-end' }>): void {
    this.endpoint = {
      lastVoiceArrivedMs: event.lastVoiceArrivedMs,
      endpointArrivedMs: event.endpointArrivedMs,
      endpointWall: performance.now(),
    };
    this.endpointingMs = event.endpointArrivedMs - event.lastVoiceArrivedMs;
    this.callbacks.stopped(event.lastVoiceMs);
  }

  /** Last caller voice sample → now, with endpointing measured on the call's clock and processing on the wall. */
  voiceToVoiceMs(): number | undefined {
    if (!this.endpoint) return undefined;
    return this.endpoint.endpointArrivedMs - this.endpoint.lastVoiceArrivedMs + (performance.now() - this.endpoint.endpointWall);
  }

  private onInterim(text: string): void {
    if (this.done) return;
    this.interim = text;
    this.callbacks.transcript(text, false);
    if (this.deps.agent() && this.wantsInterruption(text) && (this.paused || this.speechMs >= this.interruption.minSpeechMs)) {
      this.interruptAgent();
    }
  }

  private onFinal(text: string, expected: boolean | undefined): void {
    if (this.done) return;
    this.finalText = text;
    this.finalExpected = expected;
    this.finalWall = performance.now();
    if (this.endpoint) this.asrMs = performance.now() - this.endpoint.endpointWall;
    if (this.asrMs !== undefined) this.asrSpan.setAttribute(spanAttributes.asrEndOfSpeechToFinalMs, this.asrMs);
    this.endAsrSpan();
    this.callbacks.transcript(text, true);
    if (this.deps.agent() && !this.interrupted) {
      if (this.wantsInterruption(text)) this.interruptAgent();
      else if (this.paused) this.resumeAgent();
    }
    this.callbacks.final(this);
  }

  private wantsInterruption(text: string): boolean {
    return this.interruption.enabled && substantiveWords(text, this.interruption).length >= this.interruption.minWords;
  }

  private interruptAgent(): void {
    this.interrupted = true;
    this.paused = false;
    this.falseInterruption?.unsubscribe();
    this.callbacks.interrupt();
  }

  private resumeAgent(): void {
    this.paused = false;
    this.falseInterruption?.unsubscribe();
    this.callbacks.resume();
  }

  private endAsrSpan(): void {
    if (this.asrEnded) return;
    this.asrEnded = true;
    this.asrSpan.end();
  }

  /** This utterance starts no turn (noise, a backchannel, an empty transcript). */
  discard(): void {
    if (this.consumed) return;
    this.consumed = true;
    this.turnSpan.setAttribute(spanAttributes.turnDiscarded, true);
    this.turnSpan.end();
    this.abandon();
  }

  /** Stops recognition and timers (hangup, or the utterance is no longer wanted). */
  abandon(): void {
    if (this.done) return;
    this.done = true;
    this.recognition?.unsubscribe();
    this.falseInterruption?.unsubscribe();
    this.endAsrSpan();
    if (!this.consumed) {
      this.consumed = true;
      this.turnSpan.end();
    }
  }
}
