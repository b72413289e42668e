/** Starts the speech service on a loopback port for end-to-end tests, with helpers to call and decode it. */
import { encode } from '@msgpack/msgpack';
import { decodeAudio, bytesToInt16, rmsDbfs } from '../../src/audio/index.js';
import { createSpeechService, SingleKeyAccounts, type SpeechService, type SpeechServiceOptions } from '../../src/service/index.js';

export const apiKey = 'sk_test_service';

export interface RunningService {
  url: string;
  wsUrl: string;
  service: SpeechService;
  accounts: SingleKeyAccounts;
  close(): Promise<void>;
}

export async function startService(options: Partial<SpeechServiceOptions> = {}): Promise<RunningService> {
  const accounts = new SingleKeyAccounts(apiKey);
  const service = await createSpeechService({ accounts, logLevel: 'silent', ...options });
  const url = await service.listen({ host: '127.0.0.1', port: 0 });
  return { url, wsUrl: url.replace(/^http/, 'ws'), service, accounts, close: () => service.close() };
}

export const authHeader = { authorization: `Bearer ${apiKey}` };

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { ...authHeader, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

export function postMsgpack(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { ...authHeader, 'content-type': 'application/msgpack', ...headers }, body: encode(body) });
}

/** Reads a streamed body, noting when the first and last bytes arrived (ms after `startedAt`). */
export async function readTimed(response: Response, startedAt: number): Promise<{ bytes: Uint8Array; firstMs: number; lastMs: number; parts: number }> {
  const reader = response.body!.getReader();
  const parts: Uint8Array[] = [];
  let firstMs = -1;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (firstMs < 0) firstMs = performance.now() - startedAt;
    parts.push(value);
  }
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return { bytes, firstMs, lastMs: performance.now() - startedAt, parts: parts.length };
}

export interface DecodedOutput {
  samples: Int16Array;
  sampleRate: number;
  durationMs: number;
  levelDb: number;
}

/** Decodes a TTS response body of any format (pcm needs its rate). */
export async function decodeOutput(bytes: Uint8Array, format: string, pcmRate = 44100): Promise<DecodedOutput> {
  const { samples, sampleRate } =
    format === 'pcm' ? { samples: bytesToInt16(bytes), sampleRate: pcmRate } : await decodeAudio(bytes);
  return { samples, sampleRate, durationMs: (samples.length * 1000) / sampleRate, levelDb: rmsDbfs(samples) };
}

/** Word error rate of a hypothesis against a reference (both lower-cased, punctuation dropped). */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const words = (text: string) => text.toLowerCase().replace(/[^a-z0-9' ]+/g, ' ').split(/\s+/).filter(Boolean);
  const ref = words(reference);
  const hyp = words(hypothesis);
  const row = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= hyp.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return ref.length === 0 ? 0 : row[hyp.length]! / ref.length;
}
