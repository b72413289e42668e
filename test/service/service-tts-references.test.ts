import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeVoice } from '../../src/engines/index.js';
import { decodeOutput, postJson, postMsgpack, startService, type RunningService } from '../support/service-harness.js';

const speech = (file: string) => new Uint8Array(readFileSync(join(import.meta.dirname, '../fixtures/speech', file)));
const female = { audio: speech('slt_00.wav'), text: 'hello i would like to book a table for two people tonight' };
const male = { audio: speech('rms_00.wav'), text: 'hello i would like to book a table for two people tonight' };
const text = 'Thank you for calling. Your table is booked for eight tonight.';

let server: RunningService;

beforeAll(async () => {
  server = await startService();
});
afterAll(async () => {
  await server.close();
});

async function pitchOf(body: Record<string, unknown>): Promise<number> {
  const response = await postMsgpack(`${server.url}/v1/tts`, { format: 'pcm', sample_rate: 16000, ...body });
  expect(response.status, await response.clone().text().then((t) => t.slice(0, 200))).toBe(200);
  const out = await decodeOutput(new Uint8Array(await response.arrayBuffer()), 'pcm', 16000);
  return analyzeVoice(out.samples, 16000).pitchHz;
}

describe('POST /v1/tts inline references (MessagePack)', () => {
  it('speaks near the pitch of the reference voice', async () => {
    const femaleReference = analyzeVoice(new Int16Array(speech('slt_00.wav').buffer.slice(44)), 16000).pitchHz;
    const maleReference = analyzeVoice(new Int16Array(speech('rms_00.wav').buffer.slice(44)), 16000).pitchHz;
    const highPitch = await pitchOf({ text, references: [female] });
    const lowPitch = await pitchOf({ text, references: [male] });
    expect(Math.abs(highPitch - femaleReference) / femaleReference).toBeLessThan(0.25);
    expect(Math.abs(lowPitch - maleReference) / maleReference).toBeLessThan(0.25);
    expect(highPitch).toBeGreaterThan(lowPitch * 1.3);
  });

  it('takes references as an array of arrays for zero-shot multi-speaker text', async () => {
    const both = await postMsgpack(`${server.url}/v1/tts`, {
      text: '<|speaker:0|>Good evening. <|speaker:1|>Good evening to you too.',
      references: [[female], [male]],
      reference_id: ['host', 'guest'],
      format: 'wav',
    });
    expect(both.status).toBe(200);
    const out = await decodeOutput(new Uint8Array(await both.arrayBuffer()), 'wav');
    expect(out.durationMs).toBeGreaterThan(2000);
  });

  it('answers 400 for unreadable reference audio, mismatched speaker names and too little speech', async () => {
    const garbage = await postMsgpack(`${server.url}/v1/tts`, { text, references: [{ audio: new Uint8Array([1, 2, 3, 4, 5]), text: 'x' }] });
    expect(garbage.status).toBe(400);
    expect(((await garbage.json()) as { message: string }).message).toMatch(/references\[0\]\.audio could not be read/);
    const mismatch = await postMsgpack(`${server.url}/v1/tts`, { text, references: [[female], [male]], reference_id: ['a', 'b', 'c'] });
    expect(mismatch.status).toBe(400);
    const silence = new Uint8Array(44 + 32000);
    silence.set(speech('slt_00.wav').subarray(0, 44));
    new DataView(silence.buffer).setUint32(40, 32000, true);
    const quiet = await postMsgpack(`${server.url}/v1/tts`, { text, references: [{ audio: silence, text: '' }] });
    expect(quiet.status).toBe(400);
    expect(((await quiet.json()) as { message: string }).message).toMatch(/voiced speech/);
  });

  it('answers 422 when a reference misses its transcript or its audio is not bytes', async () => {
    const response = await postMsgpack(`${server.url}/v1/tts`, { text, references: [{ audio: 'base64?', text: 1 }] });
    expect(response.status).toBe(422);
    const issues = (await response.json()) as { loc: string[] }[];
    expect(issues.map((issue) => issue.loc.join('.'))).toContain('body.references.0.audio');
  });

  it('refuses inline references in JSON with a 400 that says to use MessagePack', async () => {
    const response = await postJson(`${server.url}/v1/tts`, { text, references: [{ audio: 'AAAA', text: 'x' }] });
    expect(response.status).toBe(400);
  });
});
