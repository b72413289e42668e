import { SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import { of, type Observable } from 'rxjs';
import type { WorkTracker } from '../pipeline/work.js';
import { spanAttributes } from '../tracing/index.js';
import type { ActiveReply, ReplyKind } from './active-reply.js';
import type { CallRecord } from './call-report.js';
import { newTurnReport } from './call-report.js';
import type { ConversationMessage, DialogueOutput, Transport } from './contracts.js';
import type { TurnStageError } from './errors.js';
import type { AgentEvent, TurnReport } from './events.js';
import { FailurePolicy } from './failure-policy.js';
import { AgentReply } from './reply.js';
import { ReplyTools } from './reply-tools.js';
import type { ResolvedAgentOptions } from './resolve-options.js';
import type { AgentListening } from './agent-listening.js';
import { childSpan } from './tracing.js';
import type { UtteranceState } from './utterance-state.js';

/** What the parts of one call session share: the call's settings, record and span, and its way out. */
export interface CallCore {
  readonly options: ResolvedAgentOptions;
  readonly transport: Transport;
  readonly tracker: WorkTracker;
  readonly record: CallRecord;
  readonly history: ConversationMessage[];
  readonly listening: AgentListening;
  readonly callSpan: Span;
  readonly callCtx: Context;
  readonly traceId: string;
  isEnded(): boolean;
  emit(event: AgentEvent): void;
  fail(stage: TurnStageError['stage'], error: unknown): void;
  end(reason: string, byCaller: boolean): void;
  /** The agent stopped speaking: wait for the caller (silence timeout, reprompts). */
  awaitCaller(): void;
}

/** What the agent is saying on a call: its replies, their playout, pauses and interruptions, and each turn's report. */
export class AgentSpeaking {
  /** The reply the agent is speaking now. */
  current: ActiveReply | undefined;
  /** A turn's reply started before its final transcript (preemptive) that has not been played yet. */
  pendingPreemptive: ActiveReply | undefined;
  private readonly failures: FailurePolicy;
  private replies = 0;

  constructor(private readonly core: CallCore) {
    this.failures = new FailurePolicy(core.options.failures);
  }

  /** What the caller has heard so far of the current reply; `undefined` while the agent is silent. */
  heardText(): string | undefined {
    return this.current?.reply.hasStarted ? this.current.reply.heardText() : undefined;
  }

  pause(): void {
    const active = this.current;
    if (!active || !active.reply.hasStarted) return;
    active.reply.pause();
    this.core.emit({ type: 'agent-paused', turn: active.report.turn });
  }

  resume(): void {
    const active = this.current;
    if (!active) return;
    active.reply.resume();
    this.core.emit({ type: 'agent-resumed', turn: active.report.turn });
  }

  interrupt(): void {
    const active = this.current;
    if (!active) return;
    const core = this.core;
    this.current = undefined;
    const heard = active.reply.heardText();
    active.reply.cancel();
    core.transport.clear();
    core.record.interruptions++;
    core.emit({ type: 'interrupted', turn: active.report.turn, playedText: heard });
    core.emit({ type: 'agent-stopped-speaking', turn: active.report.turn, interrupted: true });
    core.history.push(...active.tools.history(active.reply.text, heard, true));
    active.report.interrupted = true;
    active.report.metrics.interrupted = true;
    this.finishReport(active, heard);
    // A goodbye the caller talks over still ends the call: nothing else would (no turn, no timer left).
    if (active.endAfter) core.end('agent ended the call', false);
  }

  /** A reply; `continues` is a failed reply whose turn this one (a fallback line) completes. */
  createReply(
    outputs: (tools: ReplyTools) => Observable<DialogueOutput>,
    parent: Context,
    kind: ReplyKind,
    utterance?: UtteranceState,
    continues?: ActiveReply,
    speculative = false,
  ): ActiveReply {
    const core = this.core;
    const o = core.options;
    utterance ??= continues?.utterance;
    const turnSpan = continues?.turnSpan ?? utterance?.turnSpan ?? childSpan(o.tracer, 'turn', core.callCtx, { [spanAttributes.turnKind]: kind }).span;
    const ctx = continues || !utterance ? trace.setSpan(core.callCtx, turnSpan) : parent;
    const report: TurnReport = continues?.report ?? newTurnReport();
    let active!: ActiveReply;
    const tools = new ReplyTools(++this.replies, speculative, () => report.turn || undefined, (event) => core.emit(event), (fate) => core.tracker.waitingFor(fate));
    const reply = new AgentReply(
      { tts: o.tts, sink: core.transport, sampleRate: core.transport.playoutRate, clock: o.clock, tracker: core.tracker, tracer: o.tracer, chunking: { firstChunk: o.modeSettings.firstChunk }, playout: o.playout },
      outputs(tools),
      ctx,
      {
        firstAudio: (atMs) => {
          core.emit({ type: 'agent-started-speaking', turn: report.turn, atMs });
          if (utterance?.endpoint) report.metrics.voiceToVoiceMs = utterance.voiceToVoiceMs();
        },
        finished: () => {
          if (this.current !== active) return;
          this.current = undefined;
          core.history.push(...tools.history(reply.text, reply.text, false));
          if (kind === 'turn') this.failures.succeeded();
          core.listening.listen(reply.expectations);
          core.emit({ type: 'agent-stopped-speaking', turn: report.turn, interrupted: false });
          this.finishReport(active, reply.text.trim());
          if (reply.endCall || active.endAfter) core.end(reply.endCall ?? 'agent ended the call', false);
          else core.awaitCaller();
        },
        failed: (error) => {
          if (this.current !== active) return;
          this.current = undefined;
          core.fail(error.stage, error);
          turnSpan.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
          if (kind === 'fallback' || kind === 'goodbye') {
            this.finishReport(active, reply.heardText());
            if (active.endAfter) core.end('agent ended the call', false);
            else core.awaitCaller();
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

  say(text: string, kind: ReplyKind, continues?: ActiveReply): void {
    this.sayOutputs(() => of<DialogueOutput>({ type: 'text', delta: text }), kind, continues);
  }

  /** Says what a dialogue produced outside a turn (a line of its own, a reaction to a call event). */
  sayOutputs(outputs: ((tools: ReplyTools) => Observable<DialogueOutput>) | undefined, kind: ReplyKind = 'turn', continues?: ActiveReply): void {
    if (this.core.isEnded() || !outputs) return;
    const active = this.createReply(outputs, this.core.callCtx, kind, undefined, continues);
    this.makeCurrent(active);
    active.reply.start();
  }

  /** The reply becomes what the agent says now (cancelling any other) and gets its turn number. */
  makeCurrent(active: ActiveReply): void {
    if (this.current && this.current !== active) {
      const previous = this.current;
      this.current = undefined;
      const heard = previous.reply.heardText();
      previous.reply.cancel();
      if (previous.reply.hasStarted) this.core.transport.clear();
      this.finishReport(previous, heard);
    }
    if (active.kind !== 'greeting') this.core.record.number(active.report);
    this.current = active;
  }

  /** A failed turn: the stage's unavailable line, or the hang-up line when failures keep coming. */
  sayFailure(stage: TurnStageError['stage'], continues?: ActiveReply): void {
    const verdict = this.failures.failed(stage, this.core.callSpan);
    this.core.emit({ type: 'assistant-unavailable', ...verdict });
    this.say(verdict.line, verdict.hangup ? 'goodbye' : 'fallback', continues);
  }

  /** The call ended: whatever is playing or prepared stops, and its turn's report closes. */
  stop(): void {
    this.pendingPreemptive?.reply.cancel();
    const active = this.current;
    this.current = undefined;
    if (active) {
      const heard = active.reply.heardText();
      active.reply.cancel();
      this.finishReport(active, heard);
    }
  }

  private finishReport(active: ActiveReply, agentText: string): void {
    this.core.record.close(active.report, active.reply, agentText, active.turnSpan, active.utterance?.finalWall);
    this.core.emit({ type: 'turn-metrics', report: active.report });
  }
}
