import { context, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import { defer, Observable, Subject, tap, type Subscription } from 'rxjs';
import type { VoiceActivityDetector } from '../engines/index.js';
import type { VoiceEvent } from '../pipeline/utterances.js';
import { WorkTracker } from '../pipeline/work.js';
import type { CallSpeechToText, ConversationMessage, DialogueOutput, SpeechToText, Transport } from './contracts.js';
import { inStage, type TurnStageError } from './errors.js';
import type { AgentEvent, SessionSummary, TurnReport } from './events.js';
import { CallRecord } from './call-report.js';
import { CallTimers } from './call-timers.js';
import { callerVoice, utteranceAudio } from './caller-voice.js';
import { AgentReply } from './reply.js';
import type { ResolvedAgentOptions } from './resolve-options.js';
import { CallListening, defaults as listeningDefaults } from './listening.js';
import { callParentContext, childSpan, setMetricAttributes } from './tracing.js';
import { UtteranceState } from './utterance-state.js';

type ReplyKind = 'greeting' | 'turn' | 'reprompt' | 'fallback' | 'goodbye';

interface ActiveReply {
  reply: AgentReply;
  kind: ReplyKind;
  report: TurnReport;
  turnSpan: Span;
  utterance?: UtteranceState;
  endAfter: boolean;
}

/** One call: caller audio in, turns out, until hangup. Created by `VoiceAgent.handle`. */
export class CallSession {
  readonly events$: Observable<AgentEvent>;
  readonly summary: Promise<SessionSummary>;
  readonly history: ConversationMessage[] = [];
  readonly traceId: string;
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
  private listening = new CallListening(undefined);
  private voice$: Observable<VoiceEvent> | undefined;
  private current: ActiveReply | undefined;
  private utterance: UtteranceState | undefined;
  private timers: CallTimers | undefined;
  private ended = false;

  constructor(
    private readonly options: ResolvedAgentOptions,
    private readonly transport: Transport,
  ) {
    this.events$ = this.events.asObservable();
    this.summary = new Promise((resolve) => (this.resolveSummary = resolve));
    const parent = callParentContext(transport.traceContext);
    const call = childSpan(options.tracer, 'call', parent, { 'shoal.mode': options.mode, 'shoal.dialogue': options.dialogue.name });
    this.callSpan = call.span;
    this.callCtx = call.ctx;
    this.traceId = trace.getSpanContext(call.ctx)!.traceId;
    this.record = new CallRecord(this.traceId, options.clock.now());
    this.utteranceOptions = options;
  }

  /** Resolves when no engine, dialogue or synthesis work is in flight (for drivers with a virtual clock). */
  async settled(): Promise<void> {
    for (;;) {
      await this.tracker.idle();
      await new Promise((resolve) => setImmediate(resolve));
      if (this.tracker.pending === 0) return;
    }
  }

  get isEnded(): boolean {
    return this.ended;
  }

  start(): void {
    const o = this.options;
    try {
      this.callStt = o.stt.forCall?.({ callerSampleRate: () => this.callerSampleRate });
    } catch (error) {
      this.fail('asr', error);
      this.end('speech recognition unavailable');
      return;
    }
    const stt: SpeechToText = this.callStt ?? o.stt;
    this.utteranceOptions = { ...o, stt };
    this.listening = new CallListening(this.callStt, { ...listeningDefaults, ...o.listening });
    try {
      this.vad = o.vad();
    } catch (error) {
      this.fail('vad', error);
      this.end('voice activity detector unavailable');
      return;
    }
    const audio$ = this.transport.audio$.pipe(tap((frame) => (this.callerSampleRate ??= frame.sampleRate)));
    const endpointMs = o.modeSettings.endpointSilenceMs;
    const silenceMs = () => this.listening.endpointSilenceMs(endpointMs, this.utterance?.interim ?? '');
    this.voice$ = callerVoice(audio$, this.vad, o.clock, this.tracker, { ...o.voice, minSilenceMs: endpointMs }, silenceMs);
    this.subscriptions.push(
      this.voice$.subscribe({
        next: (event) => this.guard('asr', () => this.onVoice(event)),
        error: (error: unknown) => {
          this.fail('transport', error);
          this.end('caller audio failed');
        },
        complete: () => this.end('caller hung up'),
      }),
      this.transport.events$.subscribe((event) => {
        if (event.type === 'hangup') this.end(event.reason ?? 'caller hung up');
        if (event.type === 'dtmf') this.onKey(event.digit);
      }),
    );
    this.timers = new CallTimers(o.clock, o, {
      reprompt: () => {
        if (!this.current) this.say(o.dialogue.reprompt?.(this.history) ?? o.repromptLine, 'reprompt');
      },
      goodbye: (reason) => this.sayGoodbye(reason),
    });
    this.listen();
    const greeting = o.greet ? o.dialogue.greeting?.() : undefined;
    if (greeting && !this.ended) this.say(greeting, 'greeting');
    else this.armSilenceTimer();
  }

  hangup(reason = 'agent hung up'): void {
    this.end(reason);
  }

  private onVoice(event: VoiceEvent): void {
    if (this.ended) return;
    if (event.type === 'speech-start') this.onSpeechStart(event);
    else if (event.type === 'speech-audio') this.utterance?.onAudio(event);
    else this.utterance?.onEnd(event);
  }

  private onSpeechStart(event: Extract<VoiceEvent, { type: 'speech-start' }>): void {
    const o = this.options;
    this.emit({ type: 'user-started-speaking', atMs: event.atMs });
    this.timers?.callerSpoke();
    const turn = childSpan(o.tracer, 'turn', this.callCtx);
    context.with(turn.ctx, () => o.tts.prepare?.());
    const frames$ = utteranceAudio(this.voice$!, event.utterance);
    const state = new UtteranceState(
      {
        options: this.utteranceOptions,
        tracker: this.tracker,
        turnSpan: turn.span,
        turnCtx: turn.ctx,
        agent: () => this.current,
      },
      {
        pause: () => this.pauseAgent(),
        resume: () => this.resumeAgent(),
        interrupt: () => this.interruptAgent(),
        transcript: (text, final) => this.emit({ type: 'transcript', text, final }),
        stopped: (atMs) => this.emit({ type: 'user-stopped-speaking', atMs }),
        preempt: (text, state) => this.preempt(text, state),
        final: (state) => this.onFinal(state),
        failed: (error) => {
          this.utterances.delete(state);
          this.fail('asr', error);
          this.say(o.fallbackLine, 'fallback');
        },
      },
      frames$,
    );
    this.utterance = state;
    this.utterances.add(state);
    state.start();
  }

  private readonly utterances = new Set<UtteranceState>();

  private pauseAgent(): void {
    const active = this.current;
    if (!active || !active.reply.hasStarted) return;
    active.reply.pause();
    this.emit({ type: 'agent-paused', turn: active.report.turn });
  }

  private resumeAgent(): void {
    const active = this.current;
    if (!active) return;
    active.reply.resume();
    this.emit({ type: 'agent-resumed', turn: active.report.turn });
  }

  private interruptAgent(): void {
    const active = this.current;
    if (!active) return;
    this.current = undefined;
    const heard = active.reply.heardText();
    active.reply.cancel();
    this.transport.clear();
    this.record.interruptions++;
    this.emit({ type: 'interrupted', turn: active.report.turn, playedText: heard });
    this.emit({ type: 'agent-stopped-speaking', turn: active.report.turn, interrupted: true });
    this.history.push({ role: 'agent', text: heard, interrupted: true });
    active.report.interrupted = true;
    active.report.metrics.interrupted = true;
    this.finishReport(active, heard);
  }

  /** Low-latency mode: start the reply on a stable interim; it plays only if the final says the same. */
  private preempt(text: string, state: UtteranceState): AgentReply | undefined {
    if (this.current) return undefined;
    this.pendingPreemptive?.reply.cancel();
    const reply = this.createReply(this.respond(text), state.turnCtx, 'turn', state);
    reply.reply.start(true);
    return reply.reply;
  }

  private onFinal(state: UtteranceState): void {
    this.utterances.delete(state);
    const text = state.finalText.trim();
    if (text && (state.interrupted || !this.current)) {
      this.startTurn(state);
      return;
    }
    state.discard();
    if (!this.current) this.armSilenceTimer();
  }

  private respond(userText: string): Observable<DialogueOutput> {
    const history = [...this.history];
    return defer(() => this.options.dialogue.respond({ history, userText }));
  }

  private startTurn(state: UtteranceState): void {
    const text = state.finalText.trim();
    const held = state.preemptiveReply;
    let active: ActiveReply;
    if (held && state.preemptiveText === text && this.pendingPreemptive?.reply === held) {
      active = this.pendingPreemptive;
      active.report.metrics.preemptive = true;
    } else {
      this.pendingPreemptive?.reply.cancel();
      active = this.createReply(this.respond(text), state.turnCtx, 'turn', state);
      active.reply.start(true);
    }
    this.pendingPreemptive = undefined;
    state.consumed = true;
    this.takeTurn(active, text);
    active.report.metrics.endOfSpeechToFinalMs = state.asrMs;
    active.report.metrics.endpointingMs = state.endpointingMs;
    active.reply.play();
  }

  /** The caller's `text` (spoken or keyed) is their turn; `active` answers it. */
  private takeTurn(active: ActiveReply, text: string): void {
    this.makeCurrent(active);
    active.report.user_text = text;
    this.history.push({ role: 'user', text });
    this.listen();
    this.timers?.callerTookTurn();
  }

  /** Tells recognition and endpointing what the caller is expected to say next. */
  private listen(reply?: AgentReply): void {
    const expectations = reply?.expectations ?? this.options.dialogue.expectations?.(this.history);
    this.listening.expect(expectations);
    this.emit({ type: 'expecting', ...(this.listening.expectations ? { expectations: this.listening.expectations } : {}) });
  }

  /** A keypad key: a completed entry is the caller's turn, interrupting the agent as speech would. */
  private onKey(digit: string): void {
    if (this.ended) return;
    this.emit({ type: 'dtmf', digit });
    const digits = this.listening.press(digit);
    if (digits === undefined) return;
    this.emit({ type: 'keypad-entry', digits });
    if (this.current) this.interruptAgent();
    const active = this.createReply(this.respond(digits), this.callCtx, 'turn');
    this.takeTurn(active, digits);
    active.reply.start();
  }

  private pendingPreemptive: ActiveReply | undefined;

  /** A reply; `continues` is a failed reply whose turn this one (a fallback line) completes. */
  private createReply(
    outputs$: Observable<DialogueOutput>,
    parent: Context,
    kind: ReplyKind,
    utterance?: UtteranceState,
    continues?: ActiveReply,
  ): ActiveReply {
    const o = this.options;
    utterance ??= continues?.utterance;
    const turnSpan = continues?.turnSpan ?? utterance?.turnSpan ?? childSpan(o.tracer, 'turn', this.callCtx, { 'shoal.kind': kind }).span;
    const ctx = continues || !utterance ? trace.setSpan(this.callCtx, turnSpan) : parent;
    const report: TurnReport = continues?.report ?? { turn: 0, user_text: '', agent_text: '', interrupted: false, metrics: { interrupted: false } };
    let active!: ActiveReply;
    const reply = new AgentReply(
      { tts: o.tts, sink: this.transport, clock: o.clock, tracker: this.tracker, tracer: o.tracer, chunking: { firstChunk: o.modeSettings.firstChunk }, playout: o.playout },
      outputs$,
      ctx,
      {
        firstAudio: (atMs) => {
          this.emit({ type: 'agent-started-speaking', turn: report.turn, atMs });
          if (utterance?.endpoint) report.metrics.voiceToVoiceMs = utterance.voiceToVoiceMs();
        },
        finished: () => {
          if (this.current !== active) return;
          this.current = undefined;
          this.history.push({ role: 'agent', text: reply.text.trim() });
          this.listen(reply);
          this.emit({ type: 'agent-stopped-speaking', turn: report.turn, interrupted: false });
          this.finishReport(active, reply.text.trim());
          if (reply.endCall || active.endAfter) this.end(reply.endCall ?? 'agent ended the call', false);
          else this.armSilenceTimer();
        },
        failed: (error) => {
          if (this.current !== active) return;
          this.current = undefined;
          this.fail(error.stage, error);
          turnSpan.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
          if (kind === 'fallback' || kind === 'goodbye') {
            this.finishReport(active, reply.heardText());
            if (active.endAfter) this.end('agent ended the call', false);
            else this.armSilenceTimer();
          } else this.say(o.fallbackLine, 'fallback', active);
        },
        toolCall: (call) => this.emit({ type: 'tool-call', name: call.name, arguments: call.arguments, result: call.result }),
      },
    );
    active = { reply, kind, report, turnSpan, utterance, endAfter: kind === 'goodbye' };
    if (kind === 'turn' && utterance) this.pendingPreemptive = active;
    return active;
  }

  private finishReport(active: ActiveReply, agentText: string): void {
    this.record.close(active.report, active.reply, agentText, active.turnSpan, active.utterance?.finalWall);
    this.emit({ type: 'turn-metrics', report: active.report });
  }

  private say(text: string, kind: ReplyKind, continues?: ActiveReply): void {
    if (this.ended) return;
    const active = this.createReply(
      new Observable<DialogueOutput>((subscriber) => {
        subscriber.next({ type: 'text', delta: text });
        subscriber.complete();
      }),
      this.callCtx,
      kind,
      undefined,
      continues,
    );
    this.makeCurrent(active);
    active.reply.start();
  }

  /** The reply becomes what the agent says now (cancelling any other) and gets its turn number. */
  private makeCurrent(active: ActiveReply): void {
    if (this.current && this.current !== active) {
      const previous = this.current;
      this.current = undefined;
      const heard = previous.reply.heardText();
      previous.reply.cancel();
      if (previous.reply.hasStarted) this.transport.clear();
      this.finishReport(previous, heard);
    }
    if (active.kind !== 'greeting') this.record.number(active.report);
    this.current = active;
  }

  private sayGoodbye(reason: string): void {
    if (this.ended) return;
    this.utterance?.abandon();
    this.say(this.options.goodbyeLine, 'goodbye');
    this.callSpan.setAttribute('shoal.goodbye_reason', reason);
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
    this.callSpan.addEvent('error', { 'shoal.stage': stage, 'exception.message': failure.message });
    this.emit({ type: 'error', stage, message: failure.message });
  }

  private emit(event: AgentEvent): void {
    if (!this.events.closed) this.events.next(event);
  }

  private end(reason: string, byCaller = true): void {
    if (this.ended) return;
    this.ended = true;
    this.timers?.stop();
    for (const state of this.utterances) state.abandon();
    this.utterances.clear();
    this.pendingPreemptive?.reply.cancel();
    const active = this.current;
    this.current = undefined;
    if (active) {
      const heard = active.reply.heardText();
      active.reply.cancel();
      this.finishReport(active, heard);
    }
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.vad?.release();
    this.callStt?.release();
    const summary = this.record.summary(reason, this.options.clock.now());
    setMetricAttributes(this.callSpan, 'shoal', { turns: summary.turns.length, interruptions: summary.interruptions, errors: summary.errors, duration_ms: summary.durationMs });
    this.callSpan.setAttribute('shoal.hangup_reason', reason);
    this.callSpan.end();
    this.emit({ type: 'hangup', reason, summary });
    this.events.complete();
    if (!byCaller) this.transport.hangup(reason);
    this.resolveSummary(summary);
  }
}
