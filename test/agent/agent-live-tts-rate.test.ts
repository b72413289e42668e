/**
 * Live synthesis at the call's playout rate: a phone call asks the speech service for 8 kHz PCM, so the
 * transport codes it as it comes; a request without a rate (browser, LiveKit) or with one the service does not
 * speak gets the default 16 kHz. A socket opened ahead at another rate is not used.
 */
import { lastValueFrom, of, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveTextToSpeech, type SpeechRequest } from '../../src/agent/index.js';
import { SpeechClient } from '../../src/client/index.js';
import { startHostedDouble, type HostedDouble } from '../support/hosted-service-double.js';

let service: HostedDouble;
let client: SpeechClient;

beforeAll(async () => {
  // Each reply is one 320 ms piece: no gap within it that the client's idle timer could take for its end.
  service = await startHostedDouble({ ttsDelayMs: 0, msPerCharacter: 10, chunkMs: 320 });
  client = new SpeechClient({ baseUrl: service.url, apiKey: 'key', live: { utteranceIdleMs: 40 } });
});
afterAll(async () => service?.close());

async function spoken(tts: LiveTextToSpeech, request: Omit<SpeechRequest, 'text$'>) {
  const audio = await lastValueFrom(tts.speak({ text$: of('Your parcel arrives on Tuesday.'), ...request }).pipe(toArray()));
  return audio.map((a) => a.frame);
}

describe('live synthesis at the playout rate', () => {
  it('asks for the request\'s rate and hands frames on at it', async () => {
    const tts = new LiveTextToSpeech(client);
    const frames = await spoken(tts, { sampleRate: 8000 });
    expect(service.requests.liveRates.at(-1)).toBe(8000);
    expect(frames.length).toBeGreaterThan(0);
    expect(frames.every((frame) => frame.sampleRate === 8000)).toBe(true);
    expect(frames.reduce((n, frame) => n + frame.samples.length, 0)).toBe(8 * 320);
  });

  it('keeps the default rate when the request names none or one the service does not speak', async () => {
    const tts = new LiveTextToSpeech(client);
    for (const request of [{}, { sampleRate: 48000 }]) {
      const frames = await spoken(tts, request);
      expect(service.requests.liveRates.at(-1)).toBe(16000);
      expect(frames.every((frame) => frame.sampleRate === 16000)).toBe(true);
    }
  });

  it('uses a socket opened ahead only when it was opened at the same rate', async () => {
    const tts = new LiveTextToSpeech(client);
    const before = service.requests.liveSockets;
    tts.prepare({ sampleRate: 8000 });
    await spoken(tts, { sampleRate: 8000 });
    expect(service.requests.liveSockets).toBe(before + 1);
    tts.prepare();
    const frames = await spoken(tts, { sampleRate: 8000 });
    // The 16 kHz socket is closed before its `start` (sent with the first text): a third socket speaks at 8 kHz.
    expect(service.requests.liveSockets).toBe(before + 3);
    expect(service.requests.liveRates.at(-1)).toBe(8000);
    expect(frames.every((frame) => frame.sampleRate === 8000)).toBe(true);
    tts.close();
  });
});
