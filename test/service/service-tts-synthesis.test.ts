import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { gatedLoudnessDb } from '../../src/audio/index.js';
import type { SynthesisResult, TextToSpeechEngine, VoiceSettings } from '../../src/engines/index.js';
import { durationMs, synthesizeChunk, synthesizeChunks, type SpeechChunk, type SynthesisSettings } from '../../src/service/tts/synthesis.js';
import { spanAttributes } from '../../src/tracing/index.js';

// Synthesis around an engine double: which voice and rate the engine is asked for, what is done to its audio
// (resampling to 16 kHz, loudness, volume), the one-ahead order, and the span per chunk.

/** A 200 Hz tone of `ms` at `rate`, at amplitude `level` (0..1). */
function tone(ms: number, rate: number, level: number): Int16Array {
  const n = Math.round((ms * rate) / 1000);
  return Int16Array.from({ length: n }, (_, i) => Math.round(level * 32767 * Math.sin((2 * Math.PI * 200 * i) / rate)));
}

interface Call {
  text: string;
  voice: VoiceSettings;
}

/** An engine speaking every text as one second of tone (`ms` per call) at `rate`; records each call. */
function toneEngine(options: { rate?: number; level?: number; ms?: number } = {}) {
  const calls: Call[] = [];
  const started: string[] = [];
  const engine: TextToSpeechEngine = {
    name: 'tone',
    synthesize: async (text, voice): Promise<SynthesisResult> => {
      started.push(text);
      calls.push({ text, voice });
      const rate = options.rate ?? 16_000;
      return { samples: tone(options.ms ?? 1000, rate, options.level ?? 0.1), sampleRate: rate, words: [{ word: text, startMs: 0, endMs: 100 }] };
    },
  };
  return { engine, calls, started };
}

const voices: VoiceSettings[] = [{ voice: 'slt', rate: 1.5 }, { voice: 'rms' }];
const plain: SynthesisSettings = { voices, speed: 1, volumeDb: 0, normalizeLoudness: false };

describe('synthesizeChunk', () => {
  it('asks the engine for the speaker\'s voice at its rate times the speed; an unknown speaker gets the first voice', async () => {
    const { engine, calls } = toneEngine();
    await synthesizeChunk(engine, { text: 'one', speaker: 1 }, { ...plain, speed: 2 });
    await synthesizeChunk(engine, { text: 'two', speaker: 0 }, { ...plain, speed: 2 });
    await synthesizeChunk(engine, { text: 'three', speaker: 7 }, plain);
    expect(calls).toEqual([
      { text: 'one', voice: { voice: 'rms', rate: 2 } },
      { text: 'two', voice: { voice: 'slt', rate: 3 } },
      { text: 'three', voice: { voice: 'slt', rate: 1.5 } },
    ]);
  });

  it('keeps 16 kHz audio as it is and brings other rates to 16 kHz', async () => {
    const chunk: SpeechChunk = { text: 'hello', speaker: 0 };
    const same = await synthesizeChunk(toneEngine().engine, chunk, plain);
    expect(same.samples).toEqual(tone(1000, 16_000, 0.1));
    expect(same.words).toEqual([{ word: 'hello', startMs: 0, endMs: 100 }]);
    const narrow = await synthesizeChunk(toneEngine({ rate: 8000 }).engine, chunk, plain);
    expect(narrow.samples.length).toBe(16_000);
    expect(durationMs(narrow.samples)).toBe(1000);
    const wide = await synthesizeChunk(toneEngine({ rate: 22_050 }).engine, chunk, plain);
    expect(durationMs(wide.samples)).toBeCloseTo(1000, 0);
  });

  it('gives empty audio back empty, whatever the rate and settings', async () => {
    const { engine } = toneEngine({ rate: 8000, ms: 0 });
    const out = await synthesizeChunk(engine, { text: '', speaker: 0 }, { ...plain, normalizeLoudness: true, volumeDb: -6 });
    expect(out.samples.length).toBe(0);
  });

  it('brings quiet and loud chunks to -20 dBFS loudness when normalising, and leaves them alone otherwise', async () => {
    for (const level of [0.01, 0.5]) {
      const { engine } = toneEngine({ level });
      const normalised = await synthesizeChunk(engine, { text: 'x', speaker: 0 }, { ...plain, normalizeLoudness: true });
      expect(gatedLoudnessDb(normalised.samples, 16_000)).toBeCloseTo(-20, 0);
      const left = await synthesizeChunk(engine, { text: 'x', speaker: 0 }, plain);
      expect(left.samples).toEqual(tone(1000, 16_000, level));
    }
  });

  it('applies the volume after loudness', async () => {
    const { engine } = toneEngine({ level: 0.01 });
    const out = await synthesizeChunk(engine, { text: 'x', speaker: 0 }, { ...plain, normalizeLoudness: true, volumeDb: -6 });
    expect(gatedLoudnessDb(out.samples, 16_000)).toBeCloseTo(-26, 0);
  });
});

describe('synthesizeChunks', () => {
  const chunks: SpeechChunk[] = ['a', 'b', 'c'].map((text) => ({ text, speaker: 0 }));

  it('yields nothing for no chunks, without calling the engine', async () => {
    const { engine, calls } = toneEngine();
    const out = [];
    for await (const c of synthesizeChunks(engine, [], plain)) out.push(c);
    expect(out).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('yields the chunks in order, synthesising one ahead of the consumer', async () => {
    const { engine, started } = toneEngine();
    const seen: string[][] = [];
    const out: string[] = [];
    for await (const c of synthesizeChunks(engine, chunks, plain)) {
      seen.push([...started]);
      out.push(c.chunk.text);
    }
    expect(out).toEqual(['a', 'b', 'c']);
    expect(seen).toEqual([['a', 'b'], ['a', 'b', 'c'], ['a', 'b', 'c']]);
  });

  it('stops when the signal aborts', async () => {
    const { engine } = toneEngine();
    const abort = new AbortController();
    const out: string[] = [];
    await expect(async () => {
      for await (const c of synthesizeChunks(engine, chunks, plain, { signal: abort.signal })) {
        out.push(c.chunk.text);
        abort.abort();
      }
    }).rejects.toThrow();
    expect(out).toEqual(['a']);
  });

  it('runs each chunk in a tts.synthesize span under the request\'s trace, with its index and length', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    trace.setGlobalTracerProvider(provider);
    try {
      const parent = provider.getTracer('test').startSpan('request');
      const traceContext = trace.setSpan(ROOT_CONTEXT, parent);
      const { engine } = toneEngine();
      for await (const _ of synthesizeChunks(engine, [{ text: 'hello', speaker: 0 }, { text: 'hi', speaker: 1 }], plain, { trace: traceContext })) {
        // consume
      }
      const spans = exporter.getFinishedSpans();
      expect(spans.map((s) => s.name)).toEqual(['tts.synthesize', 'tts.synthesize']);
      expect(spans.map((s) => s.attributes)).toEqual([
        { [spanAttributes.ttsChunk]: 0, [spanAttributes.ttsChunkChars]: 5 },
        { [spanAttributes.ttsChunk]: 1, [spanAttributes.ttsChunkChars]: 2 },
      ]);
      for (const span of spans) {
        expect(span.spanContext().traceId).toBe(parent.spanContext().traceId);
        expect(span.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
      }
    } finally {
      trace.disable();
    }
  });
});
