/** The variables the official `openai` SDK reads. */
export const keyVariable = 'OPENAI_API_KEY';
export const baseUrlVariable = 'OPENAI_BASE_URL';
export const openAiBaseUrl = 'https://api.openai.com/v1';

export interface OpenAiAudioOptions {
  /** Default `$OPENAI_API_KEY`. A local server that needs no key (speaches, Kokoro-FastAPI) takes any value, or `none`. */
  apiKey: string;
  /** Default `$OPENAI_BASE_URL`, else `https://api.openai.com/v1`; a local server's `/v1` (speaches, Kokoro-FastAPI, vLLM, LocalAI). */
  baseUrl: string;
  /** Recognition model (`whisper-1`, `gpt-4o-mini-transcribe`, `Systran/faster-whisper-small` on speaches). */
  sttModel: string;
  /** Synthesis model (`gpt-4o-mini-tts`, `tts-1`, `kokoro` on Kokoro-FastAPI). */
  ttsModel: string;
  /** Synthesis voice (`alloy`, `af_heart` on Kokoro). */
  voice: string;
  /** Language of the caller (ISO 639-1), sent to recognition; absent: the model detects it. */
  language?: string;
  /** Word timestamps (`timestamp_granularities[]=word` with `verbose_json`); off for servers that refuse them. */
  wordTimestamps: boolean;
  /** A request with no answer after this long fails with `timeout`, ms. */
  timeoutMs: number;
}

export const openAiAudioDefaults = {
  sttModel: 'whisper-1',
  ttsModel: 'gpt-4o-mini-tts',
  voice: 'alloy',
  wordTimestamps: true,
  timeoutMs: 10_000,
};

/** OpenAI's `pcm` response format: 24 kHz, 16-bit little-endian, mono. */
export const pcmRate = 24_000;

export function resolveOptions(options: Partial<OpenAiAudioOptions>): Omit<OpenAiAudioOptions, 'apiKey'> & { apiKey: string | undefined } {
  return {
    ...openAiAudioDefaults,
    ...options,
    apiKey: options.apiKey ?? process.env[keyVariable],
    baseUrl: (options.baseUrl ?? process.env[baseUrlVariable] ?? openAiBaseUrl).replace(/\/+$/, ''),
  };
}
