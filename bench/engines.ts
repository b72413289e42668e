/** Local engine figures as JSON: TTS real-time factor and first-chunk time, ASR speed and WER, VAD cost, model load. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  FliteEngine,
  FliteProgram,
  PocketSphinxEngine,
  SileroVad,
  analyzeVoice,
  chunkText,
  fliteVoices,
  type FliteVoice,
} from '../src/engines/index.js';

const speechDir = join(import.meta.dirname, '../test/fixtures/speech');
const fixtures = (JSON.parse(readFileSync(join(speechDir, 'manifest.json'), 'utf8')) as Array<{ file: string; text: string }>).map(
  (entry) => ({ ...entry, pcm: readWav(join(speechDir, entry.file)) }),
);
const twelveWords = 'Thanks for calling, I can book you a table for two tonight.';
const paragraph =
  'Thanks for calling the Harbour Kitchen. We are open from noon until ten at night, every day except Monday. ' +
  'Would you like to book a table, or do you have a question about the menu?';

function readWav(path: string): Int16Array {
  const bytes = readFileSync(path);
  const at = bytes.indexOf('data') + 8;
  return new Int16Array(bytes.buffer.slice(bytes.byteOffset + at, bytes.byteOffset + bytes.length));
}

function wordErrors(reference: string, hypothesis: string): [number, number] {
  const r = reference.toLowerCase().split(/\s+/).filter(Boolean);
  const h = hypothesis.toLowerCase().split(/\s+/).filter(Boolean);
  let row = Array.from({ length: h.length + 1 }, (_, j) => j);
  for (let i = 1; i <= r.length; i++) {
    const next = [i];
    for (let j = 1; j <= h.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (r[i - 1] === h[j - 1] ? 0 : 1));
    row = next;
  }
  return [row[h.length]!, r.length];
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))]!;
const round = (value: number, digits = 3) => Number(value.toFixed(digits));

async function worstLoopStall<T>(work: () => Promise<T>): Promise<number> {
  let worst = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 2);
  await work();
  clearInterval(timer);
  return round(worst, 1);
}

async function benchTts() {
  const engine = new FliteEngine();
  let started = performance.now();
  await engine.warmUp();
  const coldStartMs = performance.now() - started;
  const perVoice: Record<string, unknown> = {};
  for (const voice of Object.keys(fliteVoices) as FliteVoice[]) {
    await engine.synthesize(paragraph, { voice });
    let audioMs = 0;
    let workMs = 0;
    for (let i = 0; i < 3; i++) {
      started = performance.now();
      const result = await engine.synthesize(paragraph, { voice });
      workMs += performance.now() - started;
      audioMs += (result.samples.length / result.sampleRate) * 1000;
    }
    // The WASM run alone, without word alignment or messaging.
    const program = FliteProgram.shared();
    let runMs = 0;
    for (let i = 0; i < 3; i++) runMs += (await program.run(['-voice', voice, '-t', paragraph, '-o', 'out.wav'], 'out.wav')).runMs;
    const sample = await engine.synthesize(paragraph, { voice });
    const analysis = analyzeVoice(sample.samples, sample.sampleRate);
    perVoice[voice] = {
      rtf: round(workMs / audioMs, 4),
      flite_run_rtf: round(runMs / audioMs, 4),
      default_pitch_hz: analysis.pitchHz,
      syllables_per_second: analysis.syllablesPerSecond,
    };
  }
  const whole: number[] = [];
  const firstClause: number[] = [];
  const firstChunk = chunkText(twelveWords, { latency: 'low' })[0]!;
  for (let i = 0; i < 10; i++) {
    started = performance.now();
    await engine.synthesize(twelveWords, { voice: 'slt' });
    whole.push(performance.now() - started);
    started = performance.now();
    await engine.synthesize(firstChunk, { voice: 'slt' });
    firstClause.push(performance.now() - started);
  }
  const stallMs = await worstLoopStall(() => engine.synthesize(paragraph, { voice: 'rms' }));
  await FliteProgram.shared().shutdown();
  return {
    cold_start_ms: round(coldStartMs, 1),
    voices: perVoice,
    first_chunk_12_words: {
      whole_sentence_p50_ms: round(percentile(whole, 0.5), 1),
      low_latency_first_clause: firstChunk,
      low_latency_first_clause_p50_ms: round(percentile(firstClause, 0.5), 1),
    },
    event_loop_worst_stall_ms: stallMs,
  };
}

async function benchAsr() {
  const engine = new PocketSphinxEngine();
  const decoderInitMs = await engine.preload();
  // Two at once: one reuses the idle decoder, the other loads a new one (the language model is shared by then).
  const nextDecoderInitMs = Math.max(...(await Promise.all([engine.preload(), engine.preload()])));
  let errors = 0;
  let words = 0;
  let audioMs = 0;
  let workMs = 0;
  for (const fixture of fixtures) {
    const started = performance.now();
    const hypothesis = await engine.transcribe(fixture.pcm);
    workMs += performance.now() - started;
    audioMs += (fixture.pcm.length / 16000) * 1000;
    const [e, n] = wordErrors(fixture.text, hypothesis.text);
    errors += e;
    words += n;
  }
  // Streaming in 100 ms chunks: time from the last chunk to the final hypothesis, and loop stalls.
  const finalLatency: number[] = [];
  const stall = await worstLoopStall(async () => {
    for (const fixture of fixtures) {
      const recognizer = engine.createRecognizer();
      for (let at = 0; at < fixture.pcm.length; at += 1600) await recognizer.write(fixture.pcm.subarray(at, at + 1600));
      const started = performance.now();
      await recognizer.finish();
      finalLatency.push(performance.now() - started);
      recognizer.close();
    }
  });
  await engine.shutdown();
  return {
    decoder_init_ms: round(decoderInitMs, 1),
    next_decoder_init_ms: round(nextDecoderInitMs, 1),
    rtf: round(workMs / audioMs, 3),
    wer: round(errors / words, 4),
    wer_words: words,
    streaming_finish_p50_ms: round(percentile(finalLatency, 0.5), 1),
    event_loop_worst_stall_ms: stall,
  };
}

async function benchVad() {
  const vad = await new SileroVad().ready();
  const pcm = fixtures.flatMap((f) => [f.pcm]);
  const frames: Int16Array[] = [];
  for (const audio of pcm) for (let at = 0; at + 512 <= audio.length; at += 512) frames.push(audio.subarray(at, at + 512));
  for (const frame of frames.slice(0, 50)) await vad.probability(frame);
  vad.reset();
  const started = performance.now();
  for (const frame of frames) await vad.probability(frame);
  const msPerFrame = (performance.now() - started) / frames.length;
  vad.release();
  return { ms_per_frame: round(msPerFrame, 4), frames: frames.length, frame_ms: 32 };
}

// Timer gaps while idle: the scheduling noise of this machine, against which the stalls above compare.
const idleStall = await worstLoopStall(() => new Promise((resolve) => setTimeout(resolve, 3000)));
const tts = await benchTts();
const asr = await benchAsr();
const vad = await benchVad();
console.log(JSON.stringify({ idle_event_loop_worst_stall_ms: idleStall, tts, asr, vad }, null, 2));
