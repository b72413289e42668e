import { ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Observable, Subject } from 'rxjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AudioFrame } from '../../src/audio/index.js';
import type { DialogueOutput, SpokenWord, TextToSpeech } from '../../src/agent/contracts.js';
import { TurnStageError } from '../../src/agent/errors.js';
import { AgentReply, type ReplyCallbacks } from '../../src/agent/reply.js';
import { VirtualClock, WorkTracker, type PlayoutSink } from '../../src/pipeline/index.js';
import { spanAttributes } from '../../src/tracing/index.js';

// One agent reply driven by hand: a dialogue subject, a speech double whose audio the test releases, a recording
// sink on a virtual clock, a wall clock (performance.now) the test sets, and the spans the reply leaves.

const rate = 16_000;
const audioOf = (ms: number): AudioFrame => ({ samples: new Int16Array((ms * rate) / 1000).fill(1000), sampleRate: rate, timestampMs: 0 });
type SpeechAudio = { frame: AudioFrame; words?: SpokenWord[] };

/** Speech double: records the text pieces it is asked to say; the test decides when audio comes out. */
function speechDouble() {
  const pieces: string[] = [];
  const audio = new Subject<SpeechAudio>();
  let subscribed = false;
  const tts: TextToSpeech = {
    speak: ({ text$ }) =>
      new Observable<SpeechAudio>((subscriber) => {
        subscribed = true;
        const text = text$.subscribe({ next: (piece) => pieces.push(piece), error: (e: unknown) => subscriber.error(e) });
        const inner = audio.subscribe(subscriber);
        return () => {
          subscribed = false;
          text.unsubscribe();
          inner.unsubscribe();
        };
      }),
  };
  return { tts, pieces, audio, isSubscribed: () => subscribed };
}

function setup(options: { maxBufferedMs?: number; withoutClosed?: boolean } = {}) {
  let wall = 1000;
  vi.spyOn(performance, 'now').mockImplementation(() => wall);
  const clock = new VirtualClock(5000);
  const played: AudioFrame[] = [];
  let clears = 0;
  const sink: PlayoutSink = { play: (f) => played.push(f), clear: () => clears++ };
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');
  const turn = tracer.startSpan('turn');
  const parent = trace.setSpan(ROOT_CONTEXT, turn);
  const speech = speechDouble();
  const dialogue = new Subject<DialogueOutput>();
  const log: string[] = [];
  const toolCalls: Array<[string, number]> = [];
  const failures: TurnStageError[] = [];
  const callbacks: ReplyCallbacks = {
    firstAudio: (atMs) => log.push(`first-audio ${atMs}`),
    finished: () => log.push('finished'),
    failed: (error) => failures.push(error),
    toolCall: (output, atText) => toolCalls.push([output.name, atText]),
    ...(options.withoutClosed ? {} : { closed: () => log.push('closed') }),
  };
  const tracker = new WorkTracker();
  const reply = new AgentReply(
    { tts: speech.tts, sink, clock, tracker, tracer, chunking: {}, playout: { leadMs: 40, tickMs: 20, ...(options.maxBufferedMs ? { maxBufferedMs: options.maxBufferedMs } : {}) } },
    dialogue,
    parent,
    callbacks,
  );
  const spans = () => Object.fromEntries(exporter.getFinishedSpans().map((s) => [s.name, s]));
  return {
    reply, dialogue, speech, played, clock, log, toolCalls, failures, tracker, spans, turn,
    clears: () => clears,
    setWall: (ms: number) => (wall = ms),
    say: (delta: string) => dialogue.next({ type: 'text', delta }),
  };
}

afterEach(() => vi.restoreAllMocks());

describe('AgentReply outputs', () => {
  it('speaks only the text, and keeps tool calls (with where in the text they came), expectations and the end of the call', () => {
    const t = setup();
    t.reply.start();
    t.say('Let me check. ');
    t.dialogue.next({ type: 'tool-call', name: 'lookup', arguments: {} });
    t.dialogue.next({ type: 'expect', expectations: [{ kind: 'yes-no' }] });
    t.say('You are booked.');
    t.dialogue.next({ type: 'end-call', reason: 'booking done' });
    t.dialogue.complete();
    expect(t.reply.text).toBe('Let me check. You are booked.');
    expect(t.speech.pieces).toEqual(['Let me check.', 'You are booked.']);
    expect(t.toolCalls).toEqual([['lookup', 14]]);
    expect(t.reply.expectations).toEqual([{ kind: 'yes-no' }]);
    expect(t.reply.endCall).toBe('booking done');
  });

  it('names a reasonless end of the call, and leaves endCall and expectations unset otherwise', () => {
    const plain = setup();
    plain.reply.start();
    plain.say('Hello.');
    plain.dialogue.complete();
    expect(plain.reply.endCall).toBeUndefined();
    expect(plain.reply.expectations).toBeUndefined();
    const ending = setup();
    ending.reply.start();
    ending.dialogue.next({ type: 'end-call' });
    expect(ending.reply.endCall).toBe('dialogue ended the call');
  });
});

describe('AgentReply playout', () => {
  it('plays the audio on the clock: first audio, finished, closed, and the work settles', () => {
    const t = setup();
    t.reply.start();
    expect(t.reply.isPlaying).toBe(true);
    expect(t.reply.hasStarted).toBe(false);
    expect(t.tracker.pending).toBe(1);
    t.say('One two three four.');
    t.dialogue.complete();
    t.speech.audio.next({ frame: audioOf(200) });
    t.speech.audio.complete();
    expect(t.tracker.pending).toBe(0);
    expect(t.reply.hasStarted).toBe(true);
    expect(t.log).toEqual(['first-audio 5000']);
    t.clock.advanceTo(5100);
    // Half of the audio heard, and no word timings: half of the words.
    expect(t.reply.playedMs()).toBe(100);
    expect(t.reply.heardText()).toBe('One two');
    t.clock.advanceTo(5200);
    expect(t.log).toEqual(['first-audio 5000', 'closed', 'finished']);
    expect(t.reply.isPlaying).toBe(false);
    expect(t.reply.heardText()).toBe('One two three four.');
  });

  it('while synthesis goes on, counts only the words heard to their end', () => {
    const t = setup();
    t.reply.start();
    t.say('One two three four.');
    t.dialogue.complete();
    const words = ['One', 'two', 'three', 'four.'].map((word, i) => ({ word, startMs: i * 100, endMs: i * 100 + 90 }));
    t.speech.audio.next({ frame: audioOf(400), words });
    t.clock.advanceTo(5150);
    expect(t.reply.heardText()).toBe('One');
    expect(t.reply.words).toEqual(words);
  });

  it('before any audio the caller has heard nothing', () => {
    const t = setup();
    t.reply.start();
    t.say('One two three four.');
    expect(t.reply.playedMs()).toBe(0);
    expect(t.reply.heardText()).toBe('');
  });

  it('holds playout until play(), which starts it once', () => {
    const t = setup();
    t.reply.start(true);
    t.say('Ready when you are.');
    t.dialogue.complete();
    t.speech.audio.next({ frame: audioOf(100) });
    expect(t.played).toEqual([]);
    expect(t.reply.isPlaying).toBe(false);
    expect(t.reply.playedMs()).toBe(0);
    t.reply.play();
    t.reply.play();
    expect(t.played).toHaveLength(1);
    expect(t.log).toEqual(['first-audio 5000']);
  });

  it('pauses and resumes the playout', () => {
    const t = setup();
    t.reply.start();
    t.say('One two three four.');
    t.speech.audio.next({ frame: audioOf(200) });
    t.clock.advanceTo(5060);
    t.reply.pause();
    expect(t.clears()).toBe(1);
    t.clock.advanceTo(6000);
    expect(t.reply.playedMs()).toBe(60);
    t.reply.resume();
    t.clock.advanceTo(6040);
    expect(t.reply.playedMs()).toBe(100);
  });

  it('cancel stops the dialogue, synthesis and playout at once, closing once and never finishing', () => {
    const t = setup();
    t.reply.start();
    t.say('One two three four.');
    t.speech.audio.next({ frame: audioOf(200) });
    t.reply.cancel();
    t.reply.cancel();
    expect(t.speech.isSubscribed()).toBe(false);
    expect(t.dialogue.observed).toBe(false);
    expect(t.log).toEqual(['first-audio 5000', 'closed']);
    expect(t.reply.isPlaying).toBe(false);
    const sent = t.played.length;
    t.clock.advanceTo(7000);
    expect(t.played).toHaveLength(sent);
    t.reply.play();
    expect(t.played).toHaveLength(sent);
    expect(Object.keys(t.spans()).sort()).toEqual(['dialogue', 'tts']);
  });
});

describe('AgentReply failures and spans', () => {
  it('can be cancelled before it starts, and without a closed callback', () => {
    const early = setup();
    early.reply.cancel();
    expect(early.log).toEqual(['closed']);
    const held = setup({ withoutClosed: true });
    held.reply.start(true);
    held.reply.cancel();
    expect(held.speech.isSubscribed()).toBe(false);
  });

  it('audio beyond what playout keeps fails the reply in the tts stage', () => {
    const t = setup({ maxBufferedMs: 100 });
    t.reply.start();
    t.say('Hello.');
    t.speech.audio.next({ frame: audioOf(200) });
    expect(t.failures.map((f) => [f.stage, f.message])).toEqual([['tts', 'tts failed: reply longer than 100 ms of audio']]);
  });

  it('a dialogue failure fails the reply in the dialogue stage and marks only the dialogue span', () => {
    const t = setup();
    t.reply.start();
    t.dialogue.error(new Error('model down'));
    expect(t.failures).toHaveLength(1);
    expect(t.failures[0]).toBeInstanceOf(TurnStageError);
    expect(t.failures[0]!.stage).toBe('dialogue');
    expect(t.log).toEqual(['closed']);
    const { dialogue, tts } = t.spans();
    expect(dialogue!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'dialogue failed: model down' });
    expect(tts!.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('a speech failure fails the reply in the tts stage and marks only the tts span', () => {
    const t = setup();
    t.reply.start();
    t.say('Hello.');
    t.speech.audio.error(new Error('voice missing'));
    expect(t.failures.map((f) => [f.stage, f.message])).toEqual([['tts', 'tts failed: voice missing']]);
    const { dialogue, tts } = t.spans();
    expect(tts!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'tts failed: voice missing' });
    expect(dialogue!.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('ends a dialogue and a tts span under the turn, with the first-token and first-audio times', () => {
    const t = setup();
    t.reply.start();
    t.setWall(1250);
    t.say('Hello there. ');
    t.setWall(1300);
    t.say('How are you? '); // the word after the period completes the first piece
    expect(t.reply.dialogueFirstTokenMs).toBe(250);
    t.setWall(1400);
    t.say('Fine.'); // completes the second piece
    t.setWall(1480);
    t.speech.audio.next({ frame: audioOf(100) });
    t.setWall(1600);
    t.speech.audio.next({ frame: audioOf(100) });
    expect(t.reply.ttsFirstAudioMs).toBe(180);
    expect(t.reply.firstAudioWall).toBe(1480);
    t.dialogue.complete();
    expect(Object.keys(t.spans())).toEqual(['dialogue']);
    t.speech.audio.complete();
    t.clock.advanceTo(6000);
    const { dialogue, tts } = t.spans();
    expect(dialogue!.attributes).toEqual({ [spanAttributes.dialogueFirstTokenMs]: 250 });
    expect(tts!.attributes).toEqual({ [spanAttributes.ttsFirstAudioMs]: 180 });
    for (const span of [dialogue!, tts!]) {
      expect(span.parentSpanContext?.spanId).toBe(t.turn.spanContext().spanId);
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
    }
    expect(t.log).toEqual(['first-audio 5000', 'closed', 'finished']);
  });

  it('leaves the timing attributes off when no text or audio came', () => {
    const t = setup();
    t.reply.start();
    t.dialogue.complete();
    t.speech.audio.complete();
    t.clock.advanceTo(6000);
    const { dialogue, tts } = t.spans();
    expect(dialogue!.attributes).toEqual({});
    expect(tts!.attributes).toEqual({});
    expect(t.log).toEqual(['closed', 'finished']);
  });
});
