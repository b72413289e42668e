import { trace, type Context, type Span } from '@opentelemetry/api';
import { Observable, Subject, tap, type Subscription } from 'rxjs';
import type { VoiceActivityDetector } from '../engines/index.js';
import type { VoiceEvent } from '../pipeline/utterances.js';
import { WorkTracker } from '../pipeline/work.js';
import type { CallSpeechToText, ConversationMessage, SpeechToText, Transport } from './contracts.js';
import { inStage, type TurnStageError } from './errors.js';
import type { AgentEvent, SessionSummary } from './events.js';
import { CallRecord } from './call-report.js';
import { releasedCharge } from './charges.js';
import { CallTimers } from './call-timers.js';
import { callerVoice } from './caller-voice.js';
import type { ResolvedAgentOptions } from './resolve-options.js';
import { CallerInput } from './caller-input.js';
import { AgentListening } from './agent-listening.js';
import { AgentSpeaking, type CallCore } from './agent-speaking.js';
import { callParentContext, childSpan } from './tracing.js';
import { spanAttributes } from '../tracing/index.js';

/** One call: caller audio in, turns out, until hangup. Created by `VoiceAgent.handle`. */
export class CallSession {
  readonly events$: Observable<AgentEvent>;
  readonly summary: Promise<SessionSummary>;
  readonly history: ConversationMessage[] = [];
  readonly traceId: string;
  /**
   * Set at hangup: the credits the call's recogniser reported as it was released (Shoal's `/v1/listen` says
   * what it billed only as the socket closes); undefined when it reported none.
   */
  recognitionCharge: Promise<number | undefined> = Promise.resolve(undefined);
  private readonly events = new Subject<AgentEvent>();
  private readonly tracker = new WorkTracker();
  private readonly subscriptions: Subscription[] = [];
  private readonly callSpan: Span;
  private readonly callCtx: Context;
  private readonly record: CallRecord;
  private resolveSummary!: (summary: SessionSummary) => void;
  private vad: VoiceActivityDetector | undefined;
  /** The call's own recognizer scope (`stt.forCall()`), released at hangup; absent when the STT has none. */
  private callStt: CallSpeechToText | undefined;
  /** The options utterances see: `stt` is the call's scope when there is one. */
  private utteranceOptions: ResolvedAgentOptions;
  private callerSampleRate: number | undefined;
  private readonly listening: AgentListening;
  private readonly speaking: AgentSpeaking;
  private readonly caller: CallerInput;
  private timers: CallTimers | undefined;
  private ended = false;

  constructor(
    private readonly options: ResolvedAgentOptions,
    private readonly transport: Transport,
  ) {
    this.events$ = this.events.asObservable();
    this.summary = new Promise((resolve) => (this.resolveSummary = resolve));
    const parent = callParentContext(transport.traceContext);
    const call = childSpan(options.tracer, 'call', parent, { [spanAttributes.callMode]: options.mode, [spanAttributes.callDialogue]: options.dialogue.name });
    this.callSpan = call.span;
    this.callCtx = call.ctx;
    this.traceId = trace.getSpanContext(call.ctx)!.traceId;
    this.record = new CallRecord(this.traceId, options.clock.now());
    this.utteranceOptions = options;
    const dialogue = options.dialogue;
    this.listening = new AgentListening(dialogue.expectations && ((history) => dialogue.expectations!(history)), this.history, (event) => this.emit(event));
    const core: CallCore = {
      options,
      transport,
      tracker: this.tracker,
      record: this.record,
      history: this.history,
      listening: this.listening,
      callSpan: this.callSpan,
      callCtx: this.callCtx,
      traceId: this.traceId,
      isEnded: () => this.ended,
      emit: (event) => this.emit(event),
      fail: (stage, error) => this.fail(stage, error),
      end: (reason, byCaller) => this.end(reason, byCaller),
      awaitCaller: () => this.armSilenceTimer(),
    };
    this.speaking = new AgentSpeaking(core);
    this.caller = new CallerInput(core, this.speaking, () => this.timers);
  }

  /** Resolves when no engine, dialogue or synthesis work is in flight (for drivers with a virtual clock). */
  async settled(): Promise<void> {
    for (;;) {
      await this.tracker.idle();
      await new Promise((resolve) => setImmediate(resolve));
      if (this.tracker.pending <= 0) return;
    }
  }

  get isEnded(): boolean {
    return this.ended;
  }

  start(): void {
    const o = this.options;
    try {
      this.callStt = o.stt.forCall?.({ callerSampleRate: () => this.callerSampleRate, telephoneBand: () => this.transport.telephoneBand === true });
    } catch (error) {
      this.fail('asr', error);
      this.end('speech recognition unavailable');
      return;
    }
    const stt: SpeechToText = this.callStt ?? o.stt;
    this.utteranceOptions = { ...o, stt };
    try {
      this.vad = o.vad();
    } catch (error) {
      this.fail('vad', error);
      this.end('voice activity detector unavailable');
      return;
    }
    const audio$ = this.transport.audio$.pipe(tap((frame) => (this.callerSampleRate ??= frame.sampleRate)));
    const endpointMs = o.modeSettings.endpointSilenceMs;
    const silenceMs = () => {
      const wanted = this.listening.endpointSilenceMs(endpointMs, this.caller.interim);
      return this.caller.endOfSpeech && wanted <= endpointMs ? Math.min(wanted, o.modeSettings.endOfSpeechSilenceMs) : wanted;
    };
    const takesSampleRate = (rate: number) => stt.takesSampleRate?.(rate) === true;
    const voice$ = callerVoice(audio$, this.vad, o.clock, this.tracker, { ...o.voice, minSilenceMs: endpointMs }, silenceMs, takesSampleRate);
    this.subscriptions.push(
      voice$.subscribe({
        next: (event) => this.guard('asr', () => this.caller.onVoice(event, voice$, this.utteranceOptions)),
        error: (error: unknown) => {
          this.fail('transport', error);
          this.end('caller audio failed');
        },
        complete: () => this.end('caller hung up'),
      }),
      this.transport.events$.subscribe((event) => {
        if (event.type === 'hangup') this.end(event.reason ?? 'caller hung up');
        if (event.type === 'dtmf') this.caller.onKey(event.digit);
        const reaction$ = event.type === 'answered-by' ? o.dialogue.answeredBy?.(event.answeredBy, [...this.history]) : undefined;
        if (reaction$) this.speaking.sayOutputs(() => reaction$);
      }),
    );
    this.timers = new CallTimers(o.clock, { ...o, userSilenceTimeoutMs: o.dialogue.repromptAfterMs ?? o.userSilenceTimeoutMs }, {
      reprompt: () => {
        if (!this.speaking.current) this.speaking.say(o.dialogue.reprompt?.(this.history) ?? o.repromptLine, 'reprompt');
      },
      goodbye: (reason) => this.sayGoodbye(reason),
    });
    this.listening.start(this.callStt, o.listening);
    const greeting = o.greet ? o.dialogue.greeting?.() : undefined;
    if (greeting && !this.ended) this.speaking.say(greeting, 'greeting');
    else this.armSilenceTimer();
  }

  hangup(reason = 'agent hung up'): void {
    this.end(reason);
  }

  /** What the caller has heard so far of the reply the agent is playing; `undefined` while the agent is silent. */
  heardAgentText(): string | undefined {
    return this.speaking.heardText();
  }

  private sayGoodbye(reason: string): void {
    if (this.ended) return;
    this.caller.abandonLatest();
    this.speaking.say(this.options.goodbyeLine, 'goodbye');
    this.callSpan.setAttribute(spanAttributes.callGoodbyeReason, reason);
  }

  private armSilenceTimer(): void {
    if (!this.ended) this.timers?.awaitCaller();
  }

  private guard(stage: 'asr', action: () => void): void {
    try {
      action();
    } catch (error) {
      this.fail(stage, error);
    }
  }

  private fail(stage: TurnStageError['stage'], error: unknown): void {
    this.record.errors++;
    const failure = inStage(stage, error);
    this.callSpan.addEvent('error', { [spanAttributes.errorStage]: stage, 'exception.message': failure.message });
    this.emit({ type: 'error', stage, message: failure.message });
  }

  private emit(event: AgentEvent): void {
    if (!this.events.closed) this.events.next(event);
  }

  private end(reason: string, byCaller = true): void {
    if (this.ended) return;
    this.ended = true;
    this.timers?.stop();
    this.caller.abandonAll();
    this.speaking.stop();
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.vad?.release();
    this.recognitionCharge = releasedCharge(this.callStt?.release());
    const summary = this.record.summary(reason, this.options.clock.now());
    this.callSpan.setAttributes({
      [spanAttributes.callTurns]: summary.turns.length,
      [spanAttributes.callInterruptions]: summary.interruptions,
      [spanAttributes.callErrors]: summary.errors,
      [spanAttributes.callDurationMs]: summary.durationMs,
    });
    this.callSpan.setAttribute(spanAttributes.callHangupReason, reason);
    this.callSpan.end();
    this.emit({ type: 'hangup', reason, summary });
    this.events.complete();
    if (!byCaller) this.transport.hangup(reason);
    this.resolveSummary(summary);
  }
}
