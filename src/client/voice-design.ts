import type { CallOptions } from './defaults.js';
import { defaults } from './defaults.js';
import { InvalidRequestError, MalformedResponseError } from './errors.js';
import type { HttpTransport } from './http.js';
import { jsonBody } from './request-body.js';
import type { VoiceDesignCandidate, VoiceDesignRequest } from './types.js';

/** A candidate with its audio already decoded from base64. */
export interface DesignedVoice extends VoiceDesignCandidate {
  audio: Uint8Array;
}

export interface VoiceDesignOptions extends CallOptions {
  /** `model` header. Default `voice-design-1`. */
  model?: string;
}

export async function designVoice(http: HttpTransport, request: VoiceDesignRequest, options: VoiceDesignOptions = {}): Promise<DesignedVoice[]> {
  if (!request || typeof request.instruction !== 'string' || request.instruction.length === 0) {
    throw new InvalidRequestError('voice design needs an `instruction` of 1 to 2000 characters');
  }
  const response = await http.json<{ candidates?: VoiceDesignCandidate[] }>({
    method: 'POST',
    path: '/v1/voice-design',
    headers: { model: options.model ?? defaults.voiceDesignModel },
    body: jsonBody(request),
    what: 'POST /v1/voice-design',
    call: options,
  });
  if (!response || !Array.isArray(response.candidates)) {
    throw new MalformedResponseError('POST /v1/voice-design: the response has no `candidates` array', 200, response);
  }
  return response.candidates.map((candidate) => ({ ...candidate, audio: Buffer.from(candidate.audio_base64 ?? '', 'base64') }));
}
