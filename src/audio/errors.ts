/** Audio bytes that cannot be read: empty, truncated, wrong magic, or a codec this core does not decode. */
export class AudioFormatError extends Error {
  /** HTTP status a service answers with when a client sent these bytes. */
  readonly status = 400;
  override readonly name = 'AudioFormatError';
}

/** A sample rate or bitrate that a format does not support; the message names the supported values. */
export class UnsupportedAudioSettingError extends Error {
  readonly status = 400;
  override readonly name = 'UnsupportedAudioSettingError';
}
