import { Observable } from 'rxjs';
import type { ConversationMessage, Dialogue, DialogueInput, DialogueOutput, Expectation } from '../../src/agent/index.js';
import { streamOutputs, textOutputs } from '../word-stream.js';
import type { DialogueScript } from './script-schema.js';
import { loadScript } from './script-loader.js';
import { ScriptStateMachine, type ConversationState, type Heard, type TurnOutcome } from './script-state-machine.js';
import type { IntentMatcherOptions } from './intent-matcher.js';
import { scriptExpectations } from './script-expectations.js';

export interface ScriptedDialogueOptions {
  /** Name reported by `Dialogue.name`; the script's name when omitted. */
  name?: string;
  /** Pause between streamed words, ms; the script's `wordIntervalMs`, else 0 (each word on its own macrotask). */
  wordIntervalMs?: number;
  matcher?: Partial<IntentMatcherOptions>;
}

/**
 * A `Dialogue` driven by a script of states, intents, slots and replies.
 *
 * The conversation state is recomputed from the caller turns in `history` (memoised), never kept from a previous
 * `respond()`: a reply cancelled by barge-in, or a preemptive reply restarted on a different final transcript,
 * leaves nothing behind. Callers therefore pass the full history, without the current `userText`.
 */
export class ScriptedDialogue implements Dialogue {
  readonly name: string;
  private readonly machine: ScriptStateMachine;
  private readonly initial: { state: ConversationState; opening: string };
  private readonly wordIntervalMs: number;
  readonly repromptAfterMs?: number;
  /** States after each caller turn of the last history seen: `replayed[i]` follows `userTurns[i]`. */
  private userTurns: CallerTurn[] = [];
  private replayed: ConversationState[] = [];

  constructor(readonly script: DialogueScript, options: ScriptedDialogueOptions = {}) {
    this.name = options.name ?? script.name;
    this.machine = new ScriptStateMachine(script, options.matcher);
    this.initial = this.machine.start();
    this.wordIntervalMs = options.wordIntervalMs ?? script.wordIntervalMs ?? 0;
    if (script.repromptAfterMs !== undefined) this.repromptAfterMs = script.repromptAfterMs;
  }

  greeting(): string | undefined {
    return this.initial.opening || undefined;
  }

  reprompt(history: readonly ConversationMessage[]): string | undefined {
    return this.machine.reprompt(this.stateAfter(history));
  }

  /** What the caller may say next, derived from the state the script is in (see `scriptExpectations`). */
  expectations(history: readonly ConversationMessage[]): Expectation[] | undefined {
    return scriptExpectations(this.script, this.stateAfter(history));
  }

  /** The conversation state after the caller turns in `history`. */
  stateAfter(history: readonly ConversationMessage[]): ConversationState {
    const turns = history.filter((m) => m.role === 'user').map((m) => callerTurn(m.text, m.expected));
    let same = 0;
    while (same < turns.length && same < this.userTurns.length && sameTurn(turns[same]!, this.userTurns[same]!)) same++;
    const states = this.replayed.slice(0, same);
    let state = same > 0 ? states[same - 1]! : this.initial.state;
    for (let i = same; i < turns.length; i++) {
      state = this.machine.step(state, turns[i]!.text, '', turns[i]!.heard).next;
      states.push(state);
    }
    this.userTurns = turns;
    this.replayed = states;
    return state;
  }

  /** Runs one caller turn without streaming: what `respond` would say and do. */
  decide(input: DialogueInput): TurnOutcome {
    let history = input.history;
    const last = history[history.length - 1];
    if (last?.role === 'user' && last.text === input.userText) history = history.slice(0, -1);
    const lastAgent = [...history].reverse().find((m) => m.role === 'agent')?.text ?? this.initial.opening;
    const before = this.stateAfter(history);
    const turn = callerTurn(input.userText, input.expected);
    const outcome = this.machine.step(before, turn.text, lastAgent, turn.heard);
    this.userTurns = [...this.userTurns, turn];
    this.replayed = [...this.replayed, outcome.next];
    return outcome;
  }

  respond(input: DialogueInput): Observable<DialogueOutput> {
    return new Observable<DialogueOutput>((subscriber) => {
      const outcome = this.decide(input);
      const outputs: DialogueOutput[] = outcome.actions.map((a) => ({ type: 'tool-call', name: a.name, arguments: a.arguments }));
      outputs.push(...textOutputs(outcome.reply));
      if (outcome.endReason !== undefined) outputs.push({ type: 'end-call', reason: outcome.endReason });
      return streamOutputs(outputs, this.wordIntervalMs).subscribe(subscriber);
    });
  }
}

/** A caller turn as the script replays it: what was said, and whether it was heard as expected. */
interface CallerTurn {
  text: string;
  heard: Heard;
}

function callerTurn(text: string, expected: boolean | undefined): CallerTurn {
  return { text, heard: expected === undefined ? {} : { expected } };
}

function sameTurn(a: CallerTurn, b: CallerTurn): boolean {
  return a.text === b.text && a.heard.expected === b.heard.expected;
}

/** Reads a JSON or YAML script file and builds a `ScriptedDialogue` from it; throws a clear error naming any bad field. */
export function loadScriptedDialogue(file: string, options: ScriptedDialogueOptions = {}): ScriptedDialogue {
  return new ScriptedDialogue(loadScript(file), options);
}
