import type { CallSpeechToText, ConversationMessage } from './contracts.js';
import type { AgentEvent } from './events.js';
import type { Expectation } from '../speech/index.js';
import { ExpectedAnswers, defaults, type ListeningOptions } from './expected-answers.js';

/**
 * A call's listening as the session drives it: after each turn it asks what the caller is expected to
 * say (the reply's `expect` output, else the dialogue's `expectations`), tells recognition and
 * endpointing, and collects keypad keys into entries that become the caller's turn.
 */
export class AgentListening {
  private listening = new ExpectedAnswers(undefined);

  constructor(
    private readonly dialogueExpectations: ((history: readonly ConversationMessage[]) => readonly Expectation[] | undefined) | undefined,
    private readonly history: readonly ConversationMessage[],
    private readonly emit: (event: AgentEvent) => void,
  ) {}

  /** Binds the call's recognizer scope (which receives the expectations) once the call starts. */
  start(stt: CallSpeechToText | undefined, options: Partial<ListeningOptions> = {}): void {
    this.listening = new ExpectedAnswers(stt, { ...defaults, ...options });
    this.listen();
  }

  /** The silence that ends the caller's turn now (see `ExpectedAnswers.endpointSilenceMs`). */
  endpointSilenceMs(baseMs: number, heard: string): number {
    return this.listening.endpointSilenceMs(baseMs, heard);
  }

  /** Tells recognition and endpointing what the caller is expected to say next; `replied` is the reply's own `expect`. */
  listen(replied?: readonly Expectation[]): void {
    this.listening.expect(replied ?? this.dialogueExpectations?.(this.history));
    const expectations = this.listening.expectations;
    this.emit({ type: 'expecting', ...(expectations ? { expectations } : {}) });
  }

  /** A keypad key; returns the entry once it is complete (it is then the caller's turn). */
  press(digit: string): string | undefined {
    this.emit({ type: 'dtmf', digit });
    const digits = this.listening.press(digit);
    if (digits !== undefined) this.emit({ type: 'keypad-entry', digits });
    return digits;
  }
}
