/** The OpenAI-compatible audio adapters' options; each has a default in `openAiAudioDefaults`. */
export interface OpenAiAudioOptions {
  /** Default: `OPENAI_API_KEY`; a server other than OpenAI's may need none. */
  apiKey?: string;
  /** The base URL as the `openai` SDK takes it (`https://api.openai.com/v1`; `http://127.0.0.1:8000/v1` for speaches, Kokoro-FastAPI, vLLM, LocalAI). Default: `OPENAI_BASE_URL`, else OpenAI's. */
  baseUrl?: string;
  /** Each request answers within this long or fails with `timeout`, ms. */
  timeoutMs: number;
}

/** Recognition (`POST /audio/transcriptions`) on each utterance the VAD cuts. */
export interface OpenAiTranscriptionOptions extends OpenAiAudioOptions {
  /** `whisper-1`, `gpt-4o-transcribe`, a local server's model (`Systran/faster-whisper-small`). */
  model: string;
  /** ISO-639-1; undefined lets the model detect it. */
  language?: string;
  /** `verbose_json` gives word timings (with `wordTimestamps`); `json` is all `gpt-4o-transcribe` takes. */
  responseFormat: 'json' | 'verbose_json' | 'text';
  /** Ask for word timings (`timestamp_granularities[]=word`, with `verbose_json` only). */
  wordTimestamps: boolean;
  /** Text put before the call's expected words in `prompt` (a style or vocabulary hint); undefined: none. */
  prompt?: string;
  /** At most this many words from the call's expectations go into `prompt`; 0 sends none. */
  maxPromptTerms: number;
  /** Shorter utterances are padded with faint noise to this length (OpenAI refuses audio under 0.1 s), ms. */
  minAudioMs: number;
}

/** Synthesis (`POST /audio/speech`) of each sentence the agent cuts from the reply. */
export interface OpenAiSpeechOptions extends OpenAiAudioOptions {
  /** `gpt-4o-mini-tts`, `tts-1`, a local server's model (`kokoro`). */
  model: string;
  voice: string;
  /** `instructions` (how to speak; `gpt-4o-mini-tts` only); undefined: none. */
  instructions?: string;
  speed?: number;
  /** `audio`: the raw PCM body as it streams; `sse`: `speech.audio.delta` events, where the server offers them. */
  streamFormat: 'audio' | 'sse';
  /** The rate of the server's `pcm` (OpenAI and Kokoro-FastAPI: 24000); converted to the line's rate. */
  pcmSampleRate: number;
  /** Audio is handed on in frames of this length, ms. */
  frameMs: number;
}

export const openAiAudioDefaults = { timeoutMs: 15_000 } satisfies OpenAiAudioOptions;

export const openAiTranscriptionDefaults: OpenAiTranscriptionOptions = {
  ...openAiAudioDefaults,
  model: 'whisper-1',
  language: 'en',
  responseFormat: 'verbose_json',
  wordTimestamps: true,
  maxPromptTerms: 40,
  minAudioMs: 100,
};

export const openAiSpeechDefaults: OpenAiSpeechOptions = {
  ...openAiAudioDefaults,
  model: 'gpt-4o-mini-tts',
  voice: 'alloy',
  streamFormat: 'audio',
  pcmSampleRate: 24000,
  frameMs: 20,
};

export const openAiBaseUrl = 'https://api.openai.com/v1';
export const keyVariable = 'OPENAI_API_KEY';
export const baseUrlVariable = 'OPENAI_BASE_URL';
