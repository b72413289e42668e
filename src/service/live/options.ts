/** The realtime TTS endpoint's options (`createSpeechService({ live })`). */
export interface LiveOptions {
  /** Paths of the realtime endpoint; the second adds word alignment to each audio event. */
  path: string;
  timestampPath: string;
  /** Interval of server pings, in ms. */
  pingIntervalMs: number;
  /** A client that answers no ping for this long is dropped, in ms (well above the 20 s some clients use). */
  pongTimeoutMs: number;
  /** Close the socket after `finish{reason:"stop"}`; when false the socket accepts a new `start`. */
  closeAfterFinish: boolean;
  /** Largest frame accepted, in bytes (a `start` may carry inline reference audio). */
  maxFrameBytes: number;
  /** On shutdown, how long clients get to answer the close handshake before they are dropped, in ms. */
  shutdownGraceMs: number;
  /** A socket that sends no `start` within this is closed with 1008, in ms (also after a finish that keeps it open). */
  startTimeoutMs: number;
  /** Live sessions open at once on this server, all keys together (per key: the account gate's limit); 503 beyond. */
  maxSessions: number;
  /** Synthesis pauses while more than this many bytes wait to be sent to the client. */
  maxBufferedBytes: number;
  /** A client that reads nothing for this long while audio waits is dropped, in ms. */
  unreadTimeoutMs: number;
  /** How often open sessions' keys are checked for revocation and expiry, in ms. */
  keyCheckIntervalMs: number;
}

export const defaults: LiveOptions = {
  path: '/v1/tts/live',
  timestampPath: '/v1/tts/live/with-timestamp',
  pingIntervalMs: 15_000,
  pongTimeoutMs: 60_000,
  closeAfterFinish: true,
  maxFrameBytes: 32 * 1024 * 1024,
  shutdownGraceMs: 1000,
  startTimeoutMs: 10_000,
  maxSessions: 200,
  maxBufferedBytes: 1024 * 1024,
  unreadTimeoutMs: 30_000,
  keyCheckIntervalMs: 500,
};
