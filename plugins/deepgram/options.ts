/** The Deepgram live recognition adapter's options; each has a default in `deepgramDefaults`. */
export interface DeepgramOptions {
  /** Default: `DEEPGRAM_API_KEY`. */
  apiKey?: string;
  /** The base URL as `@deepgram/sdk` takes it (`https://api.deepgram.com`; `http://` for a local server). Default: `DEEPGRAM_BASE_URL`, else Deepgram's. */
  baseUrl?: string;
  /** The `Authorization` scheme: `Token` for an API key, `Bearer` for a temporary token. */
  authScheme: 'Token' | 'Bearer';
  model: string;
  language: string;
  /**
   * How audio goes on the wire: `auto` sends a phone caller's 8 kHz audio as mu-law (the line's own bytes, half
   * of linear PCM) and other rates as `linear16`; audio is never resampled.
   */
  encoding: 'auto' | 'linear16' | 'mulaw';
  interimResults: boolean;
  /** Deepgram's endpointing silence (`speech_final`), ms; `false` turns it off. */
  endpointingMs: number | false;
  /** `UtteranceEnd` after this much silence past the last word, ms (needs interim results); `false` turns it off. */
  utteranceEndMs: number | false;
  /** `SpeechStarted` messages. */
  vadEvents: boolean;
  smartFormat: boolean;
  /** At most this many key terms from the call's expectations (`keyterm`); 0 sends none. */
  maxKeyterms: number;
  /**
   * Also send the call's expectations whole (digits, dates, choices) as `hints`, the JSON of `/v1/asr`'s hints: an
   * extension of Shoal's speech service, which recognises with them; Deepgram itself does not take it.
   */
  sendHints: boolean;
  /**
   * Audio goes to Deepgram once at least this much has gathered (Deepgram takes 20 to 250 ms per message), ms: fewer,
   * larger socket writes. The endpoint sends what is left before `Finalize`, so the final is not delayed; interims
   * may be, by up to this much. 0 sends each frame as it comes.
   */
  chunkMs: number;
  /** `KeepAlive` after this long without audio (Deepgram closes a socket that hears nothing for 10 s), ms. */
  keepAliveMs: number;
  /** After `Finalize`, the final comes within this long or the utterance ends on what was heard, ms. */
  finalizeTimeoutMs: number;
  /** The socket opens within this long or the recogniser fails with `timeout`, ms. */
  connectTimeoutMs: number;
}

export const deepgramDefaults: DeepgramOptions = {
  authScheme: 'Token',
  model: 'nova-3',
  language: 'en',
  encoding: 'auto',
  interimResults: true,
  endpointingMs: 300,
  utteranceEndMs: 1000,
  vadEvents: true,
  smartFormat: true,
  maxKeyterms: 50,
  sendHints: false,
  chunkMs: 80,
  keepAliveMs: 5000,
  finalizeTimeoutMs: 1500,
  connectTimeoutMs: 5000,
};

/** Throws a RangeError naming the option when `chunkMs` is not a duration Deepgram takes per message. */
export function checkChunkMs(chunkMs: number): void {
  if (!Number.isFinite(chunkMs) || chunkMs < 0 || chunkMs > 250) {
    throw new RangeError(`deepgram: chunkMs must be 0 (each frame as it comes) to 250 ms (Deepgram takes 20 to 250 ms per message), got ${chunkMs}`);
  }
}

export const deepgramBaseUrl = 'https://api.deepgram.com';
export const keyVariable = 'DEEPGRAM_API_KEY';
export const baseUrlVariable = 'DEEPGRAM_BASE_URL';

/** What a socket is opened with from the call's expectations: `keyterm`s, and `hints` (JSON) when `sendHints`. */
export interface ListenTerms {
  keyterms: readonly string[];
  hints?: string;
}

/** The query of `/v1/listen` for audio at `sampleRate` in `encoding`, boosting the key terms. */
export function listenQuery(o: DeepgramOptions, sampleRate: number, encoding: 'linear16' | 'mulaw', { keyterms, hints }: ListenTerms): Record<string, string | number | boolean | readonly string[] | undefined> {
  return {
    model: o.model,
    language: o.language,
    encoding,
    sample_rate: sampleRate,
    channels: 1,
    interim_results: o.interimResults,
    endpointing: o.endpointingMs === false ? false : o.endpointingMs,
    utterance_end_ms: o.utteranceEndMs === false || !o.interimResults ? undefined : o.utteranceEndMs,
    vad_events: o.vadEvents,
    smart_format: o.smartFormat,
    keyterm: keyterms.length > 0 ? keyterms : undefined,
    hints,
  };
}
