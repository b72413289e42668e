/** Engine errors beyond the shared EngineUnavailableError of types.ts. */

/** The engine cannot handle the requested language; the message lists the ones it can. */
export class UnsupportedLanguageError extends Error {
  readonly status = 400;
  override readonly name = 'UnsupportedLanguageError';

  constructor(
    readonly engine: string,
    readonly language: string,
    readonly supported: string[],
  ) {
    super(`${engine} does not recognise language "${language}"; supported: ${supported.join(', ')}`);
  }
}

/** Voice settings outside what the synthesiser can do (unknown voice, rate or pitch out of range). */
export class InvalidVoiceSettingsError extends Error {
  readonly status = 400;
  override readonly name = 'InvalidVoiceSettingsError';
}
