import { from, lastValueFrom, Observable, throwError, toArray, concat } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { segmentUtterances, type ScoredFrame, type UtteranceOptions, type VoiceEvent } from '../../src/pipeline/index.js';

// One character per 32 ms frame (512 samples at 16 kHz): S = 0.9, . = 0.1, a = exactly the activation threshold
// (0.5), d = exactly the deactivation threshold (0.35), m = between the two (0.4). Frame i arrives at (i + 1) * 32.
const probabilities: Record<string, number> = { S: 0.9, '.': 0.1, a: 0.5, d: 0.35, m: 0.4 };
const scored = (pattern: string): ScoredFrame[] =>
  pattern.split('').map((c, i) => ({
    frame: { samples: new Int16Array(512), sampleRate: 16000, timestampMs: i * 32 },
    probability: probabilities[c]!,
    arrivedMs: (i + 1) * 32,
  }));

const options: Partial<UtteranceOptions> = { minSpeechMs: 64, minSilenceMs: 96, prefixPaddingMs: 64 };
const run = (pattern: string, o: Partial<UtteranceOptions> = options, silenceMs?: () => number) =>
  lastValueFrom(from(scored(pattern)).pipe(segmentUtterances(o, silenceMs), toArray()));

/** Each event in one line: `start 1 @64`, `audio 1 t=32 speech=0 quiet`, `end 1 speech=96 voice=160 at=...`. */
const summary = (events: VoiceEvent[]) =>
  events.map((e) => {
    if (e.type === 'speech-start') return `start ${e.utterance} @${e.atMs} arrived=${e.arrivedMs}`;
    if (e.type === 'speech-audio') return `audio ${e.utterance} t=${e.frame.timestampMs} speech=${e.speechMs} ${e.speaking ? 'voice' : 'quiet'}`;
    return `end ${e.utterance} speech=${e.speechMs} voice=${e.lastVoiceMs} voiceArrived=${e.lastVoiceArrivedMs} at=${e.endpointArrivedMs}`;
  });

describe('segmentUtterances event by event', () => {
  it('sends the start, the padding as quiet audio, the heard speech, the trailing silence and the endpoint', async () => {
    expect(summary(await run('...SS.S...'))).toEqual([
      'start 1 @96 arrived=160',
      'audio 1 t=32 speech=0 quiet', // 64 ms of padding: frames 1 and 2
      'audio 1 t=64 speech=0 quiet',
      'audio 1 t=96 speech=32 voice', // the two frames that made up the minimum speech
      'audio 1 t=128 speech=64 voice',
      'audio 1 t=160 speech=64 quiet',
      'audio 1 t=192 speech=96 voice',
      'audio 1 t=224 speech=96 quiet',
      'audio 1 t=256 speech=96 quiet',
      'audio 1 t=288 speech=96 quiet',
      'end 1 speech=96 voice=224 voiceArrived=224 at=320', // fires on the third silent frame: 96 ms exactly
    ]);
  });

  it('numbers utterances, and a new one needs the minimum speech again without the old speech in it', async () => {
    const events = summary(await run('SS...S.SS...'));
    expect(events.filter((e) => /^(start|end)/.test(e))).toEqual([
      'start 1 @0 arrived=64',
      'end 1 speech=64 voice=64 voiceArrived=64 at=160',
      'start 2 @224 arrived=288', // the lone S at 160 was a blip, folded into the padding
      'end 2 speech=64 voice=288 voiceArrived=288 at=384',
    ]);
    expect(events.filter((e) => e.startsWith('audio 2'))).toEqual([
      'audio 2 t=160 speech=0 quiet',
      'audio 2 t=192 speech=0 quiet',
      'audio 2 t=224 speech=32 voice',
      'audio 2 t=256 speech=64 voice',
      'audio 2 t=288 speech=64 quiet',
      'audio 2 t=320 speech=64 quiet',
      'audio 2 t=352 speech=64 quiet',
    ]);
  });

  it('counts a probability exactly at the activation threshold as speech, and down to deactivation as voice', async () => {
    expect(summary(await run('aa'))[0]).toBe('start 1 @0 arrived=64');
    const events = summary(await run('SSdm...'));
    expect(events).toContain('audio 1 t=64 speech=96 voice'); // d: exactly the deactivation threshold
    expect(events).toContain('audio 1 t=96 speech=128 voice'); // m: below activation, but an utterance is on
    expect(events.at(-1)).toBe('end 1 speech=128 voice=128 voiceArrived=128 at=224');
  });

  it('never starts on probabilities between the thresholds', async () => {
    expect(await run('mmmmmmmm')).toEqual([]);
  });

  it('counts frames down to the deactivation threshold toward the minimum speech once one frame activated', async () => {
    expect(summary(await run('.Sm...'))[0]).toBe('start 1 @32 arrived=96');
    expect(summary(await run('.Sd...'))[0]).toBe('start 1 @32 arrived=96'); // d: exactly the deactivation threshold
    expect(await run('.mS...')).toEqual([]); // a candidate starts only at the activation threshold
    expect(await run('.S.m..')).toEqual([]); // and ends at the first frame below deactivation
  });

  it('starts on speech exactly as long as the minimum speech, not one frame shorter', async () => {
    expect(summary(await run('SS', { ...options, minSpeechMs: 64 }))[0]).toBe('start 1 @0 arrived=64');
    expect(await run('S.S.S.S.', { ...options, minSpeechMs: 64 })).toEqual([]);
  });

  it('keeps no padding when prefixPaddingMs is 0', async () => {
    const events = summary(await run('....SS', { ...options, prefixPaddingMs: 0 }));
    expect(events.filter((e) => e.includes('quiet'))).toEqual([]);
    expect(events.filter((e) => e.startsWith('audio'))).toHaveLength(2);
  });

  it('cuts an utterance at maxUtteranceMs of audio, counting the minimum speech that started it', async () => {
    const events = summary(await run('SSSSSSSSSS', { ...options, maxUtteranceMs: 160 }));
    expect(events.filter((e) => e.startsWith('end'))).toEqual([
      'end 1 speech=160 voice=160 voiceArrived=160 at=160',
      'end 2 speech=160 voice=320 voiceArrived=320 at=320',
    ]);
  });

  it('asks silenceMs() for the endpoint at every frame instead of minSilenceMs', async () => {
    let asked = 0;
    const events = summary(await run('SS........', { ...options, minSilenceMs: 10_000 }, () => (++asked, 64)));
    expect(events.filter((e) => e.startsWith('end'))).toEqual(['end 1 speech=64 voice=64 voiceArrived=64 at=128']);
    expect(asked).toBe(3); // as the utterance starts (its frames' endpointInMs), then at each frame after it
  });

  it('ends an utterance still open when the audio completes, at the arrival of the last voice', async () => {
    expect(summary(await run('SSS.')).at(-1)).toBe('end 1 speech=96 voice=96 voiceArrived=96 at=96');
    expect(summary(await run('SS..S...SS')).at(-1)).toBe('end 2 speech=64 voice=320 voiceArrived=320 at=320');
    expect(await run('...S')).toEqual([]);
  });

  it('passes on an error of the scored frames', async () => {
    const failing: Observable<ScoredFrame> = concat(from(scored('SS')), throwError(() => new Error('vad failed')));
    await expect(lastValueFrom(failing.pipe(segmentUtterances(options), toArray()))).rejects.toThrow('vad failed');
  });
});
