import { context, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import { defer, Observable, of, Subject, tap, type Subscription } from 'rxjs';
import type { VoiceActivityDetector } from '../engines/index.js';
import type { VoiceEvent } from '../pipeline/utterances.js';
import { WorkTracker } from '../pipeline/work.js';
import type { CallSpeechToText, ConversationMessage, DialogueOutput, SpeechToText, Transport } from './contracts.js';
import { inStage, type TurnStageError } from './errors.js';
import type { AgentEvent, SessionSummary, TurnReport } from './events.js';
import { CallRecord, newTurnReport } from './call-report.js';
import { CallTimers } from './call-timers.js';
import { callerVoice, utteranceAudio } from './caller-voice.js';
import { FailurePolicy } from './failure-policy.js';
import type { ActiveReply, ReplyKind } from './active-reply.js';
import { AgentReply } from './reply.js';
import { ReplyTools } from './reply-tools.js';
import type { ResolvedAgentOptions } from './resolve-options.js';
import { SessionListening } from './session-listening.js';
import { callParentContext, childSpan } from './tracing.js';
import { UtteranceState } from './utterance-state.js';
import { spanAttributes } from '../tracing/index.js';

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
  private readonly listening: SessionListening;
  private voice$: Observable<VoiceEvent> | undefined;
  private current: ActiveReply | undefined;
  private utterance: UtteranceState | undefined;
  private timers: CallTimers | undefined;
  private ended = false;
  private readonly failures: FailurePolicy;
  private replies = 0;

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
    this.failures = new FailurePolicy(options.failures);
    const dialogue = options.dialogue;
    this.listening = new SessionListening(dialogue.expectations && ((history) => dialogue.expectations!(history)), this.history, (event) => this.emit(event));
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
      this.callStt = o.stt.forCall?.({ callerSampleRate: () => this.callerSampleRate });
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
        const reaction$ = event.type === 'answered-by' ? o.dialogue.answeredBy?.(event.answeredBy, [...this.history]) : undefined;
        if (reaction$) this.sayOutputs(() => reaction$);
      }),
    );
    this.timers = new CallTimers(o.clock, o, {
      reprompt: () => {
        if (!this.current) this.say(o.dialogue.reprompt?.(this.history) ?? o.repromptLine, 'reprompt');
      },
      goodbye: (reason) => this.sayGoodbye(reason),
    });
    this.listening.start(this.callStt, o.listening);
    const greeting = o.greet ? o.dialogue.greeting?.() : undefined;
    if (greeting && !this.ended) this.say(greeting, 'greeting');
    else this.armSilenceTimer();
  }

  hangup(reason = 'agent hung up'): void {
    this.end(reason);
  }

  /** What the caller has heard so far of the reply the agent is playing; `undefined` while the agent is silent. */
  heardAgentText(): string | undefined {
    return this.current?.reply.hasStarted ? this.current.reply.heardText() : undefined;
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
          this.sayFailure('asr');
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
    this.history.push(...active.tools.history(active.reply.text, heard, true));
    active.report.interrupted = true;
    active.report.metrics.interrupted = true;
    this.finishReport(active, heard);
  }

  /** Low-latency mode: start the reply on a stable interim; it plays only if the final says the same. */
  private preempt(text: string, state: UtteranceState): AgentReply | undefined {
    if (this.current) return undefined;
    this.pendingPreemptive?.reply.cancel();
    const reply = this.createReply((tools) => this.respond(text, tools), state.turnCtx, 'turn', state, undefined, true);
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
    if (this.pendingPreemptive?.utterance === state) this.pendingPreemptive.reply.cancel();
    state.discard();
    if (!this.current) this.armSilenceTimer();
  }

  private respond(userText: string, tools: ReplyTools): Observable<DialogueOutput> {
    const history = [...this.history];
    const speculative = tools.speculative;
    return defer(() => this.options.dialogue.respond({ history, userText, callId: this.traceId, ...(speculative ? { speculative } : {}) }));
  }

  private startTurn(state: UtteranceState): void {
    const text = state.finalText.trim();
    const held = state.preemptiveReply;
    let active: ActiveReply;
    if (held && state.preemptiveText === text && this.pendingPreemptive?.reply === held) {
      active = this.pendingPreemptive;
      active.report.metrics.preemptive = true;
      active.tools.keep();
    } else {
      this.pendingPreemptive?.reply.cancel();
      active = this.createReply((tools) => this.respond(text, tools), state.turnCtx, 'turn', state);
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
    active.report.userText = text;
    this.history.push({ role: 'user', text });
    this.listening.listen();
    this.timers?.callerTookTurn();
  }

  /** A keypad key: a completed entry is the caller's turn, interrupting the agent as speech would. */
  private onKey(digit: string): void {
    if (this.ended) return;
    const digits = this.listening.press(digit);
    if (digits === undefined) return;
    if (this.current) this.interruptAgent();
    const active = this.createReply((tools) => this.respond(digits, tools), this.callCtx, 'turn');
    this.takeTurn(active, digits);
    active.reply.start();
  }

  private pendingPreemptive: ActiveReply | undefined;

  /** A reply; `continues` is a failed reply whose turn this one (a fallback line) completes. */
  private createReply(
    outputs: (tools: ReplyTools) => Observable<DialogueOutput>,
    parent: Context,
    kind: ReplyKind,
    utterance?: UtteranceState,
    continues?: ActiveReply,
    speculative = false,
  ): ActiveReply {
    const o = this.options;
    utterance ??= continues?.utterance;
    const turnSpan = continues?.turnSpan ?? utterance?.turnSpan ?? childSpan(o.tracer, 'turn', this.callCtx, { [spanAttributes.turnKind]: kind }).span;
    const ctx = continues || !utterance ? trace.setSpan(this.callCtx, turnSpan) : parent;
    const report: TurnReport = continues?.report ?? newTurnReport();
    let active!: ActiveReply;
    const tools = new ReplyTools(++this.replies, speculative, () => report.turn || undefined, (event) => this.emit(event), (fate) => this.tracker.waitingFor(fate));
    const reply = new AgentReply(
      { tts: o.tts, sink: this.transport, clock: o.clock, tracker: this.tracker, tracer: o.tracer, chunking: { firstChunk: o.modeSettings.firstChunk }, playout: o.playout },
      outputs(tools),
      ctx,
      {
        firstAudio: (atMs) => {
          this.emit({ type: 'agent-started-speaking', turn: report.turn, atMs });
          if (utterance?.endpoint) report.metrics.voiceToVoiceMs = utterance.voiceToVoiceMs();
        },
        finished: () => {
          if (this.current !== active) return;
          this.current = undefined;
          this.history.push(...tools.history(reply.text, reply.text, false));
          if (kind === 'turn') this.failures.succeeded();
          this.listening.listen(reply.expectations);
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
          } else this.sayFailure(error.stage, active);
        },
        toolCall: (call, atText) => tools.record(call, atText),
        closed: () => tools.discard(),
      },
    );
    active = { reply, kind, report, turnSpan, utterance, endAfter: kind === 'goodbye', tools };
    if (kind === 'turn' && utterance) this.pendingPreemptive = active;
    return active;
  }

  private finishReport(active: ActiveReply, agentText: string): void {
    this.record.close(active.report, active.reply, agentText, active.turnSpan, active.utterance?.finalWall);
    this.emit({ type: 'turn-metrics', report: active.report });
  }

  private say(text: string, kind: ReplyKind, continues?: ActiveReply): void {
    this.sayOutputs(() => of<DialogueOutput>({ type: 'text', delta: text }), kind, continues);
  }

  /** Says what a dialogue produced outside a turn (a line of its own, a reaction to a call event). */
  private sayOutputs(outputs: ((tools: ReplyTools) => Observable<DialogueOutput>) | undefined, kind: ReplyKind = 'turn', continues?: ActiveReply): void {
    if (this.ended || !outputs) return;
    const active = this.createReply(outputs, this.callCtx, kind, undefined, continues);
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

  /** A failed turn: the stage's unavailable line, or the hang-up line when failures keep coming. */
  private sayFailure(stage: TurnStageError['stage'], continues?: ActiveReply): void {
    const verdict = this.failures.failed(stage, this.callSpan);
    this.emit({ type: 'assistant-unavailable', ...verdict });
    this.say(verdict.line, verdict.hangup ? 'goodbye' : 'fallback', continues);
  }

  private sayGoodbye(reason: string): void {
    if (this.ended) return;
    this.utterance?.abandon();
    this.say(this.options.goodbyeLine, 'goodbye');
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
