/**
 * Engine doubles with a hosted service's latencies, for measuring what the framework itself costs per call:
 * ASR final 150 ms after the endpoint, TTS first audio 120 ms, LLM first token 300 ms, each with ±20% jitter.
 */
import { concatMap, delay, Observable, of, timer, map } from 'rxjs';
import type { Dialogue, DialogueInput, DialogueOutput, SpeechRequest, SpeechToText, TextToSpeech, TranscriptEvent, WorkOptions } from '../../src/agent/index.js';
import type { AudioFrame } from '../../src/audio/index.js';
import { AmplitudeStt, FixedDialogue, ToneTts } from '../../test/support/agent-doubles.js';

export const hostedLatencyMs = { asrFinal: 150, ttsFirstAudio: 120, llmFirstToken: 300 };

const jittered = (ms: number) => ms * (0.8 + 0.4 * Math.random());

export class HostedStt implements SpeechToText {
  private readonly inner = new AmplitudeStt();
  transcribe(utterance$: Observable<AudioFrame>, work?: WorkOptions): Observable<TranscriptEvent> {
    return this.inner.transcribe(utterance$, work).pipe(
      concatMap((event) => (event.final ? timer(jittered(hostedLatencyMs.asrFinal)).pipe(map(() => event)) : of(event))),
    );
  }
}

export class HostedTts implements TextToSpeech {
  private readonly inner = new ToneTts();
  prepare(): void {}
  speak(request: SpeechRequest) {
    return this.inner.speak(request).pipe(delay(jittered(hostedLatencyMs.ttsFirstAudio)));
  }
}

export class HostedDialogue implements Dialogue {
  readonly name = 'hosted-llm-double';
  private readonly inner = new FixedDialogue('Sure, I can help with that. Anything else?');
  respond(input: DialogueInput): Observable<DialogueOutput> {
    return this.inner.respond(input).pipe(delay(jittered(hostedLatencyMs.llmFirstToken)));
  }
}
