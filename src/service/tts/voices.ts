import type { VoiceSettings } from '../../engines/index.js';
import { ServiceError, type Principal } from '../accounts.js';
import { builtinVoices } from '../builtin-voices.js';
import type { ServiceContext } from '../context.js';
import type { ModelProfile } from './models.js';
import { voiceFromReferences } from './reference-voice.js';
import type { ReferenceAudio, TtsRequest } from './schema.js';

export interface SpeakerVoices {
  /** One voice per speaker index. */
  voices: VoiceSettings[];
  /** Voice model ids used (for `task_count`). */
  referenceIds: string[];
}

function isNested(references: TtsRequest['references']): references is ReferenceAudio[][] {
  return Array.isArray(references) && references.length > 0 && Array.isArray(references[0]);
}

async function resolveId(id: string, principal: Principal, service: ServiceContext): Promise<VoiceSettings> {
  const voice = await service.voices.resolve(id, principal);
  if (voice) return voice;
  const builtin = builtinVoices.map((entry) => entry.id).join(', ');
  throw new ServiceError(400, `reference_id '${id}' is not a voice model you can use; use one of your models or a built-in voice (${builtin})`);
}

/**
 * The voices of a request (docs/service-api.md, voices): a `reference_id` string or array (one per speaker),
 * inline `references` (one speaker) or an array of arrays of them (one per speaker, `reference_id` then
 * only names the speakers). With none, the model's default voice.
 */
export async function resolveSpeakerVoices(
  request: Pick<TtsRequest, 'reference_id' | 'references'>,
  principal: Principal,
  service: ServiceContext,
  model: ModelProfile,
): Promise<SpeakerVoices> {
  const { references, reference_id: referenceId } = request;
  if (isNested(references)) {
    if (Array.isArray(referenceId) && referenceId.length > 0 && referenceId.length !== references.length) {
      throw new ServiceError(
        400,
        `reference_id names ${referenceId.length} speakers but references holds ${references.length}; give one entry per speaker`,
      );
    }
    const voices = await Promise.all(references.map((speaker, index) => voiceFromReferences(speaker, `references[${index}]`)));
    return { voices, referenceIds: [] };
  }
  if (typeof referenceId === 'string') {
    return { voices: [await resolveId(referenceId, principal, service)], referenceIds: [referenceId] };
  }
  if (Array.isArray(referenceId) && referenceId.length > 0) {
    const voices = await Promise.all(referenceId.map((id) => resolveId(id, principal, service)));
    return { voices, referenceIds: referenceId };
  }
  if (Array.isArray(references) && references.length > 0) {
    return { voices: [await voiceFromReferences(references as ReferenceAudio[], 'references')], referenceIds: [] };
  }
  return { voices: [{ voice: model.defaultVoice }], referenceIds: [] };
}
