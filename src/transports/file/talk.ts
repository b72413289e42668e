import { readFile, rename, writeFile } from 'node:fs/promises';
import { encodeWav } from '../../audio/index.js';
import type { Dialogue, TurnReport } from '../../agent/index.js';
import { createEmbeddedAgentStack, turnRecord } from '../../agent/index.js';
import { createLogger, type LogLevel } from '../../logging/index.js';
import { llmDialogue, type LlmCommandOptions } from '../../cli/llm-options.js';
import { decodeCall, runFileCall } from './run-call.js';

/** The options of `shoal talk`, as parsed by src/cli/commands/talk.ts. */
export interface TalkOptions extends LlmCommandOptions {
  in: string;
  out?: string;
  agent: string;
  script?: string;
  mode: 'low-latency' | 'balanced';
  json?: boolean;
  fast?: boolean;
  /** Default warn: the turns are the command's output; info adds the per-call log lines on stderr. */
  logLevel?: LogLevel;
}

/** A talk input that cannot be used (missing file, unknown agent...). */
export class TalkInputError extends Error {
  override readonly name = 'TalkInputError';
}

async function loadDialogue(options: TalkOptions): Promise<Dialogue> {
  const llm = await llmDialogue(options);
  if (llm) return llm;
  if (options.script) {
    const { loadScriptedDialogue } = await import('../../../plugins/index.js');
    return loadScriptedDialogue(options.script);
  }
  const { createAgent } = await import('../../../agents/index.js');
  return createAgent(options.agent);
}

function formatTurn(report: TurnReport): string {
  const m = report.metrics;
  const figures = [
    m.voiceToVoiceMs !== undefined ? `voice-to-voice ${Math.round(m.voiceToVoiceMs)} ms` : undefined,
    m.endOfSpeechToFinalMs !== undefined ? `asr ${Math.round(m.endOfSpeechToFinalMs)} ms` : undefined,
    m.dialogueFirstTokenMs !== undefined ? `dialogue ${Math.round(m.dialogueFirstTokenMs)} ms` : undefined,
    m.ttsFirstAudioMs !== undefined ? `tts ${Math.round(m.ttsFirstAudioMs)} ms` : undefined,
    report.interrupted ? 'interrupted' : undefined,
  ].filter(Boolean);
  const caller = report.userText ? `caller: ${report.userText}\n` : '';
  return `turn ${report.turn}\n${caller}agent:  ${report.agentText}\n        (${figures.join(', ') || 'no timings'})\n`;
}

/** `shoal talk`: plays a recorded caller into an agent on the embedded stack and reports each turn. */
export async function runTalk(options: TalkOptions): Promise<void> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(options.in);
  } catch (error) {
    throw new TalkInputError(`cannot read --in ${options.in}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const caller = await decodeCall(bytes);
  const dialogue = await loadDialogue(options);
  // Streaming pocketsphinx still mishears the first turn of 8 kHz telephone audio (booking-8k-ulaw: 35% WER,
  // the booking's party size lost) where whole-utterance recognition on the service gets 12%, at ~1.7 s per final.
  const stack = await createEmbeddedAgentStack({ mode: options.mode, stt: caller.sampleRate < 16000 ? 'service' : 'engine' });
  try {
    const agent = stack.agentFor(dialogue, { logger: createLogger({ level: options.logLevel ?? 'warn' }) });
    const result = await runFileCall(agent, caller, {
      fast: options.fast ?? false,
      onTurn: (report) => {
        process.stdout.write(options.json ? `${JSON.stringify(turnRecord(report))}\n` : formatTurn(report));
      },
    });
    if (options.out) {
      const track = await result.transport.agentTrack(caller.sampleRate);
      // Written beside the target first, so a failure leaves no half-written file.
      const partial = `${options.out}.partial`;
      await writeFile(partial, encodeWav(track, caller.sampleRate));
      await rename(partial, options.out);
    }
    if (!options.json) {
      const s = result.summary;
      const v2v = s.p50.voiceToVoiceMs;
      process.stdout.write(
        `call ended (${s.reason}) after ${(s.durationMs / 1000).toFixed(1)} s: ${s.turns.length} turns, ${s.interruptions} interruptions, ${s.errors} errors` +
          (v2v !== undefined ? `, voice-to-voice p50 ${Math.round(v2v)} ms` : '') +
          `, trace ${s.traceId}\n`,
      );
    }
  } finally {
    await stack.close();
  }
}
