/**
 * What the synthesis doubles (test/support/cartesia-double.ts, test/support/elevenlabs-double.ts, test/support/openai-audio-double.ts) share:
 * speech-like audio for a text (a tone per word, so rates and lengths can be checked), its encodings, and servers
 * over HTTP or TLS (test/fixtures/tls) on 127.0.0.1.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { WebSocketServer, type WebSocket } from 'ws';
import { encodeMuLaw } from '../../src/audio/index.js';

export interface DoubleWord {
  word: string;
  startMs: number;
  endMs: number;
}

/** `text` as audio at `sampleRate`: each word a 300 Hz tone of `msPerChar` per character, a gap of one character between words. */
export function spokenAudio(text: string, sampleRate: number, msPerChar: number): { samples: Int16Array; words: DoubleWord[] } {
  const words: DoubleWord[] = [];
  let atMs = 0;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const endMs = atMs + word.length * msPerChar;
    words.push({ word, startMs: atMs, endMs });
    atMs = endMs + msPerChar;
  }
  const samples = new Int16Array(Math.round((atMs * sampleRate) / 1000));
  for (const word of words) {
    const from = Math.round((word.startMs * sampleRate) / 1000);
    const to = Math.min(samples.length, Math.round((word.endMs * sampleRate) / 1000));
    for (let i = from; i < to; i++) samples[i] = Math.round(6000 * Math.sin((2 * Math.PI * 300 * i) / sampleRate));
  }
  return { samples, words };
}

/** Samples as wire bytes: 16-bit little-endian PCM, or mu-law. */
export function wireBytes(samples: Int16Array, encoding: 'pcm16' | 'mulaw'): Buffer {
  if (encoding === 'mulaw') return Buffer.from(encodeMuLaw(samples));
  const bytes = Buffer.alloc(samples.length * 2);
  samples.forEach((value, index) => bytes.writeInt16LE(value, index * 2));
  return bytes;
}

/** Splits `bytes` into pieces of at most `size` bytes. */
export function pieces(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += size) out.push(bytes.subarray(offset, offset + size));
  return out;
}

const tlsDir = fileURLToPath(new URL('../fixtures/tls/', import.meta.url));
/** The self-signed certificate the doubles serve TLS with (for SDKs that always open `wss://`). */
export const tlsCertificate = readFileSync(`${tlsDir}localhost-cert.pem`, 'utf8');

/** An HTTP (or HTTPS with `tls`) server on 127.0.0.1 with a free port; `url` is its base URL. */
export async function listen(handler: (request: IncomingMessage, response: ServerResponse) => void, tls = false): Promise<{ server: Server; url: string }> {
  const server = tls ? createHttpsServer({ cert: tlsCertificate, key: readFileSync(`${tlsDir}localhost-key.pem`, 'utf8') }, handler) : createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server: server as Server, url: `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** What the socket doubles share: a server on 127.0.0.1 whose upgrades they serve, the sockets seen, kill and close. */
export abstract class WebSocketDouble<Seen extends { socket: WebSocket }> {
  readonly seen: Seen[] = [];
  protected readonly wss = new WebSocketServer({ noServer: true });

  protected constructor(
    private readonly server: Server,
    readonly url: string,
  ) {
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(request, socket, head));
  }

  protected abstract upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;

  /** Drops every open socket without a close frame (a provider dying mid-call). */
  kill(): void {
    for (const seen of this.seen) seen.socket.terminate();
  }

  async close(): Promise<void> {
    this.kill();
    this.wss.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
