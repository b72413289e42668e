import type { CallEntry } from './call-record.js';

export const pageDefaults = { limit: 50, maxLimit: 500 };

/** What a batch of entries adds to its call's list figures: turns, failed tools, the slowest turn, searchable words. */
export function entryFigures(entries: readonly CallEntry[]): { turns: number; failedTools: number; slowestTurnMs?: number; search: string } {
  let turns = 0;
  let failedTools = 0;
  let slowestTurnMs: number | undefined;
  const words: string[] = [];
  for (const entry of entries) {
    if (entry.kind === 'turn') {
      turns += 1;
      const ms = entry.metrics.voiceToVoiceMs;
      if (ms !== undefined) slowestTurnMs = Math.max(slowestTurnMs ?? 0, Math.round(ms));
      words.push(entry.userText, entry.agentText);
    } else if (entry.kind === 'tool') {
      if (entry.error !== undefined) failedTools += 1;
      words.push(entry.name, JSON.stringify(entry.arguments ?? {}), JSON.stringify(entry.result ?? ''));
    } else if (entry.kind === 'keypad') {
      words.push(entry.digits);
    }
  }
  return { turns, failedTools, ...(slowestTurnMs !== undefined ? { slowestTurnMs } : {}), search: ` ${words.join(' ').toLowerCase()}` };
}
