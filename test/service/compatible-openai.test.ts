/**
 * The official `openai` client, as it is, against a real `shoal serve` (SQLite): transcription in every
 * response_format and streamed, its 400s, and the credit the OpenAI routes take (the native routes' price for
 * the same input). Speech: compatible-openai-speech.test.ts.
 */
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { creditsToMicros, priceOf } from '../../src/service/store/index.js';
import { wordErrorRate } from '../support/service-harness.js';
import { audioFile, clip, sentence, serveForOpenAi } from '../support/compatible-openai-client.js';

const served = serveForOpenAi();
const { freshClient } = served;
const reference = 'hello i would like to book a table for two people tonight';

describe('transcriptions', () => {
  it('answer json, text, srt and vtt from a recording', async () => {
    const [json, text, srt, vtt] = await Promise.all([
      served.client.audio.transcriptions.create({ file: await audioFile('slt_00.wav'), model: 'whisper-1' }),
      served.client.audio.transcriptions.create({ file: await audioFile('slt_00.wav'), model: 'whisper-1', response_format: 'text' }),
      served.client.audio.transcriptions.create({ file: await audioFile('slt_00.wav'), model: 'whisper-1', response_format: 'srt' }),
      served.client.audio.transcriptions.create({ file: await audioFile('slt_00.wav'), model: 'gpt-4o-transcribe', response_format: 'vtt' }),
    ]);
    expect(wordErrorRate(reference, json.text)).toBeLessThan(0.3);
    expect(text.trim()).toBe(json.text);
    expect(srt).toMatch(/^1\n00:00:0\d,\d{3} --> 00:00:0\d,\d{3}\n.*tonight\n/);
    expect(vtt).toMatch(/^WEBVTT\n\n00:00:0\d\.\d{3} --> 00:00:0\d\.\d{3}\n.*tonight\n/);
  }, 60_000);

  it('answer verbose_json with segments and, when asked, words within the audio', async () => {
    const verbose = await served.client.audio.transcriptions.create({
      file: await audioFile('slt_00.wav'),
      model: 'whisper-1',
      response_format: 'verbose_json',
      timestamp_granularities: ['word', 'segment'],
    });
    expect(verbose.language).toBe('english');
    expect(verbose.duration).toBeCloseTo(3.485, 2);
    expect(verbose.segments!.map((segment) => segment.text).join(' ')).toBe(verbose.text);
    const words = verbose.words!;
    expect(words.map((word) => word.word).join(' ')).toBe(verbose.text);
    for (const [index, word] of words.entries()) {
      expect(word.end).toBeGreaterThan(word.start);
      expect(word.end).toBeLessThanOrEqual(verbose.duration);
      if (index > 0) expect(word.start).toBeGreaterThanOrEqual(words[index - 1]!.end);
    }
    const segmentsOnly = await served.client.audio.transcriptions.create({ file: await audioFile('slt_00.wav'), model: 'whisper-1', response_format: 'verbose_json' });
    expect(segmentsOnly.words).toBeUndefined();
    expect(segmentsOnly.segments!.length).toBeGreaterThan(0);
  }, 60_000);

  it('stream transcript.text.delta events and a transcript.text.done with the whole text', async () => {
    const stream = await served.client.audio.transcriptions.create({ file: await audioFile('slt_00.wav'), model: 'gpt-4o-mini-transcribe', stream: true });
    const events: { type: string; delta?: string; text?: string }[] = [];
    for await (const event of stream) events.push(event as (typeof events)[number]);
    expect(events.at(-1)!.type).toBe('transcript.text.done');
    const deltas = events.slice(0, -1);
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.every((event) => event.type === 'transcript.text.delta')).toBe(true);
    expect(deltas.map((event) => event.delta).join('')).toBe(events.at(-1)!.text);
    expect(wordErrorRate(reference, events.at(-1)!.text!)).toBeLessThan(0.3);
  }, 60_000);

  it('refuse what it cannot do with a 400 naming the field, in OpenAI error shape', async () => {
    const unknownModel = served.client.audio.transcriptions.create({ file: await audioFile('slt_00.wav'), model: 'whisper-9' });
    await expect(unknownModel).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(unknownModel).rejects.toMatchObject({ status: 400, type: 'invalid_request_error', message: expect.stringContaining('whisper-1') });
    const badFormat = served.client.audio.transcriptions.create({ file: await audioFile('slt_00.wav'), model: 'whisper-1', response_format: 'xml' as 'json' });
    await expect(badFormat).rejects.toMatchObject({ status: 400, param: 'response_format' });
    const notAudio = served.client.audio.transcriptions.create({ file: await OpenAI.toFile(Buffer.from('not audio at all'), 'a.wav'), model: 'whisper-1' });
    await expect(notAudio).rejects.toBeInstanceOf(OpenAI.BadRequestError);
  }, 60_000);
});

describe('billing', () => {
  it('takes the native routes’ credit for the same input, and answers 402 when it does not cover it', async () => {
    const payer = await freshClient('payer', 1);
    const start = await served.serve.balance('payer');
    await payer.audio.transcriptions.create({ file: await audioFile('slt_01.wav'), model: 'whisper-1', response_format: 'text' });
    const afterAsr = await served.serve.balance('payer');
    expect(start - afterAsr).toBe(priceOf({ kind: 'asr', seconds: 2.41 }));
    await (await payer.audio.speech.create({ model: 'tts-1', input: sentence, voice: 'alloy', response_format: 'pcm' })).arrayBuffer();
    expect(afterAsr - (await served.serve.balance('payer'))).toBe(priceOf({ kind: 'tts', characters: sentence.length }));

    const form = new FormData();
    form.append('audio', new Blob([await clip('slt_01.wav')]), 'a.wav');
    const native = await fetch(`${served.serve.url}/v1/asr`, { method: 'POST', headers: { authorization: `Bearer ${payer.apiKey}` }, body: form });
    expect(native.status).toBe(200);
    expect(afterAsr - priceOf({ kind: 'tts', characters: sentence.length }) - (await served.serve.balance('payer'))).toBe(start - afterAsr);

    const broke = await freshClient('broke', 0.0001);
    await expect(broke.audio.speech.create({ model: 'tts-1', input: sentence, voice: 'alloy' })).rejects.toMatchObject({ status: 402, type: 'insufficient_quota' });
    expect(await served.serve.balance('broke')).toBe(creditsToMicros(0.0001));
  }, 60_000);
});
