import type { Expectation } from '../../speech/index.js';
import type { Hypothesis } from '../types.js';
import type { PocketSphinxOptions } from './options.js';

/** Messages from the main thread to the decoder worker. `lease` names one recognizer's decoder. */
export type DecoderRequest =
  | { seq: number; op: 'open'; lease: number; telephoneBand?: boolean }
  | { seq: number; op: 'expect'; lease: number; expectations?: readonly Expectation[] }
  | { seq: number; op: 'write'; lease: number; pcm: Int16Array }
  | { seq: number; op: 'partial'; lease: number }
  | { seq: number; op: 'speech-paused'; lease: number }
  | { seq: number; op: 'finish'; lease: number }
  | { seq: number; op: 'close'; lease: number }
  | { seq: number; op: 'transcribe'; pcm: Int16Array; expectations?: readonly Expectation[]; telephoneBand?: boolean }
  | { seq: number; op: 'dispose' };

export type DecoderReply =
  | { seq: number; ok: true; hypothesis?: Hypothesis; initMs?: number }
  | { seq: number; ok: false; message: string; unavailable: boolean };

export interface DecoderWorkerData {
  options: PocketSphinxOptions;
}
