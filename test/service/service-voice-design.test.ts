import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWav } from '../../src/audio/index.js';
import { analyzeVoice } from '../../src/engines/index.js';
import { postJson, startService, type RunningService } from '../support/service-harness.js';
import type { VoiceDesignCandidate } from '../../src/speech/index.js';

let server: RunningService;

beforeAll(async () => {
  server = await startService();
});
afterAll(async () => {
  await server.close();
});

const design = (body: unknown, headers: Record<string, string> = { model: 'voice-design-1' }) =>
  postJson(`${server.url}/v1/voice-design`, body, headers);

async function candidates(body: Record<string, unknown>): Promise<VoiceDesignCandidate[]> {
  const response = await design(body);
  expect(response.status, await response.clone().text().then((t) => t.slice(0, 300))).toBe(200);
  return ((await response.json()) as { candidates: VoiceDesignCandidate[] }).candidates;
}

const pitchOf = (candidate: VoiceDesignCandidate) => {
  const wav = parseWav(Buffer.from(candidate.audio_base64, 'base64'));
  return analyzeVoice(wav.samples, wav.sampleRate).pitchHz;
};

describe('POST /v1/voice-design', () => {
  it('returns n distinct candidates with WAV audio of the reference text and every documented field', async () => {
    const list = await candidates({ instruction: 'A calm middle-aged woman with a warm voice', n: 4, reference_text: 'Welcome to the museum.', seed: 7 });
    expect(list).toHaveLength(4);
    const ids = new Set(list.map((candidate) => candidate.id));
    expect(ids.size).toBe(4);
    const audio = new Set(list.map((candidate) => candidate.audio_base64));
    expect(audio.size).toBe(4);
    list.forEach((candidate, index) => {
      expect(candidate.index).toBe(index);
      expect(candidate.text).toBe('Welcome to the museum.');
      expect(candidate.instruct).toBe('A calm middle-aged woman with a warm voice');
      expect(candidate.language).toBe('en');
      const wav = parseWav(Buffer.from(candidate.audio_base64, 'base64'));
      expect(wav.sampleRate).toBe(candidate.sample_rate);
      expect(Math.abs((wav.samples.length * 1000) / wav.sampleRate - candidate.duration_ms)).toBeLessThanOrEqual(1);
      expect(candidate.duration_ms).toBeGreaterThan(800);
    });
  });

  it('follows gender, age and pitch words in the instruction', async () => {
    const [woman] = await candidates({ instruction: 'a young woman with a bright, high voice', seed: 1 });
    const [man] = await candidates({ instruction: 'an old man with a deep gravelly voice', seed: 1 });
    expect(pitchOf(woman!)).toBeGreaterThan(pitchOf(man!) * 1.4);
  });

  it('follows pace words: a fast speaker is shorter than a slow one', async () => {
    const [fast] = await candidates({ instruction: 'a man who talks fast and quick, energetic', seed: 3 });
    const [slow] = await candidates({ instruction: 'a man who talks slow, calm and relaxed', seed: 3 });
    expect(fast!.duration_ms).toBeLessThan(slow!.duration_ms * 0.85);
  });

  it('is reproducible with a seed and stateless (same request, same answer)', async () => {
    const body = { instruction: 'a cheerful narrator', n: 3, seed: 1234 };
    const first = await candidates(body);
    const second = await candidates(body);
    expect(second).toEqual(first);
    const other = await candidates({ ...body, seed: 4321 });
    expect(other.map((candidate) => candidate.id)).not.toEqual(first.map((candidate) => candidate.id));
  });

  it('speaks a default preview line without reference_text', async () => {
    const [candidate] = await candidates({ instruction: 'a friendly voice' });
    expect(candidate!.text.length).toBeGreaterThan(20);
  });

  it('rejects unknown fields and every out-of-range value with 422', async () => {
    const response = await design({
      instruction: '',
      reference_text: 'x'.repeat(151),
      n: 5,
      speed: 3.5,
      num_step: 129,
      guidance_scale: -1,
      instruct_guidance_scale: -0.5,
      seed: 1.5,
      colour: 'blue',
    });
    expect(response.status).toBe(422);
    const issues = (await response.json()) as { loc: string[]; type: string; msg: string }[];
    const fields = issues.map((issue) => issue.loc.slice(1).join('.')).sort();
    expect(fields).toEqual(['colour', 'guidance_scale', 'instruct_guidance_scale', 'instruction', 'n', 'num_step', 'reference_text', 'seed', 'speed'].sort());
    expect(issues.find((issue) => issue.loc[1] === 'colour')!.type).toBe('extra_forbidden');
    const long = await design({ instruction: 'x'.repeat(2001) });
    expect(long.status).toBe(422);
  });

  it('needs the voice-design-1 model header and a JSON body', async () => {
    expect((await design({ instruction: 'a voice' }, {})).status).toBe(400);
    const wrong = await design({ instruction: 'a voice' }, { model: 's1' });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { message: string }).message).toMatch(/voice-design-1/);
  });

  it('bills once per request, not per candidate', async () => {
    const before = server.accounts.charges.length;
    await candidates({ instruction: 'a voice', n: 3 });
    expect(server.accounts.charges.slice(before).map((charge) => charge.usage)).toEqual([{ kind: 'voice-design' }]);
  });
});
