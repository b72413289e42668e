/** The ElevenLabs streaming synthesis adapter's options; each has a default in `elevenLabsDefaults`. */
export interface ElevenLabsOptions {
  /** Default: `ELEVENLABS_API_KEY`. */
  apiKey?: string;
  /** The base URL as `@elevenlabs/elevenlabs-js` takes it (`https://api.elevenlabs.io`, a residency region, `http://` for a local server). Default: `ELEVENLABS_BASE_URL`, else ElevenLabs'. */
  baseUrl?: string;
  /** A voice id. */
  voice: string;
  model: string;
  /** `language_code`; undefined lets the model decide. */
  language?: string;
  /** The PCM rate spoken at when the reply names none or one ElevenLabs does not offer (`SpeechRequest.sampleRate`). */
  sampleRate: number;
  /** A phone line's 8 kHz: `mulaw` asks for `ulaw_8000` (the line's own encoding), `pcm` for `pcm_8000`. */
  phoneEncoding: 'mulaw' | 'pcm';
  /** Character timings with each audio chunk (`sync_alignment`), turned into words for barge-in. */
  syncAlignment: boolean;
  /** Send each text piece (a clause or sentence) with `flush`, so speech starts without waiting for 120 characters. */
  flushEachPiece: boolean;
  /** `voice_settings` of each context (`stability`, `similarity_boost`, `style`, `use_speaker_boost`, `speed`); undefined keeps the voice's. */
  voiceSettings?: Record<string, number | boolean>;
  /** `inactivity_timeout`: seconds a context may wait for text (a slow dialogue) before ElevenLabs closes it (max 180). */
  inactivityTimeoutS: number;
  /** The socket opens within this long or the reply fails with `timeout`, ms. */
  connectTimeoutMs: number;
  /** Audio comes within this long of the end of a reply's text or the reply fails with `timeout`, ms. */
  firstAudioTimeoutMs: number;
  /** A socket is closed after this long without a reply, ms. */
  idleCloseMs: number;
}

export const elevenLabsDefaults: ElevenLabsOptions = {
  voice: '21m00Tcm4TlvDq8ikWAM',
  model: 'eleven_flash_v2_5',
  sampleRate: 16000,
  phoneEncoding: 'mulaw',
  syncAlignment: true,
  flushEachPiece: true,
  inactivityTimeoutS: 60,
  connectTimeoutMs: 5000,
  firstAudioTimeoutMs: 5000,
  idleCloseMs: 15_000,
};

export const elevenLabsBaseUrl = 'https://api.elevenlabs.io';
export const keyVariable = 'ELEVENLABS_API_KEY';
export const baseUrlVariable = 'ELEVENLABS_BASE_URL';
/** The PCM rates of `output_format` (`pcm_16000`, …); `ulaw_8000` besides. */
export const elevenLabsSampleRates = [8000, 16000, 22050, 24000, 44100, 48000] as const;
