import type { z } from 'zod';
import type { MediaFormat } from '../media-format.js';

export type CarrierName = 'twilio' | 'telnyx' | 'plivo' | 'vonage' | 'exotel';

/** One inbound frame of a carrier's media stream, in the carrier-neutral shape the transport uses. */
export type CarrierEvent =
  /** The stream began: who it is, what the application passed along (custom parameters, headers) and its audio format. */
  | { type: 'start'; streamId?: string; callId?: string; parameters: Record<string, string>; format: MediaFormat }
  /** Caller audio, still coded in the stream's format. */
  | { type: 'media'; payload: Uint8Array }
  /** The carrier played our audio up to the mark (checkpoint, notify) of this name. */
  | { type: 'mark'; name: string }
  | { type: 'dtmf'; digit: string }
  | { type: 'stop' }
  /** A known frame with nothing for the call (connected, cleared, ...). */
  | { type: 'other' };

/**
 * A carrier's media-stream protocol: frames in → `CarrierEvent`s, agent audio and controls → frames out.
 * `parse` returns null for a frame that is not a known event and throws UnsupportedMediaFormatError for a
 * `start` whose format cannot be coded.
 */
export interface Carrier {
  readonly name: CarrierName;
  /** Duration of each outbound audio frame; carriers that need exact frames get the last one padded with silence. */
  readonly frameMs: number;
  readonly padFrames: boolean;
  parse(data: Buffer, isBinary: boolean): CarrierEvent | null;
  media(streamId: string, format: MediaFormat, payload: Uint8Array): string | Buffer;
  /** A marker the carrier echoes once the audio before it has been played. */
  mark(streamId: string, name: string): string;
  /** Drops the audio the carrier holds but has not played yet (barge-in). */
  clear(streamId: string): string;
}

/** A JSON text frame checked against a carrier's message schema, or null. */
export function parseFrame<T>(schema: z.ZodType<T>, data: Buffer, isBinary: boolean, maxBytes = 64 * 1024): T | null {
  if (isBinary || data.length > maxBytes) return null;
  let json: unknown;
  try {
    json = JSON.parse(data.toString());
  } catch {
    return null;
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/** A Twilio-style frame other than `start` (Twilio, Telnyx and Exotel share these shapes). */
export type CommonFrame =
  | { event: 'media'; media: { payload: string; track?: string } }
  | { event: 'mark'; mark: { name: string } }
  | { event: 'dtmf'; dtmf: { digit: string } }
  | { event: 'stop' }
  | { event: string };

/** The event of a Twilio-style frame; media of another track than the caller's is not caller audio. */
export function commonEvent(frame: CommonFrame): CarrierEvent {
  if ('media' in frame) return frame.media.track && !frame.media.track.startsWith('inbound') ? { type: 'other' } : { type: 'media', payload: Buffer.from(frame.media.payload, 'base64') };
  if ('mark' in frame) return { type: 'mark', name: frame.mark.name };
  if ('dtmf' in frame) return { type: 'dtmf', digit: frame.dtmf.digit };
  return frame.event === 'stop' ? { type: 'stop' } : { type: 'other' };
}

/** String values of a record (custom parameters and headers arrive as JSON objects). */
export function stringValues(record: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(record ?? {})) if (typeof value === 'string' || typeof value === 'number') out[key] = String(value);
  return out;
}

export function base64(payload: Uint8Array): string {
  return Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('base64');
}
