import { readFile, rename, writeFile } from 'node:fs/promises';
import { encodeWav } from '../audio/index.js';
import type { Dialogue, TurnReport } from '../agent/index.js';
import { createEmbeddedAgentStack, turnRecord } from '../agent/index.js';
import { speechChoice, warnLine } from './speech-providers.js';
import { createLogger } from '../logging/index.js';
import { llmDialogue } from './llm-options.js';
import type { TalkCommandOptions } from './options.js';
import type { McpServer } from '../../plugins/index.js';
import { decodeCall, runFileCall } from '../transports/file/file-call.js';
import { openCallRecords } from './call-records.js';
import { speechService } from './run-agent.js';
import { serviceRecognition } from './service-recognition.js';

/** A talk input that cannot be used (missing file, unknown agent...). */
export class TalkInputError extends Error {
  override readonly name = 'TalkInputError';
}

/** The call's dialogue, and what stops its MCP servers (`--mcp`, a flow's `mcp:`) once the call is over. */
async function loadDialogue(options: TalkCommandOptions): Promise<{ dialogue: Dialogue; close(): Promise<void> }> {
  const servers: McpServer[] = [];
  const llm = await llmDialogue(options, undefined, servers);
  if (llm) return { dialogue: llm, close: async () => void (await Promise.all(servers.map((server) => server.close()))) };
  if (options.script) {
    const { openDialogueFile } = await import('../../plugins/index.js');
    const opened = await openDialogueFile(options.script);
    return { dialogue: opened.create(), close: () => opened.close() };
  }
  const { createDialogue } = await import('../../agents/index.js');
  return { dialogue: createDialogue(options.agent), close: async () => undefined };
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
export async function runTalk(options: TalkCommandOptions): Promise<void> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(options.in);
  } catch (error) {
    throw new TalkInputError(`cannot read --in ${options.in}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  const caller = await decodeCall(bytes);
  const { dialogue, close } = await loadDialogue(options);
  try {
    await talk(options, caller, dialogue);
  } finally {
    await close();
  }
}

async function talk(options: TalkCommandOptions, caller: Awaited<ReturnType<typeof decodeCall>>, dialogue: Dialogue): Promise<void> {
  // Heard as `shoal agent` hears a caller of that line: by the streaming recognizer, told the line's rate
  // (8 kHz calls too).
  const speech = speechChoice(options);
  await speech.checkKeys(warnLine);
  const logger = createLogger({ level: options.logLevel ?? 'warn' });
  const records = await openCallRecords(options, (error) => logger.warn({ err: error }, 'call record not written'), { log: logger });
  // With --service-url, recognition streams over the service's /v1/listen socket when it has one (as `shoal agent`'s).
  const service = options.serviceUrl && speech.usesService ? await speechService(options) : undefined;
  const recognition = await serviceRecognition(speech.stt, service);
  if (recognition.fallback) warnLine(recognition.fallback);
  const stack = await createEmbeddedAgentStack({
    mode: options.mode,
    ...(service ? { service: { url: service.url, apiKey: service.apiKey } } : {}),
    stt: recognition.sttFor(options.mode),
    tts: speech.tts,
  });
  try {
    const agent = stack.agentFor(dialogue, { logger, ...(records ? { records: records.records } : {}) });
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
    await records?.close();
  }
}
