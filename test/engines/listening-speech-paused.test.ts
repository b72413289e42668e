/**
 * Decoding during the endpoint's silence: the streaming recognizer is told when the caller paused, decodes
 * the utterance then, and starts it again from its first sample when the caller speaks on.
 */
import { lastValueFrom, of, toArray } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import type { UtteranceFrame } from '../../src/agent/contracts.js';
import { StreamingEngineSpeechToText } from '../../src/agent/stt/streaming-engine-stt.js';
import { SpeechPauses } from '../../src/agent/stt/speech-pauses.js';
import type { Hypothesis, SpeechRecognitionEngine, StreamingRecognizer } from '../../src/engines/index.js';
import { PocketSphinxEngine } from '../../src/engines/pocketsphinx/index.js';
import { readPcmWav } from '../support/engines-fixtures.js';

const frame = (n: number, speaking: boolean, endpointInMs: number): UtteranceFrame => ({
  samples: new Int16Array(320).fill(n),
  sampleRate: 16000,
  timestampMs: n * 20,
  speaking,
  endpointInMs,
});

describe('SpeechPauses', () => {
  const pausesOf = (trailingQuietMs: number, speechPausedLeadMs: number, decodeAtPause = true) => {
    const pauses = new SpeechPauses({ trailingQuietMs, speechPausedLeadMs, decodeAtPause });
    return (f: UtteranceFrame) => `${pauses.next(f)}${pauses.pauseDue() ? '+paused' : ''}`;
  };

  it('writes quiet until the trailing quiet is heard and the endpoint is within the lead, then holds it', () => {
    const pauses = new SpeechPauses({ trailingQuietMs: 40, speechPausedLeadMs: 420, decodeAtPause: true });
    const seen = (f: UtteranceFrame) => `${pauses.next(f)}${pauses.pauseDue() ? '+paused' : ''}`;
    expect(seen(frame(0, false, 500))).toBe('write'); // quiet before any speech (prefix padding)
    expect(seen(frame(1, true, 500))).toBe('write');
    expect(seen(frame(2, false, 480))).toBe('write'); // 20 ms of quiet
    expect(seen(frame(3, false, 460))).toBe('write'); // 40 ms heard, the endpoint still far
    expect(seen(frame(4, false, 440))).toBe('write');
    expect(seen(frame(5, false, 420))).toBe('write+paused'); // the last frame heard
    expect(seen(frame(6, false, 400))).toBe('hold');
    expect(seen(frame(7, false, 380))).toBe('hold');
    expect(seen(frame(8, true, 500))).toBe('write');
    expect(pauses.release().map((f) => f.timestampMs)).toEqual([120, 140]);
    expect(pauses.release()).toEqual([]);
  });

  it('hears at least the trailing quiet when the endpoint is already near (a yes/no)', () => {
    const seen = pausesOf(60, 500);
    const frames = [frame(1, true, 300), frame(2, false, 280), frame(3, false, 260), frame(4, false, 240), frame(5, false, 220)];
    expect(frames.map(seen)).toEqual(['write', 'write', 'write', 'write+paused', 'hold']);
  });

  it('holds the same frames whether or not the pause is told, and writes every frame that does not say whether it holds speech', () => {
    const frames = [frame(1, true, 300), frame(2, false, 280), frame(3, false, 260), frame(4, false, 240), frame(5, true, 300), frame(6, false, 280)];
    const told = pausesOf(20, 280);
    const never = pausesOf(20, 280, false);
    expect(frames.map(told)).toEqual(['write', 'write+paused', 'hold', 'hold', 'write', 'write+paused']);
    expect(frames.map(never)).toEqual(['write', 'write', 'hold', 'hold', 'write', 'write']);
    const unknown = pausesOf(0, 400);
    expect(unknown({ samples: new Int16Array(320), sampleRate: 16000, timestampMs: 0 })).toBe('write');
  });
});

describe('StreamingEngineSpeechToText with pauses', () => {
  const written = async (decodeAtPause: boolean) => {
    const log: string[] = [];
    const recognizer: StreamingRecognizer = {
      write: async (pcm) => void log.push(`write ${pcm[0]}`),
      speechPaused: async () => void log.push('paused'),
      partial: async (): Promise<Hypothesis> => ({ text: '', words: [] }),
      finish: async () => (log.push('finish'), { text: 'done', words: [] }),
      close: () => undefined,
    };
    const engine: SpeechRecognitionEngine = { name: 'log', createRecognizer: () => recognizer, transcribe: async () => ({ text: '', words: [] }) };
    const stt = new StreamingEngineSpeechToText(engine, { interimEveryMs: 0, trailingQuietMs: 20, speechPausedLeadMs: 280, decodeAtPause });
    // A yes/no: 300 ms endpoint; the caller speaks on after 60 ms of quiet, then stops.
    const frames = [frame(1, true, 300), frame(2, false, 280), frame(3, false, 260), frame(4, true, 300), frame(5, false, 280), frame(6, false, 260), frame(7, false, 240)];
    const events = await lastValueFrom(stt.transcribe(of(...frames)).pipe(toArray()));
    expect(events).toEqual([{ text: 'done', words: [], final: true }]);
    return log;
  };

  it('tells the recognizer of the pause after the last frame it hears, writes held frames only when speech resumes', async () => {
    expect(await written(true)).toEqual(['write 1', 'write 2', 'paused', 'write 3', 'write 4', 'write 5', 'paused', 'finish']);
  });

  it('writes the same audio whether the utterance is decoded at the pause or at the endpoint', async () => {
    const atPause = (await written(true)).filter((e) => e.startsWith('write'));
    expect(await written(false)).toEqual([...atPause, 'finish']);
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
    const pieces = [digits.subarray(0, cut), digits.subarray(cut)];
    const resumed = await decode(pieces, [0, 1]);
    expect(resumed).toMatchObject({ text: 'four one nine two', expected: true });
    // Decoded again from the start after the pause: word for word and frame for frame as without the pause.
    expect(resumed).toEqual(await decode(pieces, [1]));
  }, 60_000);
});
