/** The Deepgram-compatible recognition endpoint's options (`createSpeechService({ listen })`). */
export interface ListenOptions {
  /** Path of the live socket and of the prerecorded POST. */
  path: string;
  /** A socket that sends no audio and no text message for this long is closed (1011, NET-0001), in ms. */
  idleTimeoutMs: number;
  /** Audio between two interim results, in ms (with `interim_results=true`). */
  interimIntervalMs: number;
  /** Audio held ahead each time a socket's credit hold grows, in seconds. */
  holdBlockSeconds: number;
  /** Live recognition sockets open at once on this server, all keys together (per key: the account gate's live-session limit). */
  maxSessions: number;
  /** Largest message accepted on the socket, in bytes. */
  maxFrameBytes: number;
  /** How often open sockets' keys are checked for revocation and expiry, in ms. */
  keyCheckIntervalMs: number;
}

export const defaults: ListenOptions = {
  path: '/v1/listen',
  idleTimeoutMs: 10_000,
  interimIntervalMs: 480,
  holdBlockSeconds: 10,
  maxSessions: 200,
  maxFrameBytes: 1024 * 1024,
  keyCheckIntervalMs: 500,
};
