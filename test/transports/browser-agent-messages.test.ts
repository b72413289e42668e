import { firstValueFrom, from, Observable, Subject, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { newTurnReport, type AgentEvent, type TextToSpeech, type Transport, type TurnReport } from '../../src/agent/index.js';
import type { AudioFrame } from '../../src/audio/index.js';
import { SpokenCaptions, toBrowserMessages, type ServerMessage } from '../../src/transports/browser/index.js';

function report(turn: number, user: string, agent: string, interrupted = false): TurnReport {
  return newTurnReport({
    turn,
    userText: user,
    agentText: agent,
    interrupted,
    metrics: { interrupted, endpointingMs: 500, endOfSpeechToFinalMs: 120, dialogueFirstTokenMs: 15, ttsFirstAudioMs: 90, voiceToVoiceMs: 760 },
  });
}

describe('agent events → browser messages', () => {
  it('numbers captions by turn, finishes each turn with its text, and reports latency for answered turns only', async () => {
    const events: AgentEvent[] = [
      { type: 'agent-started-speaking', turn: 0, atMs: 0 },
      { type: 'turn-metrics', report: { ...report(0, '', 'Hello, how can I help?'), metrics: { interrupted: false, dialogueFirstTokenMs: 1, ttsFirstAudioMs: 80 } } },
      { type: 'transcript', text: 'a table', final: false },
      { type: 'transcript', text: '   ', final: false },
      { type: 'transcript', text: 'a table for two', final: true },
      { type: 'agent-started-speaking', turn: 1, atMs: 0 },
      { type: 'interrupted', turn: 1, playedText: 'For two' },
      { type: 'turn-metrics', report: report(1, 'a table for two', 'For two', true) },
      { type: 'error', stage: 'tts', message: 'socket closed' },
    ];
    const messages = await firstValueFrom(from(events).pipe(toBrowserMessages(), toArray()));
    expect(messages).toEqual<ServerMessage[]>([
      { type: 'agent_text', turn: 0, text: 'Hello, how can I help?', final: true, interrupted: false },
      { type: 'transcript', turn: 1, text: 'a table', final: false },
      { type: 'transcript', turn: 1, text: 'a table for two', final: true },
      { type: 'agent_text', turn: 1, text: 'For two', final: true, interrupted: true },
      { type: 'transcript', turn: 1, text: 'a table for two', final: true },
      { type: 'agent_text', turn: 1, text: 'For two', final: true, interrupted: true },
      { type: 'metrics', turn: 1, endpointingMs: 500, endOfSpeechToTranscriptMs: 120, dialogueFirstTokenMs: 15, ttsFirstAudioMs: 90, voiceToVoiceMs: 760 },
      { type: 'error', code: 'agent_error', message: 'tts: socket closed' },
    ]);
  });

  it('passes captions of words as played until the turn is final', async () => {
    const events = new Subject<AgentEvent>();
    const captions = new Subject<{ turn: number; text: string }>();
    const collected = firstValueFrom(events.pipe(toBrowserMessages(captions), toArray()));
    captions.next({ turn: 2, text: 'We open' });
    captions.next({ turn: 2, text: 'We open at noon' });
    events.next({ type: 'turn-metrics', report: report(2, 'when do you open', 'We open at noon.') });
    captions.next({ turn: 2, text: 'late caption' });
    captions.complete();
    events.complete();
    const agentTexts = (await collected).filter((m) => m.type === 'agent_text');
    expect(agentTexts.map((m) => [m.text, m.final])).toEqual([
      ['We open', false],
      ['We open at noon', false],
      ['We open at noon.', true],
    ]);
  });
});

describe('spoken captions', () => {
  it('reveals a reply word by word as its audio plays out, and forgets it on clear', async () => {
    const played: AudioFrame[] = [];
    const transport: Transport = {
      audio$: new Subject<AudioFrame>(),
      events$: new Subject(),
      traceContext: {},
      play: (frame) => played.push(frame),
      clear: () => undefined,
      hangup: () => undefined,
    };
    // 100 ms of audio per word, one frame per word, as an engine with word timings would give.
    const words = ['one', 'two', 'three', 'four'];
    const tts: TextToSpeech = {
      speak: ({ text$ }) =>
        new Observable((subscriber) => {
          text$.subscribe({
            complete: () => {
              words.forEach((word, i) => {
                const frame = { samples: new Int16Array(1600), sampleRate: 16000, timestampMs: 0 };
                subscriber.next({ frame, words: [{ word, startMs: i * 100, endMs: i * 100 + 90 }] });
              });
              subscriber.complete();
            },
          });
        }),
    };
    const captions = new SpokenCaptions();
    const speech = captions.speech(tts);
    const wrapped = captions.transport(transport);
    const events = new Subject<AgentEvent>();
    captions.follow(events);
    const seen: string[] = [];
    captions.captions$.subscribe((caption) => seen.push(`${caption.turn}:${caption.text}`));

    const frames: AudioFrame[] = [];
    speech.speak({ text$: from(['one two', 'three four']) }).subscribe(({ frame }) => frames.push(frame));
    events.next({ type: 'agent-started-speaking', turn: 3, atMs: 0 });
    for (const frame of frames) wrapped.play(frame);
    expect(played).toHaveLength(4);
    await new Promise((resolve) => setTimeout(resolve, 260));
    const early = [...seen];
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(early.length).toBeGreaterThan(0);
    expect(early.at(-1)).not.toBe('3:one two three four');
    expect(seen.at(-1)).toBe('3:one two three four');
    expect(seen).toEqual([...new Set(seen)]);

    wrapped.clear();
    const count = seen.length;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(seen).toHaveLength(count);
    events.complete();
  });
});
