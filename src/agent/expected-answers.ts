import type { CallSpeechToText } from './contracts.js';
import type { Expectation } from '../speech/index.js';

/** How expectations change the endpoint and the keypad. All durations in ms. */
export interface ListeningOptions {
  /**
   * Silence that ends the turn while digits or a number are expected and fewer digits than expected have
   * been heard: callers pause between digits ("four one ... nine two").
   */
  digitPauseMs: number;
  /** Silence that ends a yes/no answer (shorter than the mode's endpoint when that is longer). */
  yesNoSilenceMs: number;
}

export const defaults: ListeningOptions = { digitPauseMs: 1500, yesNoSilenceMs: 300 };

const spokenDigits = new Set(['zero', 'oh', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine']);

/** Digits in a transcript, spoken ("four one") or written ("41"). */
export function countDigits(text: string): number {
  let count = 0;
  for (const token of text.toLowerCase().split(/\s+/)) {
    if (spokenDigits.has(token)) count++;
    else if (/^\d+$/.test(token)) count += token.length;
  }
  return count;
}

/**
 * What the caller is expected to say next, for one call: handed to recognition and used to place the
 * endpoint and to end keypad entry.
 */
export class ExpectedAnswers {
  private current: readonly Expectation[] | undefined;
  private keys = '';

  constructor(
    private readonly stt: CallSpeechToText | undefined,
    private readonly options: ListeningOptions = defaults,
  ) {}

  get expectations(): readonly Expectation[] | undefined {
    return this.current;
  }

  /** Sets the expectations for the caller's next turn (`undefined`: anything); the keypad starts afresh. */
  expect(expectations: readonly Expectation[] | undefined): void {
    this.current = expectations && expectations.length > 0 ? expectations : undefined;
    this.keys = '';
    this.stt?.expect?.(this.current);
  }

  /**
   * The silence that ends the turn now, given the mode's endpoint and what has been heard of the turn:
   * longer while expected digits are still missing, shorter for a yes/no.
   */
  endpointSilenceMs(baseMs: number, heard: string): number {
    const digits = this.current?.find((e) => e.kind === 'digits' || e.kind === 'number');
    if (digits) {
      const wanted = digits.kind === 'digits' ? (digits.maxLength ?? digits.minLength) : undefined;
      return wanted !== undefined && countDigits(heard) >= wanted ? baseMs : Math.max(baseMs, this.options.digitPauseMs);
    }
    if (this.current?.length === 1 && this.current[0]!.kind === 'yes-no') return Math.min(baseMs, this.options.yesNoSilenceMs);
    return baseMs;
  }

  /**
   * A key pressed on the keypad. Returns the entry once it is complete — `#` pressed, or as many digits
   * as a digits expectation allows — else undefined. `*` clears the entry.
   */
  press(key: string): string | undefined {
    if (key === '*') {
      this.keys = '';
      return undefined;
    }
    if (key === '#') {
      const entry = this.keys;
      this.keys = '';
      return entry || undefined;
    }
    this.keys += key;
    const digits = this.current?.find((e) => e.kind === 'digits');
    if (digits?.kind === 'digits' && digits.maxLength !== undefined && this.keys.length >= digits.maxLength) {
      const entry = this.keys;
      this.keys = '';
      return entry;
    }
    return undefined;
  }
}
