import type { ConversationMessage, DialogueOutput, SpeculativeTurn } from './contracts.js';
import type { AgentEvent } from './events.js';

type ToolCallOutput = Extract<DialogueOutput, { type: 'tool-call' }>;
type ToolCallEvent = Extract<AgentEvent, { type: 'tool-call' }>;

interface RecordedCall {
  output: ToolCallOutput;
  /** Length of the reply's text when the call came: where it sits between the words. */
  atText: number;
}

/**
 * The tool calls of one reply and, for a speculative reply, its fate. Tool-call events of a speculative reply
 * are held until it is kept or discarded, so each says whether it counted; the dialogue learns the fate
 * through `speculative.kept` and holds back side effects until then.
 */
export class ReplyTools {
  readonly speculative: SpeculativeTurn | undefined;
  private readonly calls: RecordedCall[] = [];
  private fate: 'pending' | 'kept' | 'discarded';
  private settle: (kept: boolean) => void = () => undefined;

  /**
   * `waiting` wraps the wait for a speculative reply's fate (the session's work tracker does not count it as
   * work, so a virtual clock can move on to the final transcript).
   */
  constructor(
    readonly reply: number,
    speculative: boolean,
    private readonly turn: () => number | undefined,
    private readonly emit: (event: ToolCallEvent) => void,
    waiting: (fate: Promise<boolean>) => Promise<boolean> = (fate) => fate,
  ) {
    this.fate = speculative ? 'pending' : 'kept';
    const fate = new Promise<boolean>((resolve) => (this.settle = resolve));
    this.speculative = speculative ? { kept: () => (this.fate === 'pending' ? waiting(fate) : fate) } : undefined;
  }

  record(output: ToolCallOutput, atText: number): void {
    this.calls.push({ output, atText });
    if (this.fate !== 'pending') this.report(output);
  }

  /** The final transcript confirmed the reply: held tool calls are reported as kept. */
  keep(): void {
    this.decide('kept');
  }

  /** The reply was thrown away (a no-op once kept). */
  discard(): void {
    this.decide('discarded');
  }

  /**
   * The reply's part of the conversation: its text up to what the caller heard, with the tool calls placed
   * where they came. Tool calls after the heard text stay (they ran), the words after it do not.
   */
  history(text: string, heard: string, interrupted: boolean): ConversationMessage[] {
    const heardLength = interrupted ? heardPrefixLength(text, heard) : text.length;
    const messages: ConversationMessage[] = [];
    let from = 0;
    const say = (to: number) => {
      const end = Math.min(to, heardLength);
      const part = text.slice(from, end).trim();
      if (part) messages.push({ role: 'agent', text: part });
      from = Math.max(from, end);
    };
    for (const { output, atText } of this.calls) {
      say(atText);
      const { id, name, arguments: args, result, error } = output;
      const tool = { id: id ?? `call_${this.reply}_${messages.length}`, name, arguments: args, ...(result !== undefined ? { result } : {}), ...(error ? { error } : {}) };
      messages.push({ role: 'tool', text: error ?? JSON.stringify(result ?? null), tool });
    }
    say(Number.POSITIVE_INFINITY);
    const last = messages.at(-1);
    if (interrupted && last?.role === 'agent') last.interrupted = true;
    else if (interrupted || messages.length === 0) messages.push({ role: 'agent', text: '', ...(interrupted ? { interrupted } : {}) });
    return messages;
  }

  private decide(fate: 'kept' | 'discarded'): void {
    if (this.fate !== 'pending') return;
    this.fate = fate;
    this.settle(fate === 'kept');
    for (const { output } of this.calls) this.report(output);
  }

  private report(output: ToolCallOutput): void {
    const { type: _type, ...call } = output;
    const turn = this.turn();
    this.emit({
      type: 'tool-call',
      ...call,
      reply: this.reply,
      ...(turn ? { turn } : {}),
      speculative: this.speculative !== undefined,
      kept: this.fate === 'kept',
    });
  }
}

/** How much of `text` the heard part covers (heard text is a prefix of it, give or take whitespace). */
function heardPrefixLength(text: string, heard: string): number {
  const wanted = heard.trim();
  if (!wanted) return 0;
  const at = text.indexOf(wanted);
  return at >= 0 ? at + wanted.length : Math.min(text.length, wanted.length);
}
