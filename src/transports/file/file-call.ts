import { decodeAudio } from '../../audio/index.js';
import type { AgentEvent, SessionSummary, TurnReport, VoiceAgent } from '../../agent/index.js';
import { systemClock, VirtualClock, type Clock } from '../../pipeline/index.js';
import { FileTransport, type FileTransportOptions } from './file-transport.js';

export interface FileCallOptions {
  /** Deterministic, faster than real time: a virtual clock that moves with the recording. */
  fast: boolean;
  transport?: Partial<FileTransportOptions>;
  onTurn?: (report: TurnReport) => void;
  onEvent?: (event: AgentEvent) => void;
}

export interface FileCallResult {
  summary: SessionSummary;
  events: AgentEvent[];
  transport: FileTransport;
  callSampleRate: number;
}

/** Plays a decoded recording into `agent` as one call and resolves at hangup. */
export async function runFileCall(
  agent: VoiceAgent,
  caller: { samples: Int16Array; sampleRate: number },
  options: FileCallOptions,
): Promise<FileCallResult> {
  const clock: Clock = options.fast ? new VirtualClock() : systemClock;
  const transport = new FileTransport(caller, clock, options.transport);
  const session = agent.handle(transport, { clock });
  if (options.fast) transport.settle = () => session.settled();
  const events: AgentEvent[] = [];
  session.events$.subscribe((event) => {
    events.push(event);
    options.onEvent?.(event);
    if (event.type === 'turn-metrics') options.onTurn?.(event.report);
  });
  const summary = await session.summary;
  return { summary, events, transport, callSampleRate: caller.sampleRate };
}

/** Decodes any supported recording (WAV of any rate, mu-law/A-law, MP3, Opus, FLAC) to mono PCM. */
export async function decodeCall(bytes: Uint8Array): Promise<{ samples: Int16Array; sampleRate: number }> {
  const decoded = await decodeAudio(bytes);
  return { samples: decoded.samples, sampleRate: decoded.sampleRate };
}
