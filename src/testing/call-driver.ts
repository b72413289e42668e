import type { CallSession, VoiceAgent } from '../agent/index.js';
import { VirtualClock } from '../pipeline/index.js';
import { formatTraceparent, newSpanId, newTraceId } from '../tracing/index.js';
import { agentTurns, turnMs, type AgentTurn, type CallLog, type Conversation, type StepWindow, type TimedEvent } from './call-log.js';
import type { Clip } from './caller-audio.js';
import type { CallerModel } from './caller-model.js';
import { LineConditions, type SentFrame } from './conditions.js';
import { BrowserLine } from './browser-line.js';
import type { Spurt } from './heard-audio.js';
import type { Line } from './line.js';
import { dialects, MediaStreamLine } from './media-stream-line.js';
import type { Scenario } from './scenario.js';
import type { Step } from './schema.js';

export const driverDefaults = {
  frameMs: 20,
  /** A key press: its tone's length and the pause after it. */
  keyMs: 250,
  /** The caller waits at most this long for the agent to finish before doing the next step anyway. */
  maxWaitMs: 60_000,
  /** After the last step, the caller listens this long before hanging up (to catch a late hang-up or transfer). */
  tailMs: 1_500,
};

/** Keys of a step's `expect` that are about the agent's reply: the caller waits for one. */
const replyKeys = ['says', 'within_ms', 'tool', 'action', 'heard', 'interrupted', 'judge'] as const;

/** The clips of a scenario's steps, made before the call (by step index). */
export type StepClips = ReadonlyMap<number, Clip>;

/** A simulated caller: its model, its voice (a line to a clip at the line's rate) and its ear (agent audio to words). */
export interface SimulatedCaller {
  model: CallerModel;
  maxTurns: number;
  speak(text: string): Promise<Clip>;
  hear(samples: Int16Array, sampleRate: number): Promise<string>;
}

/**
 * Puts one scenario's caller through `agent` on a media-stream line, on a virtual clock: 20 ms caller frames,
 * each followed by the agent settling (no engine work in flight), so time moves as fast as the CPU allows and
 * every timing is exact. Returns the call's log; the checks read it afterwards.
 */
export class CallDriver {
  private readonly clock = new VirtualClock();
  private readonly line: Line;
  private readonly session: CallSession;
  private readonly conditions: LineConditions;
  private readonly events: TimedEvent[] = [];
  private readonly windows: StepWindow[] = [];
  private readonly traceparent = formatTraceparent({ traceId: newTraceId(), parentId: newSpanId(), flags: 1 });
  private readonly callerPieces: Array<{ atMs: number; samples: Int16Array }> = [];
  private inFlight: SentFrame[] = [];
  private speaking = 0;
  private pending: Int16Array | undefined;
  private pendingOffset = 0;
  private conversation: Conversation | undefined;

  constructor(
    agent: VoiceAgent,
    private readonly scenario: Scenario,
    private readonly clips: StepClips,
    seed: number,
    private readonly caller?: SimulatedCaller,
  ) {
    const parameters = { traceparent: this.traceparent };
    this.line = scenario.line === 'browser' ? new BrowserLine(this.clock, parameters) : new MediaStreamLine(dialects[scenario.line], this.clock, parameters);
    const speechRms = Math.max(0, ...[...clips.values()].map((clip) => clip.speechRms));
    this.conditions = new LineConditions(scenario.conditions, seed, speechRms || 3000);
    this.session = agent.handle(this.line.transport, { clock: this.clock });
    this.session.events$.subscribe((event) => {
      this.events.push({ atMs: this.clock.now(), event });
      if (event.type === 'agent-started-speaking') this.speaking++;
      if (event.type === 'agent-stopped-speaking') this.speaking = Math.max(0, this.speaking - 1);
    });
  }

  private get now(): number {
    return this.clock.now();
  }

  private get ended(): boolean {
    return this.session.isEnded || !this.line.isOpen;
  }

  /** Runs the call; whatever happens, the call is hung up and its engines released before this returns or throws. */
  async run(): Promise<CallLog> {
    try {
      return await this.call();
    } finally {
      if (!this.session.isEnded) this.session.hangup('the scenario runner stopped the call');
      if (this.line.isOpen) this.line.hangUp();
    }
  }

  private async call(): Promise<CallLog> {
    await this.settle();
    if (this.caller) await this.converse(this.caller);
    for (const [index, step] of this.scenario.steps.entries()) {
      if (this.ended) break;
      await this.runStep(index, step, this.scenario.steps[index + 1]);
    }
    if (!this.ended) {
      await this.waitFor(() => this.idle(), driverDefaults.maxWaitMs);
      await this.advance(driverDefaults.tailMs);
    }
    return this.finish();
  }

  /** The caller hangs up (unless the agent did) and the call's log is made. */
  private async finish(): Promise<CallLog> {
    const endedBy = this.ended ? 'agent' : 'caller';
    if (!this.ended) this.line.hangUp();
    const summary = await this.session.summary;
    await this.settle();
    const endMs = this.now;
    const previous = this.windows.at(-1);
    if (previous) previous.endMs = endMs;
    return {
      events: this.events,
      turns: agentTurns(this.events),
      windows: this.windows,
      spurts: this.line.heard.spurts,
      summary,
      endedBy,
      endMs,
      traceparent: this.traceparent,
      sampleRate: this.line.sampleRate,
      callerTrack: this.track(this.callerPieces, endMs),
      agentTrack: this.track(this.line.heard.pieces, endMs),
      sentMessages: { ...this.line.sent },
      ...(this.conversation ? { conversation: this.conversation } : {}),
    };
  }

  /**
   * The simulated caller's conversation: it waits for the agent's turn to end, hears it (the agent's audio as the
   * speech service recognises it), asks its model what to say, says it; until its model ends the conversation, the
   * agent ends the call, or it has spoken `maxTurns` times. The clock stands still while the caller thinks.
   */
  private async converse(caller: SimulatedCaller): Promise<void> {
    const conversation: Conversation = { turns: [], ending: 'max_turns' };
    this.conversation = conversation;
    let since = 0;
    for (;;) {
      await this.waitFor(() => this.turnSince(since) !== undefined, this.scenario.replyTimeoutMs);
      await this.waitFor(() => this.idle(), driverDefaults.maxWaitMs);
      const last = conversation.turns.at(-1)?.window;
      if (last) last.endMs = this.now;
      if (this.ended) {
        conversation.ending = 'agent_ended';
        return;
      }
      const heard = await caller.hear(this.heardSince(since), this.line.sampleRate);
      const turn: Conversation['turns'][number] = { heard, heardAtMs: this.now };
      conversation.turns.push(turn);
      if (conversation.turns.length > caller.maxTurns) return;
      const move = await caller.model.next(heard);
      if ('end' in move) {
        conversation.ending = move.end;
        conversation.reason = move.reason;
        if (move.say === undefined) return;
      }
      const said = 'end' in move ? move.say! : move.say;
      const clip = await caller.speak(said);
      await this.advance(this.scenario.caller.gapMs);
      if (this.ended) return;
      const window: StepWindow = { step: -1, startMs: this.now, actionStartMs: this.now, endMs: this.now, action: `said "${said}"` };
      turn.said = said;
      turn.window = window;
      since = this.now;
      await this.playClip(clip, window);
      if ('end' in move) {
        await this.waitFor(() => this.turnSince(since) !== undefined, window.voiceEndMs! - this.now + this.scenario.replyTimeoutMs);
        await this.waitFor(() => this.idle(), driverDefaults.maxWaitMs);
        window.endMs = this.now;
        return;
      }
    }
  }

  /** The agent audio the caller heard from `fromMs` on, end to end. */
  private heardSince(fromMs: number): Int16Array {
    const pieces = this.line.heard.pieces.filter((piece) => piece.atMs >= fromMs);
    const out = new Int16Array(pieces.reduce((sum, piece) => sum + piece.samples.length, 0));
    let offset = 0;
    for (const piece of pieces) {
      out.set(piece.samples, offset);
      offset += piece.samples.length;
    }
    return out;
  }

  /** `next`: a next step that barges in on this step's reply is started while the reply plays. */
  private async runStep(index: number, step: Step, next: Step | undefined): Promise<void> {
    const previous = this.windows.at(-1);
    if (previous) previous.endMs = this.now;
    const window: StepWindow = { step: index, startMs: this.now, endMs: this.now };
    this.windows.push(window);
    const acts = step.say !== undefined || step.play !== undefined || step.dtmf !== undefined || step.silence_ms !== undefined;
    if (acts) {
      if (step.interrupt_after_ms !== undefined) await this.waitToInterrupt(window, step.interrupt_after_ms);
      else {
        await this.waitFor(() => this.idle(), driverDefaults.maxWaitMs);
        await this.advance(this.scenario.caller.gapMs);
      }
      if (this.ended) return;
      window.actionStartMs = this.now;
      await this.act(index, step, window);
    }
    const expect = step.expect ?? {};
    if (expect.no_reply_ms !== undefined) await this.advance(expect.no_reply_ms);
    const waitsForReply = replyKeys.some((key) => expect[key] !== undefined) || step.say !== undefined || step.play !== undefined || step.dtmf !== undefined;
    if (waitsForReply && !this.ended) {
      const from = window.actionStartMs ?? window.startMs;
      const deadline = (window.voiceEndMs ?? this.now) + this.scenario.replyTimeoutMs;
      if (next?.interrupt_after_ms !== undefined) {
        // The next step barges in on this reply: wait only until the caller hears it begin (and a frame more,
        // so that the reply's start lies in this step's window).
        await this.waitFor(() => this.heardTurnSince(from) !== undefined, deadline - this.now);
        if (!this.ended) await this.tick();
        return;
      }
      await this.waitFor(() => this.turnSince(from) !== undefined, deadline - this.now);
      if (this.turnSince(from)) await this.waitFor(() => this.idle(), driverDefaults.maxWaitMs);
    }
  }

  private async act(index: number, step: Step, window: StepWindow): Promise<void> {
    const clip = this.clips.get(index);
    if (clip) {
      window.action = step.say !== undefined ? `said "${step.say}"` : `played ${step.play}`;
      await this.playClip(clip, window);
    } else if (step.dtmf !== undefined) {
      window.action = `pressed ${step.dtmf}`;
      for (const digit of step.dtmf.toUpperCase()) {
        this.line.pressKey(digit);
        window.voiceEndMs = this.now;
        await this.advance(driverDefaults.keyMs);
      }
    } else if (step.silence_ms !== undefined) {
      window.action = `silent ${step.silence_ms} ms`;
      await this.advance(step.silence_ms);
    }
  }

  private async playClip(clip: Clip, window: StepWindow): Promise<void> {
    window.voiceEndMs = this.now + clip.voiceEndMs;
    this.pending = clip.samples;
    this.pendingOffset = 0;
    while (this.pending && !this.ended) await this.tick();
  }

  /**
   * Waits for the agent's next turn to be heard (the reply to the previous step, which may be playing already),
   * then `afterMs` into it (the caller barges in).
   */
  private async waitToInterrupt(window: StepWindow, afterMs: number): Promise<void> {
    const previous = this.windows.at(-2);
    const since = previous ? (previous.actionStartMs ?? previous.startMs) : this.now;
    await this.waitFor(() => this.heardTurnSince(since) !== undefined, this.scenario.replyTimeoutMs);
    const started = this.heardTurnSince(since);
    if (!started) {
      window.problem = `the agent did not start a turn within ${this.scenario.replyTimeoutMs} ms to interrupt`;
      return;
    }
    await this.waitFor(() => this.now >= started.startMs + afterMs, afterMs + driverDefaults.frameMs);
    window.bargedTurn = this.currentTurn();
  }

  /** The first audio the caller heard of the first agent turn that started at or after `fromMs`. */
  private heardTurnSince(fromMs: number): Spurt | undefined {
    const turn = agentTurns(this.events).find((candidate) => candidate.startMs !== undefined && candidate.startMs >= fromMs);
    return turn && this.line.heard.spurts.find((spurt) => spurt.startMs >= turn.startMs!);
  }

  private currentTurn(): AgentTurn | undefined {
    const turns = agentTurns(this.events);
    return turns.findLast((turn) => turn.startMs !== undefined && turn.stopMs === undefined) ?? turns.at(-1);
  }

  private turnSince(fromMs: number): AgentTurn | undefined {
    return agentTurns(this.events).find((turn) => turnMs(turn) >= fromMs && turnMs(turn) !== Infinity);
  }

  /** The agent is not speaking and the caller has heard all it sent. */
  private idle(): boolean {
    return this.speaking === 0 && this.now >= this.line.heard.endMs;
  }

  private async waitFor(done: () => boolean, maxMs: number): Promise<void> {
    const until = this.now + Math.max(0, maxMs);
    while (!done() && !this.ended && this.now < until) await this.tick();
  }

  private async advance(ms: number): Promise<void> {
    const until = this.now + ms;
    while (!this.ended && this.now < until) await this.tick();
  }

  /** 20 ms of the call: the caller's next frame (or silence) goes out, the clock moves, the agent settles. */
  private async tick(): Promise<void> {
    const frameMs = driverDefaults.frameMs;
    const frameSamples = (this.line.sampleRate * frameMs) / 1000;
    const sentMs = this.now;
    const samples = new Int16Array(frameSamples);
    if (this.pending) {
      samples.set(this.pending.subarray(this.pendingOffset, this.pendingOffset + frameSamples));
      this.pendingOffset += frameSamples;
      if (this.pendingOffset >= this.pending.length) this.pending = undefined;
    }
    const carried = this.conditions.carry(samples, sentMs, frameMs);
    this.callerPieces.push({ atMs: sentMs, samples: carried.samples });
    this.inFlight.push(carried);
    this.clock.advanceTo(sentMs + frameMs);
    this.line.playUntil(this.now);
    const arrived = this.inFlight.filter((frame) => frame.arriveMs <= this.now);
    this.inFlight = this.inFlight.filter((frame) => frame.arriveMs > this.now);
    for (const frame of arrived) this.line.deliver(frame.samples);
    await this.settle();
  }

  /** No engine work in flight and the agent's audio sent on the line: the call may move on. */
  private async settle(): Promise<void> {
    await this.session.settled();
    await this.line.playoutSent();
  }

  private track(pieces: ReadonlyArray<{ atMs: number; samples: Int16Array }>, endMs: number): Int16Array {
    const rate = this.line.sampleRate;
    const track = new Int16Array(Math.ceil((endMs * rate) / 1000));
    for (const piece of pieces) {
      const start = Math.round((piece.atMs * rate) / 1000);
      if (start < track.length) track.set(piece.samples.subarray(0, track.length - start), start);
    }
    return track;
  }
}
