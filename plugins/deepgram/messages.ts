/** The messages of Deepgram's live `/v1/listen` socket that the adapter reads (Deepgram's documented shapes). */
export interface DeepgramWord {
  word: string;
  punctuated_word?: string;
  start: number;
  end: number;
  confidence: number;
}

export interface DeepgramResults {
  type: 'Results';
  /** Seconds of stream audio where this result starts, and how long it covers. */
  start: number;
  duration: number;
  is_final?: boolean;
  speech_final?: boolean;
  from_finalize?: boolean;
  channel: { alternatives: Array<{ transcript: string; confidence: number; words: DeepgramWord[] }> };
}

export type DeepgramMessage =
  | DeepgramResults
  | { type: 'UtteranceEnd'; last_word_end: number }
  | { type: 'SpeechStarted'; timestamp: number }
  | { type: 'Metadata'; request_id: string; duration: number; /** Shoal's `/v1/listen`: credits billed, a decimal string. */ shoal_charge?: string }
  | { type: 'Error'; description?: string; message?: string; variant?: string };

/** The message a text frame holds, or undefined when it is not one Deepgram documents. */
export function parseMessage(text: string): DeepgramMessage | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object') return undefined;
  const type = (parsed as { type?: unknown }).type;
  if (type === 'Results') {
    const results = parsed as DeepgramResults;
    return Array.isArray(results.channel?.alternatives) && typeof results.start === 'number' ? results : undefined;
  }
  if (type === 'UtteranceEnd' || type === 'SpeechStarted' || type === 'Metadata' || type === 'Error') return parsed as DeepgramMessage;
  return undefined;
}
