/**
 * Short answers streamed as a call hears them: each clip (with silence after it) goes through the agent's voice
 * activity detection and endpointing (the endpoint the clip's expectations give) into the streaming recognizer.
 * Gives each utterance's final text and the time from the endpoint (`speech-end`) to that final.
 * `realTime`: frames are played at the pace of speech (for the latency; otherwise as fast as they are taken,
 * which gives the same texts: what the recognizer hears does not depend on when it decodes).
 */
import { Subject } from 'rxjs';
import { ExpectedAnswers } from '../src/agent/expected-answers.js';
import { callerVoice, utteranceAudio } from '../src/agent/caller-voice.js';
import { StreamingEngineSpeechToText, type StreamingEngineSttOptions } from '../src/agent/stt/streaming-engine-stt.js';
import type { Expectation } from '../src/speech/index.js';
import { createFrame, type AudioFrame } from '../src/audio/index.js';
import { SileroVad } from '../src/engines/vad/index.js';
import type { PocketSphinxEngine } from '../src/engines/pocketsphinx/index.js';
import { systemClock, WorkTracker } from '../src/pipeline/index.js';

const frameMs = 20;
/** The balanced mode's endpoint, before expectations shorten or lengthen it. */
const endpointMs = 500;

export interface StreamedClip {
  /** 16 kHz samples (telephone audio already brought back to 16 kHz). */
  pcm: Int16Array;
  expectations: Expectation[];
}

export interface StreamedAnswers {
  /** Per clip, the finals of its utterances joined. */
  texts: string[];
  /** Per utterance, endpoint → final transcript. */
  endpointToFinalMs: number[];
}

export async function streamAnswers(
  engine: PocketSphinxEngine,
  clips: readonly StreamedClip[],
  stt: Partial<StreamingEngineSttOptions>,
  { realTime = true, callerSampleRate = 16000, trailingSilenceMs = 2000 } = {},
): Promise<StreamedAnswers> {
  const speechToText = new StreamingEngineSpeechToText(engine, { interimEveryMs: 0, ...stt });
  const result: StreamedAnswers = { texts: [], endpointToFinalMs: [] };
  await engine.preload();
  for (const clip of clips) {
    const listening = new ExpectedAnswers(undefined);
    listening.expect(clip.expectations);
    const call = speechToText.forCall({ callerSampleRate: () => callerSampleRate });
    call.expect!(clip.expectations);
    const vad = new SileroVad();
    const audio$ = new Subject<AudioFrame>();
    const voice$ = callerVoice(audio$, vad, systemClock, new WorkTracker(), {}, () => listening.endpointSilenceMs(endpointMs, ''));
    const finals: Array<Promise<{ text: string; ms: number }>> = [];
    const endedAt = new Map<number, number>();
    let scored!: () => void;
    const done = new Promise<void>((resolve) => (scored = resolve));
    voice$.subscribe({ complete: scored });
    voice$.subscribe((event) => {
      if (event.type === 'speech-end') endedAt.set(event.utterance, performance.now());
      if (event.type !== 'speech-start') return;
      finals.push(
        new Promise((resolve, reject) =>
          call.transcribe(utteranceAudio(voice$, event.utterance)).subscribe({
            next: (t) => t.final && resolve({ text: t.text, ms: performance.now() - endedAt.get(event.utterance)! }),
            error: reject,
          }),
        ),
      );
    });
    const pcm = new Int16Array(clip.pcm.length + (trailingSilenceMs * 16000) / 1000);
    pcm.set(clip.pcm);
    const started = performance.now();
    const samples = (frameMs * 16000) / 1000;
    for (let at = 0, i = 0; at < pcm.length; at += samples, i++) {
      const due = started + i * frameMs - performance.now();
      if (realTime && due > 0) await new Promise((resolve) => setTimeout(resolve, due));
      audio$.next(createFrame(pcm.slice(at, at + samples), 16000, i * frameMs));
    }
    audio$.complete();
    await done;
    const heard = await Promise.all(finals);
    result.texts.push(heard.map((h) => h.text).filter(Boolean).join(' '));
    result.endpointToFinalMs.push(...heard.map((h) => h.ms));
    call.release();
    vad.release();
  }
  return result;
}
