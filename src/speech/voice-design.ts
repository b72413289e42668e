/** One designed voice as `POST /v1/voice-design` answers it: its preview audio (base64 WAV) and what made it. */
export interface VoiceDesignCandidate {
  id: string;
  index: number;
  audio_base64: string;
  sample_rate: number;
  duration_ms: number;
  text: string;
  instruct: string;
  language: string;
}
