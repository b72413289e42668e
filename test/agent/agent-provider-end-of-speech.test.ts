import { Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { AudioFrame } from '../../src/audio/index.js';
import type { SpeechToText, TranscriptEvent } from '../../src/agent/index.js';
import { sessionCall } from '../support/agent-session-call.js';

/** Hears "hello there" and, like Deepgram's `speech_final`, says the caller stopped after 100 ms of quiet (when `signals`). */
function endOfSpeechStt(signals: boolean): SpeechToText {
  return {
    provider: 'double',
    transcribe: (utterance$: Observable<AudioFrame>) =>
      new Observable<TranscriptEvent>((subscriber) => {
        let loud = false;
        let quietMs = 0;
        let said = false;
        return utterance$.subscribe({
          next: (frame) => {
            const peak = frame.samples.reduce((max, sample) => Math.max(max, Math.abs(sample)), 0);
            if (peak > 1000) {
              loud = true;
              quietMs = 0;
            } else quietMs += (frame.samples.length * 1000) / frame.sampleRate;
            if (signals && loud && !said && quietMs >= 100) {
              said = true;
              subscriber.next({ text: 'hello there', words: [], final: false, endOfSpeech: true });
            }
          },
          complete: () => {
            subscriber.next({ text: 'hello there', words: [], final: true });
            subscriber.complete();
          },
        });
      }),
  };
}

describe("a provider's end-of-speech signal", () => {
  it('ends the turn after the mode\'s end-of-speech silence instead of the whole endpoint silence, and the report names the provider', async () => {
    const segments = [{ atMs: 1500, ms: 800, amplitude: 5000 }];
    const without = await sessionCall({ stt: endOfSpeechStt(false) }, [], segments);
    const withSignal = await sessionCall({ stt: endOfSpeechStt(true) }, [], segments);
    const endpointing = (summary: typeof without.summary) => summary.turns.find((turn) => turn.userText === 'hello there')!.metrics;
    expect(endpointing(without.summary).endpointingMs).toBeGreaterThanOrEqual(480);
    expect(endpointing(withSignal.summary).endpointingMs).toBeLessThanOrEqual(300);
    expect(endpointing(withSignal.summary).sttProvider).toBe('double');
  });
});
