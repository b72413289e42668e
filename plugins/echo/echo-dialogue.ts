import type { Observable } from 'rxjs';
import type { Dialogue, DialogueInput, DialogueOutput } from '../../src/agent/index.js';
import { streamOutputs, textOutputs } from '../word-stream.js';

export interface EchoDialogueOptions {
  /** Words put before the caller's words. */
  prefix: string;
  /** First line when a call connects; empty for none. */
  greeting: string;
  /** Pause between word deltas, ms. */
  wordIntervalMs: number;
  /** Caller phrases (normalised: lower case, no punctuation) that end the call after being echoed. */
  hangupPhrases: readonly string[];
}

export const defaults: EchoDialogueOptions = {
  prefix: 'You said:',
  greeting: 'Hello, this is the echo agent. Say something and I will repeat it.',
  wordIntervalMs: 0,
  hangupPhrases: ['goodbye', 'bye', 'good bye'],
};

/** Repeats what the caller said, word by word; the simplest working `Dialogue`, handy for testing a pipeline. */
export class EchoDialogue implements Dialogue {
  readonly name = 'echo';
  private readonly options: EchoDialogueOptions;

  constructor(options: Partial<EchoDialogueOptions> = {}) {
    this.options = { ...defaults, ...options };
  }

  greeting(): string | undefined {
    return this.options.greeting || undefined;
  }

  reprompt(): string {
    return 'Are you still there? Say something and I will repeat it.';
  }

  respond(input: DialogueInput): Observable<DialogueOutput> {
    const heard = input.userText.trim();
    const text = heard ? `${this.options.prefix} ${heard}`.trim() : 'I did not catch that.';
    const outputs: DialogueOutput[] = textOutputs(text);
    const normalised = heard.toLowerCase().replace(/[^a-z' ]/g, '').trim();
    if (this.options.hangupPhrases.includes(normalised)) outputs.push({ type: 'end-call', reason: 'caller said goodbye' });
    return streamOutputs(outputs, this.options.wordIntervalMs);
  }
}
