/** The official @deepgram/sdk's live socket against a `shoal serve`, recording what it receives. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeepgramClient } from '@deepgram/sdk';
import { parseWav } from '../../src/audio/index.js';

/** The service's price of recognition, micro-credits per second of audio. */
export const asrMicrosPerSecond = 100;

/** What `bytes` of 16 kHz 16-bit audio cost. */
export const billed = (bytes: number) => Math.ceil((bytes / 32000) * asrMicrosPerSecond);

/** The 16 kHz samples of a recording in test/fixtures/human, as linear16 bytes. */
export function clip(name: string): Buffer {
  const wav = parseWav(new Uint8Array(readFileSync(join(import.meta.dirname, '../fixtures/human', name))));
  if (wav.sampleRate !== 16000) throw new Error(`${name} is not 16 kHz`);
  return Buffer.from(wav.samples.buffer, wav.samples.byteOffset, wav.samples.byteLength);
}

export type Message = { type: string } & Record<string, any>;

export interface Live {
  messages: Message[];
  closed: Promise<{ code: number; reason: string }>;
  /** Sends `bytes` in 100 ms messages, `paceMs` apart. */
  send(bytes: Buffer, paceMs?: number): Promise<void>;
  socket: Awaited<ReturnType<DeepgramClient['listen']['v1']['connect']>>;
}

export async function openLive(baseUrl: string, key: string, query: Record<string, unknown>): Promise<Live> {
  const client = new DeepgramClient({ apiKey: key, baseUrl, reconnect: false });
  const socket = await client.listen.v1.connect({ model: 'nova-3', encoding: 'linear16', sample_rate: 16000, reconnectAttempts: 0, ...query } as never);
  const messages: Message[] = [];
  let resolveClosed!: (value: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (resolveClosed = resolve));
  socket.on('message', (message) => messages.push(message as Message));
  socket.on('close', (event) => resolveClosed({ code: event.code, reason: event.reason }));
  socket.on('error', () => undefined);
  socket.connect();
  await socket.waitForOpen();
  const chunkBytes = 3200;
  return {
    messages,
    closed,
    socket,
    async send(bytes, paceMs = 10) {
      for (let at = 0; at < bytes.length; at += chunkBytes) {
        socket.sendMedia(bytes.subarray(at, at + chunkBytes));
        await new Promise((resolve) => setTimeout(resolve, paceMs));
      }
    },
  };
}

export const results = (messages: Message[]) => messages.filter((message) => message.type === 'Results');

/** The final transcripts joined. */
export const transcriptOf = (messages: Message[]) =>
  results(messages)
    .filter((message) => message.is_final)
    .map((message) => message.channel.alternatives[0].transcript)
    .join(' ')
    .trim();
