import { ROOT_CONTEXT, SpanStatusCode, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NEVER, Subject } from 'rxjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TranscriptEvent } from '../../src/agent/contracts.js';
import type { AgentReply } from '../../src/agent/reply.js';
import { resolveAgentOptions } from '../../src/agent/resolve-options.js';
import { UtteranceState, type UtteranceCallbacks } from '../../src/agent/utterance-state.js';
import type { AgentMode } from '../../src/agent/modes.js';
import { VirtualClock, WorkTracker } from '../../src/pipeline/index.js';
import { spanAttributes } from '../../src/tracing/index.js';

// One caller utterance, fed by hand: speech-audio events (how much speech so far, speaking or not), transcript
// events from a recognizer double, and a reply double that has or has not started. What it tells the session
// (pause, resume, interrupt, transcripts, preempt, final, failure) and the spans it leaves are asserted.

const frameMs = 16;
const frame = { samples: new Int16Array(256), sampleRate: 16_000, timestampMs: 0 };

interface Options {
  mode?: AgentMode;
  agent?: 'none' | 'started' | 'not started';
  interruption?: { enabled?: boolean; minWords?: number };
}

function setup(options: Options = {}) {
  let wall = 5000;
  vi.spyOn(performance, 'now').mockImplementation(() => wall);
  const clock = new VirtualClock();
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');
  const transcripts = new Subject<TranscriptEvent>();
  const tracker = new WorkTracker();
  let track: (<T>(work: Promise<T>) => Promise<T>) | undefined;
  const resolved = resolveAgentOptions({
    dialogue: { name: 'unused', respond: () => NEVER },
    stt: {
      transcribe: (_frames, work) => {
        track = work?.track;
        return transcripts;
      },
    },
    tts: { speak: () => NEVER },
    vad: () => {
      throw new Error('not used');
    },
    mode: options.mode ?? 'balanced',
    clock,
    tracer,
    interruption: options.interruption ?? {},
  });
  const turnSpan = tracer.startSpan('turn');
  const agentState = options.agent ?? 'started';
  const reply = { hasStarted: agentState === 'started' } as AgentReply;
  const log: string[] = [];
  const preempted: string[] = [];
  const callbacks: UtteranceCallbacks = {
    pause: () => log.push('pause'),
    resume: () => log.push('resume'),
    interrupt: () => log.push('interrupt'),
    transcript: (text, final) => log.push(`${final ? 'final' : 'interim'} ${text}`),
    stopped: (atMs) => log.push(`stopped ${atMs}`),
    preempt: (text) => {
      preempted.push(text);
      return undefined;
    },
    final: (state) => log.push(`turn ${state.finalText}`),
    failed: (error) => log.push(`failed ${error.stage}: ${error.message}`),
  };
  const state = new UtteranceState(
    { options: resolved, tracker, turnSpan, turnCtx: trace.setSpan(ROOT_CONTEXT, turnSpan), agent: () => (agentState === 'none' ? undefined : { reply }) },
    callbacks,
    NEVER,
  );
  state.start();
  const audio = (speechMs: number, speaking = true) => state.onAudio({ type: 'speech-audio', utterance: 1, frame, speechMs, speaking, endpointInMs: speaking ? 500 : 300 });
  const heard = (text: string, final = false) => transcripts.next({ text, words: [], final });
  const spans = () => Object.fromEntries(exporter.getFinishedSpans().map((s) => [s.name, s]));
  return { state, audio, heard, log, preempted, clock, transcripts, spans, tracker, track: () => track, setWall: (ms: number) => (wall = ms) };
}

afterEach(() => vi.restoreAllMocks());

describe('caller speech over the agent', () => {
  it('pauses the agent once the caller has spoken minSpeechMs (200 ms), and only once', () => {
    const t = setup();
    t.audio(184);
    expect(t.log).toEqual([]);
    t.audio(200);
    t.audio(216);
    expect(t.log).toEqual(['pause']);
    expect(t.state.paused).toBe(true);
  });

  it('does not pause a reply that has not started playing, nobody, or with interruptions off', () => {
    for (const t of [setup({ agent: 'not started' }), setup({ agent: 'none' }), setup({ interruption: { enabled: false } })]) {
      t.audio(400);
      expect(t.log).toEqual([]);
    }
  });

  it('does not pause for a backchannel heard so far', () => {
    const t = setup();
    t.heard('yeah');
    t.audio(300);
    expect(t.log).toEqual(['interim yeah']);
  });

  it('resumes the agent after falseInterruptionTimeoutMs (1500 ms) without words', () => {
    const t = setup();
    t.audio(200);
    t.clock.advanceTo(1499);
    expect(t.log).toEqual(['pause']);
    t.clock.advanceTo(1500);
    expect(t.log).toEqual(['pause', 'resume']);
    expect(t.state.paused).toBe(false);
  });

  it('interrupts on the first interim with words during the pause, and the false-interruption timer is off', () => {
    const t = setup();
    t.audio(200);
    t.heard('wait');
    expect(t.state.interrupted).toBe(true);
    expect(t.state.paused).toBe(false);
    t.clock.advanceTo(5000);
    expect(t.log).toEqual(['pause', 'interim wait', 'interrupt']);
  });

  it('an interim with words that came before the pause interrupts as soon as the speech is long enough', () => {
    const t = setup();
    t.audio(100);
    t.heard('hold on');
    expect(t.log).toEqual(['interim hold on']);
    t.audio(200);
    expect(t.log).toEqual(['interim hold on', 'pause', 'interrupt']);
    t.clock.advanceTo(5000);
    expect(t.log.at(-1)).toBe('interrupt');
  });

  it('an interim short of minWords pauses but does not interrupt', () => {
    const t = setup({ interruption: { minWords: 2 } });
    t.audio(100);
    t.heard('wait');
    t.audio(200);
    expect(t.log).toEqual(['interim wait', 'pause']);
    t.heard('wait please');
    expect(t.log.at(-1)).toBe('interrupt');
  });

  it('an interim with words interrupts a not-yet-playing reply only after minSpeechMs of speech', () => {
    const t = setup({ agent: 'not started' });
    t.audio(150);
    t.heard('stop');
    expect(t.log).toEqual(['interim stop']);
    t.audio(200);
    t.heard('stop it');
    expect(t.log).toEqual(['interim stop', 'interim stop it', 'interrupt']);
  });

  it('the final transcript interrupts when it has words, else resumes a paused agent', () => {
    const words = setup();
    words.audio(200);
    words.heard('cancel that', true);
    expect(words.log).toEqual(['pause', 'final cancel that', 'interrupt', 'turn cancel that']);
    const backchannel = setup();
    backchannel.audio(200);
    backchannel.heard('okay', true);
    expect(backchannel.log).toEqual(['pause', 'final okay', 'resume', 'turn okay']);
  });

  it('without a paused agent, a backchannel final resumes nothing and an interim with words over nobody interrupts nothing', () => {
    const t = setup();
    t.audio(100);
    t.heard('okay', true);
    expect(t.log).toEqual(['final okay', 'turn okay']);
    const alone = setup({ agent: 'none' });
    alone.audio(400);
    alone.heard('hello there');
    expect(alone.log).toEqual(['interim hello there']);
  });

  it('a final after an interruption does not interrupt again, and with nobody speaking it only ends the turn', () => {
    const t = setup();
    t.audio(200);
    t.heard('wait');
    t.heard('wait there', true);
    expect(t.log).toEqual(['pause', 'interim wait', 'interrupt', 'final wait there', 'turn wait there']);
    const alone = setup({ agent: 'none' });
    alone.heard('hello', true);
    expect(alone.log).toEqual(['final hello', 'turn hello']);
    expect(alone.state.finalText).toBe('hello');
  });
});

describe('preemptive reply (low-latency)', () => {
  it('starts a reply on an interim once the caller has been silent stableInterimMs (96 ms), once per interim text', () => {
    const t = setup({ mode: 'low-latency', agent: 'none' });
    t.heard('a table for two');
    t.audio(600);
    for (let silent = frameMs; silent < 96; silent += frameMs) t.audio(600, false);
    expect(t.preempted).toEqual([]);
    t.audio(600, false); // 96 ms of silence
    t.audio(600, false);
    expect(t.preempted).toEqual(['a table for two']);
    expect(t.state.preemptiveText).toBe('a table for two');
    t.audio(620); // speaking again restarts the silence
    t.heard('a table for three');
    for (let silent = frameMs; silent < 96; silent += frameMs) t.audio(620, false);
    expect(t.preempted).toEqual(['a table for two']);
    t.audio(620, false);
    expect(t.preempted).toEqual(['a table for two', 'a table for three']);
  });

  it('not in balanced mode, and not over the agent', () => {
    const balanced = setup({ agent: 'none' });
    const over = setup({ mode: 'low-latency', agent: 'not started' });
    for (const t of [balanced, over]) {
      t.heard('a table for two');
      for (let i = 0; i < 20; i++) t.audio(600, false);
      expect(t.preempted).toEqual([]);
    }
  });
});

describe('turn timing and spans', () => {
  it('measures endpointing on the call clock and recognition on the wall, and puts the latter on the asr span', () => {
    const t = setup({ agent: 'none' });
    expect(t.state.voiceToVoiceMs()).toBeUndefined();
    t.state.onEnd({ type: 'speech-end', utterance: 1, speechMs: 800, lastVoiceMs: 1800, lastVoiceArrivedMs: 1000, endpointArrivedMs: 1200 });
    expect(t.log).toEqual(['stopped 1800']);
    expect(t.state.endpointingMs).toBe(200);
    t.setWall(5150);
    t.heard('hello', true);
    expect(t.state.asrMs).toBe(150);
    expect(t.state.finalWall).toBe(5150);
    t.setWall(5300);
    expect(t.state.voiceToVoiceMs()).toBe(500);
    expect(t.spans()['asr']!.attributes).toEqual({ [spanAttributes.asrEndOfSpeechToFinalMs]: 150 });
    expect(t.spans()['asr']!.parentSpanContext?.spanId).toBeDefined();
  });

  it('without an endpoint the final has no recognition time', () => {
    const t = setup({ agent: 'none' });
    t.heard('hello', true);
    expect(t.state.asrMs).toBeUndefined();
    expect(t.spans()['asr']!.attributes).toEqual({});
  });

  it('a recognition failure marks the asr span, resumes a paused agent, discards the turn and reports the failure', () => {
    const t = setup();
    t.audio(200);
    t.transcripts.error(new Error('decoder crashed'));
    expect(t.log).toEqual(['pause', 'resume', 'failed asr: asr failed: decoder crashed']);
    const { asr, turn } = t.spans();
    expect(asr!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'asr failed: decoder crashed' });
    expect(turn!.attributes).toEqual({ [spanAttributes.turnDiscarded]: true });
  });

  it('a recognition failure with the agent not paused resumes nothing', () => {
    const t = setup();
    t.transcripts.error(new Error('decoder crashed'));
    expect(t.log).toEqual(['failed asr: asr failed: decoder crashed']);
  });

  it('hands recognition the tracker, so a virtual-clock driver waits for its engine calls', async () => {
    const t = setup();
    let finish!: () => void;
    const work = t.track()!(new Promise<void>((resolve) => (finish = resolve)));
    expect(t.tracker.pending).toBe(1);
    finish();
    await work;
    expect(t.tracker.pending).toBe(0);
  });

  it('discard ends the turn as discarded, stops recognition and ignores later transcripts', () => {
    const t = setup();
    t.state.discard();
    t.state.discard();
    t.state.abandon();
    expect(t.state.consumed).toBe(true);
    expect(t.transcripts.observed).toBe(false);
    expect(t.spans()['turn']!.attributes).toEqual({ [spanAttributes.turnDiscarded]: true });
    expect(Object.keys(t.spans()).sort()).toEqual(['asr', 'turn']);
  });

  it('abandon stops recognition and the false-interruption timer, ending the turn (not as discarded) once', () => {
    const t = setup();
    t.audio(200);
    t.state.abandon();
    t.state.abandon();
    t.clock.advanceTo(5000);
    expect(t.log).toEqual(['pause']);
    expect(t.transcripts.observed).toBe(false);
    expect(t.state.consumed).toBe(true);
    expect(t.spans()['turn']!.attributes).toEqual({});
    expect(t.state.finalText).toBe('');
  });

  it('a consumed utterance keeps its turn span open for the reply when abandoned', () => {
    const t = setup({ agent: 'none' });
    t.heard('hello', true);
    t.state.consumed = true;
    t.state.abandon();
    expect(Object.keys(t.spans())).toEqual(['asr']);
  });
});
