import { modelIds as ttsModelIds, modelProfiles, type ModelProfile } from '../tts/models.js';
import { ServiceError } from '../accounts.js';

/** Transcription model names clients send; every one runs the server's recogniser. */
export const transcriptionModels = ['whisper-1', 'gpt-4o-transcribe', 'gpt-4o-mini-transcribe'] as const;

/** OpenAI's speech model names; each runs as the `s2.1-pro` profile (loudness normalised). */
export const openAiSpeechModels = ['tts-1', 'tts-1-hd', 'gpt-4o-mini-tts'] as const;

/** Every model id `/v1/audio/speech` takes: OpenAI's names and the service's own `model` header values. */
export const speechModels: readonly string[] = [...openAiSpeechModels, ...ttsModelIds];

/** `created` of every listed model (a fixed time: the models are built in, not uploaded). */
const created = 1_764_288_000;

export interface OpenAiModel {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

export function listedModels(): OpenAiModel[] {
  return [...transcriptionModels, ...speechModels].map((id) => ({ id, object: 'model', created, owned_by: 'shoal' }));
}

export function checkTranscriptionModel(model: string): void {
  if (!(transcriptionModels as readonly string[]).includes(model)) {
    throw new ServiceError(400, `unknown model '${model}'; transcription takes ${transcriptionModels.join(', ')} (all run this server's recogniser)`);
  }
}

export function speechProfile(model: string): ModelProfile {
  if ((openAiSpeechModels as readonly string[]).includes(model)) return modelProfiles['s2.1-pro'];
  if ((ttsModelIds as readonly string[]).includes(model)) return modelProfiles[model as keyof typeof modelProfiles];
  throw new ServiceError(400, `unknown model '${model}'; speech takes ${speechModels.join(', ')}`);
}
