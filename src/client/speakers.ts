import { InvalidRequestError } from './errors.js';
import type { ReferenceAudio, TtsRequest } from './types.js';

/** One speaker's line in a multi-speaker script. */
export interface SpeakerTurn {
  /** A voice model id, or (with `references`) any name for the speaker. */
  speaker: string;
  text: string;
}

/**
 * Builds `text` with `<|speaker:N|>` tags and the matching `reference_id` array from turns; speakers are
 * numbered in order of first appearance. With `references` (speaker name → samples) it builds a zero-shot
 * request instead: `references` becomes one inner array per speaker and `reference_id` holds the names.
 */
export function multiSpeakerRequest(
  turns: readonly SpeakerTurn[],
  references?: Readonly<Record<string, ReferenceAudio[]>>,
): Pick<TtsRequest, 'text' | 'reference_id' | 'references'> {
  if (turns.length === 0) throw new InvalidRequestError('multiSpeakerRequest needs at least one turn');
  const speakers: string[] = [];
  const parts: string[] = [];
  let previous = -1;
  for (const turn of turns) {
    if (!turn.speaker) throw new InvalidRequestError('every turn needs a speaker');
    let index = speakers.indexOf(turn.speaker);
    if (index < 0) index = speakers.push(turn.speaker) - 1;
    parts.push(index === previous ? ` ${turn.text}` : `<|speaker:${index}|>${turn.text}`);
    previous = index;
  }
  const text = parts.join('');
  if (!references) return { text, reference_id: speakers };
  const missing = speakers.filter((speaker) => !references[speaker]?.length);
  if (missing.length) throw new InvalidRequestError(`no reference audio for speaker(s) ${missing.join(', ')}`);
  return { text, reference_id: speakers, references: speakers.map((speaker) => references[speaker]!) };
}
