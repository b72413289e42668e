import { from, lastValueFrom, toArray } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import type { SpokenAudio, TextToSpeech } from '../../src/agent/index.js';
import { cartesia } from '../../plugins/cartesia/index.js';
import { elevenlabs } from '../../plugins/elevenlabs/index.js';
import { openaiStt, openaiTts } from '../../plugins/openai-audio/index.js';
import { joinedSamples, samplesOf } from '../support/synthesis-test-kit.js';

/**
 * The adapters against the real services, each only when its key is set (skipped otherwise): CARTESIA_API_KEY,
 * ELEVENLABS_API_KEY, OPENAI_API_KEY (OPENAI_BASE_URL for a compatible server such as speaches or Kokoro-FastAPI).
 */
const env = process.env;
const speak = (tts: TextToSpeech, sampleRate: number): Promise<SpokenAudio[]> => lastValueFrom(tts.speak({ text$: from(['Hello from Shoal.', 'This is a test.']), sampleRate }).pipe(toArray()));

describe.skipIf(!env['CARTESIA_API_KEY'])('Cartesia, live', () => {
  const tts = env['CARTESIA_API_KEY'] ? cartesia() : undefined;
  afterAll(() => tts?.close());

  it('speaks at 16 kHz with word timings, and mu-law 8 kHz for a phone line', async () => {
    const wide = await speak(tts!, 16000);
    expect(samplesOf(wide)).toBeGreaterThan(16000);
    expect(wide.flatMap((piece) => piece.words ?? []).map((word) => word.word.toLowerCase())).toContain('shoal.');
    const phone = await speak(tts!, 8000);
    expect(phone[0]!.frame.sampleRate).toBe(8000);
  }, 30_000);
});

describe.skipIf(!env['ELEVENLABS_API_KEY'])('ElevenLabs, live', () => {
  const tts = env['ELEVENLABS_API_KEY'] ? elevenlabs() : undefined;
  afterAll(() => tts?.close());

  it('speaks at 16 kHz with words from the alignment, and ulaw_8000 for a phone line', async () => {
    const wide = await speak(tts!, 16000);
    expect(samplesOf(wide)).toBeGreaterThan(16000);
    expect(wide.flatMap((piece) => piece.words ?? []).length).toBeGreaterThanOrEqual(6);
    const phone = await speak(tts!, 8000);
    expect(phone[0]!.frame.sampleRate).toBe(8000);
  }, 30_000);
});

describe.skipIf(!env['OPENAI_API_KEY'] && !env['OPENAI_BASE_URL'])('OpenAI-compatible audio, live', () => {
  it('speaks a reply and hears it back', async () => {
    const audio = await speak(openaiTts(), 16000);
    expect(samplesOf(audio)).toBeGreaterThan(16000);
    const pcm = joinedSamples(audio);
    const frames = Array.from({ length: Math.ceil(pcm.length / 320) }, (_, index) => ({ samples: pcm.subarray(index * 320, (index + 1) * 320), sampleRate: 16000, timestampMs: index * 20 }));
    const final = await lastValueFrom(openaiStt().transcribe(from(frames)));
    expect(final.text.toLowerCase()).toMatch(/hello/);
  }, 60_000);
});
