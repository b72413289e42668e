import type { DialogueScript, Lines, Outcome, ScriptState } from './script-schema.js';
import { IntentMatcher, type IntentMatcherOptions } from './intent-matcher.js';
import { extractSlot } from './slot-extractors.js';
import { renderTemplate, renderValue, type SlotValue } from './template.js';
import { tokenize } from './text-normalizer.js';
import { ScriptLoopError } from './errors.js';

export interface ConversationState {
  /** The state the script is in, waiting for the caller. */
  state: string;
  slots: Readonly<Record<string, SlotValue>>;
  /** Consecutive turns in this state that matched nothing. */
  misses: number;
  /** The slot the agent last asked for, if it is waiting for one. */
  awaiting?: string;
  ended: boolean;
  /** Caller turns handled so far (picks among reply variants). */
  turns: number;
}

export interface ScriptAction {
  name: string;
  arguments: Record<string, unknown>;
}

export interface TurnOutcome {
  next: ConversationState;
  reply: string;
  actions: ScriptAction[];
  /** Set when the call should end after the reply: the reason. */
  endReason?: string;
  /** The intent taken and its score, when one matched. */
  intent?: { name: string; score: number };
}

export const defaults = {
  /** Minimum intent score (0..1) when the script sets none. */
  threshold: 0.6,
  fallback: "Sorry, I didn't catch that. Could you say it another way?",
  reprompt: 'Are you still there?',
  /** State changes allowed in one turn before the script is judged to loop. */
  maxHops: 20,
};

interface TurnDraft {
  state: string;
  slots: Record<string, SlotValue>;
  awaiting?: string;
  parts: string[];
  actions: ScriptAction[];
  endReason?: string;
  hops: string[];
}

/** Runs a validated script: one caller utterance and a conversation state in, the reply and the next state out. */
export class ScriptStateMachine {
  private readonly matcher: IntentMatcher;
  private readonly threshold: number;

  constructor(readonly script: DialogueScript, matcherOptions: Partial<IntentMatcherOptions> = {}) {
    this.matcher = new IntentMatcher(script.intents, script.synonyms, matcherOptions);
    this.threshold = script.threshold ?? defaults.threshold;
  }

  /** The state before the caller speaks, and what the agent says first (greeting, then the start state's lines). */
  start(): { state: ConversationState; opening: string } {
    const draft: TurnDraft = { state: this.script.start, slots: {}, parts: [], actions: [], hops: [] };
    if (this.script.greeting) draft.parts.push(this.render(this.script.greeting, draft.slots, 0));
    this.enter(this.script.start, draft, 0);
    return { state: this.finish(draft, 0, 0).next, opening: draft.parts.join(' ') };
  }

  step(current: ConversationState, userText: string, lastAgentText = ''): TurnOutcome {
    const turn = current.turns + 1;
    if (current.ended) return { next: { ...current, turns: turn }, reply: '', actions: [], endReason: 'the call has ended' };
    const draft: TurnDraft = { state: current.state, slots: { ...current.slots }, parts: [], actions: [], hops: [current.state] };
    if (current.awaiting !== undefined) draft.awaiting = current.awaiting;
    const state = this.stateNamed(current.state);
    const tokens = tokenize(userText);
    const transitions = [...(state.on ?? []), ...(this.script.global ?? [])];
    const scores = new Map(this.matcher.rank(userText, transitions.map((t) => t.intent)).map((s) => [s.intent, s.score]));

    let chosen: (typeof transitions)[number] | undefined;
    let best = 0;
    for (const transition of transitions) {
      const score = scores.get(transition.intent) ?? 0;
      if (score >= this.threshold && score > best) {
        chosen = transition;
        best = score;
      }
    }
    const collected = (state.collect ?? []).map((item) => item.slot);
    if (chosen) {
      this.fill(tokens, [...collected, ...this.script.intents[chosen.intent]!.slots], draft);
      this.apply(chosen, draft, turn, lastAgentText);
      return { ...this.finish(draft, turn, 0), intent: { name: chosen.intent, score: best } };
    }
    if (this.fill(tokens, collected, draft) > 0) {
      this.continueForm(current.state, draft, turn);
      return this.finish(draft, turn, 0);
    }
    const misses = current.misses + 1;
    const escalation = state.escalate ?? this.script.escalate;
    if (escalation && misses >= escalation.after) {
      this.apply(escalation, draft, turn, lastAgentText);
      return this.finish(draft, turn, draft.state === current.state && !draft.endReason ? misses : 0);
    }
    const fallback = state.fallback ?? this.script.fallback ?? defaults.fallback;
    draft.parts.push(this.render(fallback, draft.slots, misses - 1, true));
    const asked = state.collect?.find((item) => item.slot === current.awaiting);
    if (!state.fallback && asked?.prompt) draft.parts.push(this.render(asked.prompt, draft.slots, 0));
    return this.finish(draft, turn, misses);
  }

  /** The line to say when the caller has gone quiet in `current`. */
  reprompt(current: ConversationState): string | undefined {
    if (current.ended) return undefined;
    const state = this.stateNamed(current.state);
    if (state.reprompt) return this.render(state.reprompt, current.slots, current.turns);
    const asked = state.collect?.find((item) => item.slot === current.awaiting);
    if (asked?.prompt) return this.render(asked.prompt, current.slots, 0);
    return this.render(this.script.reprompt ?? defaults.reprompt, current.slots, current.turns);
  }

  private stateNamed(name: string): ScriptState {
    const state = this.script.states[name];
    if (!state) throw new Error(`script "${this.script.name}" has no state "${name}"`);
    return state;
  }

  /** Fills the named slots the utterance mentions; returns how many it filled. */
  private fill(tokens: readonly string[], names: readonly string[], draft: TurnDraft): number {
    let filled = 0;
    for (const name of new Set(names)) {
      const value = extractSlot(tokens, this.script.slots[name]!, draft.awaiting === name);
      if (value !== undefined) {
        draft.slots[name] = value;
        filled += 1;
      }
    }
    return filled;
  }

  private apply(outcome: Outcome, draft: TurnDraft, turn: number, lastAgentText: string): void {
    if (outcome.repeat && lastAgentText) draft.parts.push(lastAgentText);
    for (const slot of outcome.clear ?? []) delete draft.slots[slot];
    if (outcome.action) {
      const args: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(outcome.action.arguments ?? {})) {
        const rendered = typeof value === 'string' ? renderValue(value, draft.slots) : value;
        if (rendered !== undefined) args[key] = rendered;
      }
      draft.actions.push({ name: outcome.action.name, arguments: args });
    }
    if (outcome.reply) draft.parts.push(this.render(outcome.reply, draft.slots, turn));
    if (outcome.end) {
      draft.endReason = typeof outcome.end === 'string' ? outcome.end : 'script ended the call';
      return;
    }
    if (outcome.goto) this.enter(outcome.goto, draft, turn);
  }

  private enter(name: string, draft: TurnDraft, turn: number): void {
    draft.hops.push(name);
    if (draft.hops.length > defaults.maxHops) throw new ScriptLoopError(draft.hops);
    draft.state = name;
    delete draft.awaiting;
    const state = this.stateNamed(name);
    if (state.say) draft.parts.push(this.render(state.say, draft.slots, turn));
    this.continueForm(name, draft, turn);
  }

  /** Asks for the first missing slot, or once all are filled takes the state's `then`. */
  private continueForm(name: string, draft: TurnDraft, turn: number): void {
    const state = this.stateNamed(name);
    const collect = state.collect ?? [];
    const missing = collect.find((item) => draft.slots[item.slot] === undefined && item.prompt !== undefined);
    if (missing) {
      draft.awaiting = missing.slot;
      draft.parts.push(this.render(missing.prompt!, draft.slots, turn));
      return;
    }
    delete draft.awaiting;
    for (const item of collect) {
      if (draft.slots[item.slot] === undefined && item.default !== undefined) draft.slots[item.slot] = item.default;
    }
    if (state.then) this.apply(state.then, draft, turn, '');
  }

  private finish(draft: TurnDraft, turn: number, misses: number): TurnOutcome {
    const next: ConversationState = {
      state: draft.state,
      slots: draft.slots,
      misses: draft.state === draft.hops[0] ? misses : 0,
      ended: draft.endReason !== undefined,
      turns: turn,
      ...(draft.awaiting !== undefined ? { awaiting: draft.awaiting } : {}),
    };
    const outcome: TurnOutcome = { next, reply: draft.parts.join(' ').trim(), actions: draft.actions };
    if (draft.endReason !== undefined) outcome.endReason = draft.endReason;
    return outcome;
  }

  /** Renders one line; with variants, picks by `index` (cycling, or the last one when `clamp`). */
  private render(lines: Lines, slots: Readonly<Record<string, SlotValue>>, index: number, clamp = false): string {
    if (typeof lines === 'string') return renderTemplate(lines, slots);
    const i = clamp ? Math.min(index, lines.length - 1) : index % lines.length;
    return renderTemplate(lines[i]!, slots);
  }
}
