/**
 * Low-latency mode over Deepgram's interims against its finals only (a server giving no interim results, as with
 * `interim_results=false`), with the LLM double answering 300 ms after the request: reply after the caller's turn
 * end, and the time the interims save (speculative replies started on a stable interim, kept when the final agrees).
 */
import { measureReplies } from './replies.js';

export async function interimsSaving(o: { tts: 'cartesia' | 'elevenlabs'; turns: number; llmFirstTokenMs: number }) {
  const run = (interims: boolean) => measureReplies({ tts: o.tts, mode: 'low-latency', counts: [1], turns: o.turns, llmFirstTokenMs: o.llmFirstTokenMs, interims });
  const withInterims = await run(true);
  const finalsOnly = await run(false);
  const p50 = (result: typeof withInterims) => result.rows[0]!.reply_after_turn_end_ms.p50 ?? NaN;
  const p95 = (result: typeof withInterims) => result.rows[0]!.reply_after_turn_end_ms.p95 ?? NaN;
  return {
    stt: 'deepgram',
    tts: o.tts,
    mode: 'low-latency',
    llm_first_token_ms: o.llmFirstTokenMs,
    interims: withInterims.rows[0],
    finals_only: finalsOnly.rows[0],
    saved_ms: { p50: Math.round((p50(finalsOnly) - p50(withInterims)) * 10) / 10, p95: Math.round((p95(finalsOnly) - p95(withInterims)) * 10) / 10 },
  };
}
