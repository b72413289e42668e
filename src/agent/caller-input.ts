import { context } from '@opentelemetry/api';
import { defer, type Observable } from 'rxjs';
import type { VoiceEvent } from '../pipeline/utterances.js';
import type { ActiveReply } from './active-reply.js';
import type { CallTimers } from './call-timers.js';
import { utteranceAudio } from './caller-voice.js';
import type { DialogueOutput } from './contracts.js';
import type { AgentReply } from './reply.js';
import type { ReplyTools } from './reply-tools.js';
import type { ResolvedAgentOptions } from './resolve-options.js';
import type { AgentSpeaking, CallCore } from './agent-speaking.js';
import { childSpan } from './tracing.js';
import { UtteranceState } from './utterance-state.js';

/**
 * What the caller says or keys on a call: each utterance from speech start to final transcript, and
 * keypad entries; a final transcript or a completed entry becomes the caller's turn, answered by the agent.
 */
export class CallerInput {
  /** The caller's latest utterance. */
  private utterance: UtteranceState | undefined;
  private readonly utterances = new Set<UtteranceState>();

  constructor(
    private readonly core: CallCore,
    private readonly speaking: AgentSpeaking,
    private readonly timers: () => CallTimers | undefined,
  ) {}

  /** What recognition has heard so far of the caller's latest utterance. */
  get interim(): string {
    return this.utterance?.interim ?? '';
  }

  /** The recogniser's provider said the caller stopped, after the words heard so far. */
  get endOfSpeech(): boolean {
    return this.utterance?.endOfSpeech === true;
  }

  /** A voice event; `voice$` is the call's voice stream and `options` what utterances see (the call's own `stt`). */
  onVoice(event: VoiceEvent, voice$: Observable<VoiceEvent>, options: ResolvedAgentOptions): void {
    if (this.core.isEnded()) return;
    if (event.type === 'speech-start') this.onSpeechStart(event, voice$, options);
    else if (event.type === 'speech-audio') this.utterance?.onAudio(event);
    else this.utterance?.onEnd(event);
  }

  /** A keypad key: a completed entry is the caller's turn, interrupting the agent as speech would. */
  onKey(digit: string): void {
    if (this.core.isEnded()) return;
    const digits = this.core.listening.press(digit);
    if (digits === undefined) return;
    if (this.speaking.current) this.speaking.interrupt();
    const active = this.speaking.createReply((tools) => this.respond(digits, undefined, tools), this.core.callCtx, 'turn');
    this.takeTurn(active, digits, undefined);
    active.reply.start();
  }

  /** The caller's latest utterance no longer counts (the agent says goodbye). */
  abandonLatest(): void {
    this.utterance?.abandon();
  }

  /** The call ended: every utterance still being recognised is dropped. */
  abandonAll(): void {
    for (const state of this.utterances) state.abandon();
    this.utterances.clear();
  }

  private onSpeechStart(event: Extract<VoiceEvent, { type: 'speech-start' }>, voice$: Observable<VoiceEvent>, options: ResolvedAgentOptions): void {
    const core = this.core;
    const speaking = this.speaking;
    core.emit({ type: 'user-started-speaking', atMs: event.atMs });
    this.timers()?.callerSpoke();
    const turn = childSpan(options.tracer, 'turn', core.callCtx);
    context.with(turn.ctx, () => options.tts.prepare?.({ sampleRate: core.transport.playoutRate }));
    const state = new UtteranceState(
      { options, tracker: core.tracker, turnSpan: turn.span, turnCtx: turn.ctx, agent: () => speaking.current },
      {
        pause: () => speaking.pause(),
        resume: () => speaking.resume(),
        interrupt: () => speaking.interrupt(),
        transcript: (text, final) => core.emit({ type: 'transcript', text, final }),
        stopped: (atMs) => core.emit({ type: 'user-stopped-speaking', atMs }),
        preempt: (text, state) => this.preempt(text, state),
        final: (state) => this.onFinal(state),
        failed: (error) => {
          this.utterances.delete(state);
          core.fail('asr', error);
          speaking.sayFailure('asr');
        },
      },
      utteranceAudio(voice$, event.utterance),
    );
    this.utterance = state;
    this.utterances.add(state);
    state.start();
  }

  /** Low-latency mode: start the reply on a stable interim; it plays only if the final says the same. */
  private preempt(text: string, state: UtteranceState): AgentReply | undefined {
    if (this.speaking.current) return undefined;
    this.speaking.pendingPreemptive?.reply.cancel();
    const reply = this.speaking.createReply((tools) => this.respond(text, undefined, tools), state.turnCtx, 'turn', state, undefined, true);
    reply.reply.start(true);
    return reply.reply;
  }

  private onFinal(state: UtteranceState): void {
    this.utterances.delete(state);
    const text = state.finalText.trim();
    if (text && (state.interrupted || !this.speaking.current)) {
      this.startTurn(state);
      return;
    }
    if (this.speaking.pendingPreemptive?.utterance === state) this.speaking.pendingPreemptive.reply.cancel();
    state.discard();
    if (!this.speaking.current) this.core.awaitCaller();
  }

  /** `expected`: how the final was heard (undefined for keyed entries and interims). */
  private respond(userText: string, expected: boolean | undefined, tools: ReplyTools): Observable<DialogueOutput> {
    const core = this.core;
    const history = [...core.history];
    const speculative = tools.speculative;
    const heard = expected === undefined ? {} : { expected };
    return defer(() => core.options.dialogue.respond({ history, userText, callId: core.traceId, ...heard, ...(speculative ? { speculative } : {}) }));
  }

  private startTurn(state: UtteranceState): void {
    const speaking = this.speaking;
    const text = state.finalText.trim();
    const held = state.preemptiveReply;
    let active: ActiveReply;
    // A reply started on an interim was made without knowing how the final was heard: it stands only for a
    // final heard as expected or without expectations.
    if (held && state.preemptiveText === text && state.finalExpected !== false && speaking.pendingPreemptive?.reply === held) {
      active = speaking.pendingPreemptive;
      active.report.metrics.preemptive = true;
      active.tools.keep();
    } else {
      speaking.pendingPreemptive?.reply.cancel();
      active = speaking.createReply((tools) => this.respond(text, state.finalExpected, tools), state.turnCtx, 'turn', state);
      active.reply.start(true);
    }
    speaking.pendingPreemptive = undefined;
    state.consumed = true;
    this.takeTurn(active, text, state.finalExpected);
    active.report.metrics.endOfSpeechToFinalMs = state.asrMs;
    active.report.metrics.endpointingMs = state.endpointingMs;
    if (state.finalProvider) active.report.metrics.sttProvider = state.finalProvider;
    if (state.charge !== undefined) active.report.metrics.sttCharge = state.charge;
    active.reply.play();
  }

  /** The caller's `text` (spoken or keyed) is their turn; `active` answers it. */
  private takeTurn(active: ActiveReply, text: string, expected: boolean | undefined): void {
    this.speaking.makeCurrent(active);
    active.report.userText = text;
    this.core.history.push({ role: 'user', text, ...(expected === undefined ? {} : { expected }) });
    this.core.listening.listen();
    this.timers()?.callerTookTurn();
  }
}
