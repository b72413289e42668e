import type { InterruptionOptions } from './options.js';

const normalise = (text: string) => text.toLowerCase().replace(/[^a-z' -]/g, ' ').replace(/\s+/g, ' ').trim();

/** Words of `text` that are not backchannels (multi-word backchannels like "i see" are removed first). */
export function substantiveWords(text: string, options: Pick<InterruptionOptions, 'backchannels'>): string[] {
  let rest = ` ${normalise(text)} `;
  const phrases = [...options.backchannels].map(normalise).sort((a, b) => b.length - a.length);
  for (const phrase of phrases) {
    // Repeated: adjacent occurrences ("i see i see") share a space, so one pass leaves every second one.
    while (phrase && rest.includes(` ${phrase} `)) rest = rest.split(` ${phrase} `).join(' ');
  }
  return rest.split(' ').filter((word) => word && !phrases.includes(word));
}

/** True when `text` has words and all of them are backchannels. */
export function isBackchannel(text: string, options: Pick<InterruptionOptions, 'backchannels'>): boolean {
  return normalise(text) !== '' && substantiveWords(text, options).length === 0;
}

/**
 * The part of a reply the caller heard. With the provider's word timings (Cartesia's timestamps, ElevenLabs'
 * alignment): the words whose end was played; words spoken past the last timing (a provider without timings took
 * over, or its timings lag its audio) by their share of the rest of the audio. Without timings: by the share of
 * audio played.
 */
export function playedText(
  text: string,
  playedMs: number,
  totalMs: number,
  words: readonly { startMs: number; endMs: number }[],
): string {
  const tokens = text.split(/\s+/).filter(Boolean);
  if (playedMs >= totalMs) return text.trim();
  const byShare = (count: number, fromMs: number) => (totalMs > fromMs ? Math.floor((count * Math.max(0, playedMs - fromMs)) / (totalMs - fromMs)) : 0);
  let count: number;
  if (words.length > 0) {
    const timedEndMs = Math.max(...words.map((w) => w.endMs));
    count = words.filter((w) => w.endMs <= playedMs).length;
    if (playedMs > timedEndMs) count += byShare(Math.max(0, tokens.length - words.length), timedEndMs);
  } else {
    count = byShare(tokens.length, 0);
  }
  return tokens.slice(0, Math.min(count, tokens.length)).join(' ');
}
