/** When a word was said (recognition) or will be heard (synthesis), in milliseconds from the audio's start. */
export interface WordTiming {
  word: string;
  startMs: number;
  endMs: number;
}
