/**
 * End of speech → final transcript as a call hears it: each clip (with silence after it) is played in real time
 * through the agent's voice activity detection and endpointing (the endpoint the clip's expectations give) into
 * the streaming recognizer; the time is measured from the endpoint (`speech-end`) to the final transcript.
 */
import { Subject } from 'rxjs';
import { CallListening } from '../src/agent/listening.js';
import { callerVoice, utteranceAudio } from '../src/agent/caller-voice.js';
import { StreamingEngineSpeechToText } from '../src/agent/stt/streaming-engine-stt.js';
import type { Expectation } from '../src/agent/expectations.js';
import { createFrame, type AudioFrame } from '../src/audio/index.js';
import { SileroVad } from '../src/engines/vad/index.js';
import type { PocketSphinxEngine } from '../src/engines/pocketsphinx/index.js';
import { systemClock, WorkTracker } from '../src/pipeline/index.js';

const frameMs = 20;
const trailingSilenceMs = 2000;
/** The balanced mode's endpoint, before expectations shorten or lengthen it. */
const endpointMs = 500;

export async function endpointToFinalMs(
  engine: PocketSphinxEngine,
  clips: ReadonlyArray<{ pcm: Int16Array; expectations: Expectation[] }>,
  speechPausedLeadMs: number,
): Promise<number[]> {
  const stt = new StreamingEngineSpeechToText(engine, { interimEveryMs: 0, speechPausedLeadMs });
  const ms: number[] = [];
  await engine.preload();
  for (const clip of clips) {
    const listening = new CallListening(undefined);
    listening.expect(clip.expectations);
    const call = stt.forCall();
    call.expect!(clip.expectations);
    const vad = new SileroVad();
    const audio$ = new Subject<AudioFrame>();
    const voice$ = callerVoice(audio$, vad, systemClock, new WorkTracker(), {}, () => listening.endpointSilenceMs(endpointMs, ''));
    const finals: Array<Promise<number>> = [];
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
            next: (t) => t.final && resolve(performance.now() - endedAt.get(event.utterance)!),
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
      if (due > 0) await new Promise((resolve) => setTimeout(resolve, due));
      audio$.next(createFrame(pcm.slice(at, at + samples), 16000, i * frameMs));
    }
    audio$.complete();
    await done;
    ms.push(...(await Promise.all(finals)));
    call.release();
    vad.release();
  }
  return ms;
}
