import type { RawData, WebSocket } from 'ws';
import { encodeMuLaw } from '../../audio/index.js';
import { mediaStream, parseInboundMessage, type OutboundMessage } from './media-stream-messages.js';

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

/** The busy tone as 8 kHz mu-law: bursts separated by pauses, ending with the last burst. */
export function busyTone(options: Partial<BusyLineOptions> = {}): Uint8Array {
  const { bursts, cadenceMs, level } = { ...defaults, ...options };
  const rate = mediaStream.sampleRate;
  const half = Math.round((cadenceMs * rate) / 1000);
  const samples = new Int16Array((bursts * 2 - 1) * half);
  for (let burst = 0; burst < bursts; burst++) {
    for (let i = 0; i < half; i++) {
      const t = i / rate;
      samples[burst * 2 * half + i] = Math.round(32767 * level * (Math.sin(2 * Math.PI * 480 * t) + Math.sin(2 * Math.PI * 620 * t)));
    }
  }
  return encodeMuLaw(samples);
}

/**
 * Answers a media stream the agent cannot take: plays a short busy line, waits until the provider echoes the
 * mark after it (or `playedTimeoutMs`), then stops the stream by closing the socket (1000). Any media-stream
 * carrier can call this once it has the stream's id.
 */
export async function sendBusyLine(ws: WebSocket, streamSid: string, options: Partial<BusyLineOptions> = {}): Promise<void> {
  const settings = { ...defaults, ...options };
  const send = (message: OutboundMessage) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
  };
  const tone = busyTone(settings);
  for (let at = 0; at < tone.length; at += mediaStream.outboundChunkBytes) {
    send({ event: 'media', streamSid, media: { payload: Buffer.from(tone.subarray(at, at + mediaStream.outboundChunkBytes)).toString('base64') } });
  }
  send({ event: 'mark', streamSid, mark: { name: markName } });
  await new Promise<void>((resolve) => {
    const finish = () => {
      clearTimeout(timer);
      ws.off('message', onMessage);
      ws.off('close', finish);
      resolve();
    };
    const onMessage = (data: RawData, isBinary: boolean) => {
      const message = isBinary ? null : parseInboundMessage(String(data));
      if ((message?.event === 'mark' && message.mark.name === markName) || message?.event === 'stop') finish();
    };
    const timer = setTimeout(finish, settings.playedTimeoutMs);
    ws.on('message', onMessage);
    ws.once('close', finish);
  });
  if (ws.readyState === ws.OPEN) ws.close(1000, 'agent busy');
}
