import { noAnswers, yesAnswers } from '../../src/agent/index.js';
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
  /**
   * A caller turn heard outside the expectations whose slot values would have been acted on: the agent asked
   * the caller to confirm them, and takes the turn on a yes.
   */
  unconfirmed?: string;
}

/** How the caller's turn was heard. */
export interface Heard {
  /**
   * False when the turn was recognised with expectations but came out as open vocabulary, outside them: slot
   * values it gives are confirmed before they are acted on. Undefined (or true): it is taken as heard.
   */
  expected?: boolean;
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

/** A turn taken as heard, and the values of the slots it gave, as they are said ("4192, go"). */
interface Understood {
  outcome: TurnOutcome;
  values: string;
}

export const defaults = {
  /** Minimum intent score (0..1) when the script sets none. */
  threshold: 0.6,
  fallback: "Sorry, I didn't catch that. Could you say it another way?",
  reprompt: 'Are you still there?',
  /** State changes allowed in one turn before the script is judged to loop. */
  maxHops: 20,
  confirm: 'Did you say {heard}?',
};

const oneWord = (answers: readonly string[]) => answers.filter((answer) => !answer.includes(' '));
/** The caller's answer to a confirmation: the answers a `yes-no` expectation listens for. */
const confirmationMatcher = new IntentMatcher({
  yes: { examples: [...yesAnswers], keywords: oneWord(yesAnswers) },
  no: { examples: [...noAnswers, 'no it is not'], keywords: oneWord(noAnswers) },
});

interface TurnDraft {
  state: string;
  slots: Record<string, SlotValue>;
  awaiting?: string;
  parts: string[];
  actions: ScriptAction[];
  endReason?: string;
  hops: string[];
  /** Slots given by this turn. */
  filled: string[];
}

/** Runs a validated script: one caller utterance and a conversation state in, the reply and the next state out. */
export class ScriptStateMachine {
  private readonly matcher: IntentMatcher;
  private readonly threshold: number;

  /**
   * `handedOff`: states whose turns another runner takes (a flow's LLM states): entering one says its `say`
   * and stops there, without asking for slots or taking `then`.
   */
  constructor(
    readonly script: DialogueScript,
    matcherOptions: Partial<IntentMatcherOptions> = {},
    private readonly handedOff: (state: string) => boolean = () => false,
  ) {
    this.matcher = new IntentMatcher(script.intents, script.synonyms, matcherOptions);
    this.threshold = script.threshold ?? defaults.threshold;
  }

  /** The state before the caller speaks, and what the agent says first (greeting, then the start state's lines). */
  start(): { state: ConversationState; opening: string } {
    const draft: TurnDraft = { state: this.script.start, slots: {}, parts: [], actions: [], hops: [], filled: [] };
    if (this.script.greeting) draft.parts.push(this.render(this.script.greeting, draft.slots, 0));
    this.enter(this.script.start, draft, 0);
    return { state: this.finish(draft, 0, 0).next, opening: draft.parts.join(' ') };
  }

  /** Takes `outcome` (reply, action, clear, end, goto) in `current`, as if a transition chose it. */
  follow(current: ConversationState, outcome: Outcome): TurnOutcome {
    const draft: TurnDraft = { state: current.state, slots: { ...current.slots }, parts: [], actions: [], hops: [current.state], filled: [] };
    if (current.awaiting !== undefined) draft.awaiting = current.awaiting;
    this.apply(outcome, draft, current.turns, '');
    return this.finish(draft, current.turns, draft.state === current.state ? current.misses : 0);
  }

  /**
   * One caller turn. A turn heard outside the expectations (`heard.expected === false`) that gives slot values
   * and would act on them (an action or the end of the call) does nothing yet: the agent asks whether it
   * understood them right (`confirm`), takes the turn on a yes, asks again on a no; any other answer is a new
   * turn. Slots are asked for with closed expectations (digits, a choice), so words outside them there are
   * likely misheard; intents are expected as their example phrases, which callers' own wording normally falls
   * outside of, so a turn that acts on an intent alone goes on as heard.
   */
  step(current: ConversationState, userText: string, lastAgentText = '', heard: Heard = {}): TurnOutcome {
    if (current.unconfirmed !== undefined) return this.confirmation(current, userText, lastAgentText, heard);
    return this.confirmFirst(current, userText, lastAgentText, heard, 0);
  }

  /** The turn, or when it is unsure and would act on slot values, the `confirm` question (variant `asked`). */
  private confirmFirst(current: ConversationState, userText: string, lastAgentText: string, heard: Heard, asked: number): TurnOutcome {
    const understood = this.understand(current, userText, lastAgentText);
    const acts = understood.outcome.actions.length > 0 || understood.outcome.endReason !== undefined;
    if (heard.expected !== false || !acts || !understood.values) return understood.outcome;
    const question = this.pick(this.script.confirm ?? defaults.confirm, asked);
    return { next: { ...current, turns: current.turns + 1, unconfirmed: userText }, reply: renderTemplate(question, { ...current.slots, heard: understood.values }), actions: [] };
  }

  /** The caller's answer to `confirm`: yes takes the unconfirmed turn, no asks again, anything else is a new turn. */
  private confirmation(current: ConversationState, userText: string, lastAgentText: string, heard: Heard): TurnOutcome {
    const { unconfirmed, ...before } = current;
    const [answer] = confirmationMatcher.rank(userText);
    const said = answer && answer.score >= this.threshold ? answer.intent : undefined;
    if (said === 'yes') return this.understand(before, unconfirmed!, lastAgentText).outcome;
    if (said !== 'no') return this.confirmFirst(before, userText, lastAgentText, heard, 1);
    const state = this.stateNamed(before.state);
    const asked = state.collect?.find((item) => item.slot === before.awaiting);
    const again = asked?.prompt ?? state.fallback ?? this.script.fallback ?? defaults.fallback;
    return { next: { ...before, turns: current.turns + 1 }, reply: this.render(again, before.slots, 0), actions: [] };
  }

  /** The turn taken as heard, and the slot values it gave. */
  private understand(current: ConversationState, userText: string, lastAgentText: string): Understood {
    const turn = current.turns + 1;
    if (current.ended) return { outcome: { next: { ...current, turns: turn }, reply: '', actions: [], endReason: 'the call has ended' }, values: '' };
    const draft: TurnDraft = { state: current.state, slots: { ...current.slots }, parts: [], actions: [], hops: [current.state], filled: [] };
    if (current.awaiting !== undefined) draft.awaiting = current.awaiting;
    const state = this.stateNamed(current.state);
    const tokens = tokenize(userText);
    const { chosen, best } = this.transitionFor(current.state, userText);
    const collected = (state.collect ?? []).map((item) => item.slot);
    if (chosen) {
      this.fill(tokens, [...collected, ...this.script.intents[chosen.intent]!.slots], draft);
      const values = this.filledValues(draft);
      this.apply(chosen, draft, turn, lastAgentText);
      return { outcome: { ...this.finish(draft, turn, 0), intent: { name: chosen.intent, score: best } }, values };
    }
    if (this.fill(tokens, collected, draft) > 0) {
      const values = this.filledValues(draft);
      this.continueForm(current.state, draft, turn);
      return { outcome: this.finish(draft, turn, 0), values };
    }
    const misses = current.misses + 1;
    const escalation = state.escalate ?? this.script.escalate;
    if (escalation && misses >= escalation.after) {
      this.apply(escalation, draft, turn, lastAgentText);
      return { outcome: this.finish(draft, turn, draft.state === current.state && !draft.endReason ? misses : 0), values: '' };
    }
    const fallback = state.fallback ?? this.script.fallback ?? defaults.fallback;
    draft.parts.push(this.render(fallback, draft.slots, misses - 1, true));
    const asked = state.collect?.find((item) => item.slot === current.awaiting);
    if (!state.fallback && asked?.prompt) draft.parts.push(this.render(asked.prompt, draft.slots, 0));
    return { outcome: this.finish(draft, turn, misses), values: '' };
  }

  /** True when the caller's words match one of the state's `on:` intents (or a `global` one) well enough to take it. */
  matchesIntent(current: ConversationState, userText: string): boolean {
    return this.transitionFor(current.state, userText).chosen !== undefined;
  }

  /** The state's best-scoring `on:` or `global` transition at or above the threshold, if any. */
  private transitionFor(stateName: string, userText: string) {
    const state = this.stateNamed(stateName);
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
    return { chosen, best };
  }

  /** The values of the slots this turn gave, as they are said ("4192", "go"), in the order given. */
  private filledValues(draft: TurnDraft): string {
    return draft.filled.map((slot) => renderTemplate(`{${slot}}`, draft.slots)).join(', ');
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
        draft.filled.push(name);
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
    if (!this.handedOff(name)) this.continueForm(name, draft, turn);
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
    return renderTemplate(this.pick(lines, index, clamp), slots);
  }

  private pick(lines: Lines, index: number, clamp = false): string {
    if (typeof lines === 'string') return lines;
    return lines[clamp ? Math.min(index, lines.length - 1) : index % lines.length]!;
  }
}
