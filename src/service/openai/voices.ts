/**
 * OpenAI's voice names and the built-in voice each one speaks with (docs/compatible-apis.md lists them).
 * Any other `voice` is taken as a voice id of this server: a built-in voice or a voice model.
 */
export const openAiVoices: Readonly<Record<string, string>> = {
  alloy: 'slt',
  ash: 'rms',
  ballad: 'calm',
  coral: 'bright',
  echo: 'rms',
  fable: 'narrator',
  onyx: 'deep',
  nova: 'bright',
  sage: 'calm',
  shimmer: 'slt',
  verse: 'awb',
  marin: 'kal16',
  cedar: 'deep',
};

/** The voice id a request's `voice` names on this server. */
export function voiceIdFor(voice: string): string {
  return Object.hasOwn(openAiVoices, voice) ? openAiVoices[voice]! : voice;
}
