/** The Cartesia streaming synthesis adapter's options; each has a default in `cartesiaDefaults`. */
export interface CartesiaOptions {
  /** Default: `CARTESIA_API_KEY`. */
  apiKey?: string;
  /** The base URL as `@cartesia/cartesia-js` takes it (`https://api.cartesia.ai`; `http://` for a local server). Default: `CARTESIA_BASE_URL`, else Cartesia's. */
  baseUrl?: string;
  /** The API version (`Cartesia-Version` header). */
  version: string;
  model: string;
  /** A voice id. */
  voice: string;
  language: string;
  /** The rate spoken at when the reply names none (`SpeechRequest.sampleRate`). */
  sampleRate: number;
  /** A phone line's 8 kHz: `mulaw` asks for `pcm_mulaw` (the line's own encoding), `pcm` for `pcm_s16le`. */
  phoneEncoding: 'mulaw' | 'pcm';
  /** Word timestamps (`add_timestamps`), for barge-in to know what was said. */
  timestamps: boolean;
  /** `max_buffer_delay_ms`: how long Cartesia may wait for more text before speaking; undefined leaves Cartesia's. */
  maxBufferDelayMs?: number;
  /** The socket opens within this long or the reply fails with `timeout`, ms. */
  connectTimeoutMs: number;
  /** Audio comes within this long of the end of a reply's text or the reply fails with `timeout`, ms. */
  firstAudioTimeoutMs: number;
  /** The socket is closed after this long without a reply, ms. */
  idleCloseMs: number;
}

export const cartesiaDefaults: CartesiaOptions = {
  version: '2025-04-16',
  model: 'sonic-2',
  voice: 'a0e99841-438c-4a64-b679-ae501e7d6091',
  language: 'en',
  sampleRate: 24000,
  phoneEncoding: 'mulaw',
  timestamps: true,
  connectTimeoutMs: 5000,
  firstAudioTimeoutMs: 5000,
  idleCloseMs: 60_000,
};

export const cartesiaBaseUrl = 'https://api.cartesia.ai';
export const keyVariable = 'CARTESIA_API_KEY';
export const baseUrlVariable = 'CARTESIA_BASE_URL';
/** The raw output rates Cartesia speaks at. */
export const cartesiaSampleRates = [8000, 16000, 22050, 24000, 44100, 48000] as const;
