import type { RawData, WebSocket } from 'ws';
import { encodeMuLaw } from '../../audio/index.js';
import { twilioCarrier, type Carrier, type CarrierEvent } from './carriers/index.js';
import { encodeMedia, muLaw8k, type MediaFormat } from './media-format.js';

export interface BusyLineOptions {
  /** Tone bursts (on then off) played before the stream is stopped. */
  bursts: number;
  /** Length of each tone and of each pause. */
  cadenceMs: number;
  /** Level of each of the two tones, 0..1 of full scale. */
  level: number;
  /** Longest wait for the provider to confirm it played the tone before the stream is stopped anyway. */
  playedTimeoutMs: number;
}

/** The North American busy signal (480 + 620 Hz, 0.5 s on, 0.5 s off): three bursts, 2.5 s. */
export const defaults: BusyLineOptions = { bursts: 3, cadenceMs: 500, level: 0.2, playedTimeoutMs: 5_000 };

const markName = 'busy-line-played';

/** The busy tone at `rate`: bursts separated by pauses, ending with the last burst. */
export function busySamples(rate: number, options: Partial<BusyLineOptions> = {}): Int16Array {
  const { bursts, cadenceMs, level } = { ...defaults, ...options };
  const half = Math.round((cadenceMs * rate) / 1000);
  const samples = new Int16Array((bursts * 2 - 1) * half);
  for (let burst = 0; burst < bursts; burst++) {
    for (let i = 0; i < half; i++) {
      const t = i / rate;
      samples[burst * 2 * half + i] = Math.round(32767 * level * (Math.sin(2 * Math.PI * 480 * t) + Math.sin(2 * Math.PI * 620 * t)));
    }
  }
  return samples;
}

/** The busy tone as 8 kHz mu-law. */
export function busyTone(options: Partial<BusyLineOptions> = {}): Uint8Array {
  return encodeMuLaw(busySamples(muLaw8k.sampleRate, options));
}

/**
 * Answers a media stream the agent cannot take: plays a short busy line in the carrier's own format, waits until
 * the carrier echoes the mark after it (or `playedTimeoutMs`), then stops the stream by closing the socket (1000).
 */
export async function sendBusyLine(
  ws: WebSocket,
  streamSid: string,
  options: Partial<BusyLineOptions> = {},
  carrier: Carrier = twilioCarrier,
  format: MediaFormat = muLaw8k,
): Promise<void> {
  const settings = { ...defaults, ...options };
  const send = (frame: string | Buffer) => {
    if (ws.readyState === ws.OPEN) ws.send(frame);
  };
  const tone = busySamples(format.sampleRate, settings);
  const frameSamples = (carrier.frameMs * format.sampleRate) / 1000;
  for (let at = 0; at < tone.length; at += frameSamples) {
    const piece = new Int16Array(carrier.padFrames ? frameSamples : Math.min(frameSamples, tone.length - at));
    piece.set(tone.subarray(at, at + frameSamples));
    send(carrier.media(streamSid, format, encodeMedia(format, piece)));
  }
  send(carrier.mark(streamSid, markName));
  await new Promise<void>((resolve) => {
    const finish = () => {
      clearTimeout(timer);
      ws.off('message', onMessage);
      ws.off('close', finish);
      resolve();
    };
    const onMessage = (data: RawData, isBinary: boolean) => {
      let event: CarrierEvent | null = null;
      try {
        event = carrier.parse(Buffer.isBuffer(data) ? data : Buffer.from(String(data)), isBinary);
      } catch {
        // a second start in another format: nothing to wait for
      }
      if ((event?.type === 'mark' && event.name === markName) || event?.type === 'stop') finish();
    };
    const timer = setTimeout(finish, settings.playedTimeoutMs);
    ws.on('message', onMessage);
    ws.once('close', finish);
  });
  if (ws.readyState === ws.OPEN) ws.close(1000, 'agent busy');
}
