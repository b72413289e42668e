import type { Reservation } from '../accounts.js';
import { chargeText } from '../http/gate.js';
import { DeliveredText } from '../tts/delivered-text.js';
import type { SpeechChunk } from '../tts/synthesis.js';

/** A live round's credit hold: grown segment by segment before each is synthesised, billed for what was sent. */
export class RoundBilling {
  /** Billed characters of the round's segments whose audio was all sent. */
  private delivered = 0;
  /** Of `delivered`, those whose charge an `utterance_end` already reported. */
  private reported = 0;
  /** The segment being sent now. */
  private segment: DeliveredText | undefined;

  constructor(private readonly reservation: Reservation) {}

  /** Grows the hold by a segment's price (a 402 when the credit does not cover it). */
  reserve(characters: number): Promise<void> {
    return this.reservation.extend({ kind: 'tts', characters });
  }

  /** The segment whose chunks are sent now; tell it of each chunk sent. */
  sending(chunks: readonly SpeechChunk[], characters: number): DeliveredText {
    return (this.segment = new DeliveredText(chunks, characters));
  }

  /** The segment being sent is over: what it delivered counts as delivered. */
  segmentDone(): void {
    this.delivered += this.segment?.characters ?? 0;
    this.segment = undefined;
  }

  /** The charge of the characters delivered since the last `utterance_end`; the round's debit is their sum. */
  utteranceCharge(): string | undefined {
    const characters = this.delivered - this.reported;
    this.reported = this.delivered;
    return chargeText(this.reservation.quote({ kind: 'tts', characters }));
  }

  /** Bills the characters sent (a segment cut short included) and ends the hold; `micros` is null where not billed. */
  async settle(): Promise<{ characters: number; micros: number | null }> {
    const characters = this.delivered + (this.segment?.characters ?? 0);
    this.segment = undefined;
    const micros = await this.reservation.settle(characters > 0 ? { kind: 'tts', characters } : null);
    return { characters, micros };
  }
}
