/**
 * Decoding during the endpoint's silence: the streaming recognizer is told when the caller paused, decodes
 * the utterance then, and starts it again from its first sample when the caller speaks on.
 */
import { lastValueFrom, of, toArray } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import type { UtteranceFrame } from '../src/agent/contracts.js';
import { StreamingEngineSpeechToText } from '../src/agent/stt/streaming-engine-stt.js';
import { SpeechPauses } from '../src/agent/stt/speech-pauses.js';
import type { Hypothesis, SpeechRecognitionEngine, StreamingRecognizer } from '../src/engines/index.js';
import { PocketSphinxEngine } from '../src/engines/pocketsphinx/index.js';
import { readPcmWav } from './engines-fixtures.js';

const frame = (n: number, speaking: boolean, endpointInMs: number): UtteranceFrame => ({
  samples: new Int16Array(320).fill(n),
  sampleRate: 16000,
  timestampMs: n * 20,
  speaking,
  endpointInMs,
});

describe('SpeechPauses', () => {
  it('tells of a pause once the endpoint is within the lead, holds quiet frames, lets them through when speech resumes', () => {
    const pauses = new SpeechPauses(400);
    expect(pauses.next(frame(0, false, 500))).toBe('write'); // quiet before any speech (prefix padding)
    expect(pauses.next(frame(1, true, 500))).toBe('write');
    expect(pauses.next(frame(2, false, 480))).toBe('write'); // the endpoint still far
    expect(pauses.next(frame(3, false, 400))).toBe('paused');
    expect(pauses.next(frame(4, false, 380))).toBe('held');
    expect(pauses.next(frame(5, true, 500))).toBe('write');
    expect(pauses.release().map((f) => f.timestampMs)).toEqual([60, 80]);
    expect(pauses.release()).toEqual([]);
  });

  it('writes every frame when off or when frames do not say whether they hold speech', () => {
    const off = new SpeechPauses(0);
    expect([frame(1, true, 500), frame(2, false, 0)].map((f) => off.next(f))).toEqual(['write', 'write']);
    const unknown = new SpeechPauses(400);
    expect(unknown.next({ samples: new Int16Array(320), sampleRate: 16000, timestampMs: 0 })).toBe('write');
  });
});

describe('StreamingEngineSpeechToText with pauses', () => {
  it('tells the recognizer of the pause and writes no quiet frame after it unless speech resumes', async () => {
    const log: string[] = [];
    const recognizer: StreamingRecognizer = {
      write: async (pcm) => void log.push(`write ${pcm[0]}`),
      speechPaused: async () => void log.push('paused'),
      partial: async (): Promise<Hypothesis> => ({ text: '', words: [] }),
      finish: async () => (log.push('finish'), { text: 'done', words: [] }),
      close: () => undefined,
    };
    const engine: SpeechRecognitionEngine = { name: 'log', createRecognizer: () => recognizer, transcribe: async () => ({ text: '', words: [] }) };
    const stt = new StreamingEngineSpeechToText(engine, { interimEveryMs: 0, speechPausedLeadMs: 400 });
    const frames = [frame(1, true, 500), frame(2, false, 400), frame(3, false, 300), frame(4, true, 500), frame(5, false, 400), frame(6, false, 300)];
    const events = await lastValueFrom(stt.transcribe(of(...frames)).pipe(toArray()));
    expect(events).toEqual([{ text: 'done', words: [], final: true }]);
    expect(log).toEqual(['write 1', 'paused', 'write 2', 'write 3', 'write 4', 'paused', 'finish']);
  });
});

describe('pocketsphinx decoding at the pause', () => {
  const engine = new PocketSphinxEngine();
  afterAll(() => engine.shutdown());
  const digits = readPcmWav('test/fixtures/human/dev_08.wav').samples; // "four one nine two"
  const expectations = [{ kind: 'digits' as const }];
  const decode = async (pieces: Int16Array[], pauseAfter: number[]) => {
    const recognizer = engine.createRecognizer();
    try {
      await recognizer.expect!(expectations);
      for (const [i, piece] of pieces.entries()) {
        for (let at = 0; at < piece.length; at += 320) await recognizer.write(piece.subarray(at, at + 320));
        if (pauseAfter.includes(i)) await recognizer.speechPaused!();
      }
      return await recognizer.finish();
    } finally {
      recognizer.close();
    }
  };

  it('answers the pause’s result at finish, and hears the whole utterance when the caller spoke on after a pause', async () => {
    expect(await decode([digits], [0])).toMatchObject({ text: 'four one nine two', expected: true });
    const nine = (await engine.transcribe(digits, { expectations })).words.find((w) => w.word === 'nine')!;
    const cut = Math.round((nine.startMs * 16000) / 1000);
    expect(await decode([digits.subarray(0, cut), digits.subarray(cut)], [0, 1])).toMatchObject({ text: 'four one nine two', expected: true });
  }, 60_000);
});
